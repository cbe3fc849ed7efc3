"""What every end-to-end server of the suite shares."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def every_tool_offered() -> Iterator[None]:
    """The suite's servers offer every tool, so that each tool's own tests run on the
    small fixture projects (which would otherwise get the small default set); the
    default sets are tested in test_mcp_surface.py, which asks for them."""
    before = os.environ.get("REPOLENS_MCP_TOOLS")
    os.environ["REPOLENS_MCP_TOOLS"] = "all"
    yield
    if before is None:
        os.environ.pop("REPOLENS_MCP_TOOLS", None)
    else:
        os.environ["REPOLENS_MCP_TOOLS"] = before
