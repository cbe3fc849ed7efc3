"""Extra extensions per run (``--extra-ext``, the tools' ``extraExtensions``): validated
like the setting, indexed, and remembered so later updates do not drop those files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}


def repolens(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "repolens", *args], env=ENV,
                          capture_output=True, text=True, check=check)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def render():\n    return 1\n")
    (tmp_path / "page.tpl").write_text("<h1>{{ invoice_total_banner }}</h1>\n")
    (tmp_path / "view.blade").write_text("<?php\nfunction blade_helper() { return 1; }\n")
    return tmp_path


def indexed_paths(project: Path) -> set[str]:
    out = json.loads(repolens("search", "invoice_total_banner", "--json", "--project",
                              str(project)).stdout)  # fmt: skip
    return {hit["file"] for hit in out["results"]}


def test_cli_extra_ext_indexes_and_is_remembered(project: Path) -> None:
    repolens("index", "--no-embed", str(project))
    assert "page.tpl" not in indexed_paths(project)  # not a known extension
    repolens("index", "--no-embed", "--extra-ext", ".tpl,.blade:php", str(project))
    assert "page.tpl" in indexed_paths(project)
    symbols = repolens("symbols", "blade_helper", "--json", "--project", str(project)).stdout
    assert "view.blade" in symbols  # parsed as PHP, so its function is a symbol
    (project / "page.tpl").write_text("<h1>{{ invoice_total_banner }} again</h1>\n")
    report = json.loads(repolens("update", "--no-embed", "--json", str(project)).stdout)
    assert report["index"]["removed"] == 0 and report["index"]["parsed"] == 1
    assert "page.tpl" in indexed_paths(project)


def test_cli_extra_ext_is_validated_like_the_setting(project: Path) -> None:
    done = repolens("index", "--no-embed", "--extra-ext", "tpl", str(project), check=False)
    assert done.returncode == 1
    assert "extra_extensions" in done.stderr and "--extra-ext" in done.stderr
