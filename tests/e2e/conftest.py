"""What every end-to-end server of the suite shares."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """The suite's servers offer every tool, so that each tool's own tests run on the
    small fixture projects (which would otherwise get the small default set); the
    default sets are tested in test_mcp_surface.py, which asks for them. Set before the
    test modules are imported: some build their servers' environment at import."""
    os.environ["REPOLENS_MCP_TOOLS"] = "all"
