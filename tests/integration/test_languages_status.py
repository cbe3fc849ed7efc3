"""A project in languages without a grammar wheel: its files are outlined line by line,
``status`` says so by language (not as parse problems), and special files are text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "graph"


def repolens(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "repolens", *args],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip


def test_line_level_languages_and_special_files_in_status(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "r", root)
    (root / "expected.toml").unlink()
    (root / "Procfile").write_text("web: Rscript scripts/report.R\n")
    (root / ".env.example").write_text("SALES_DB=postgres://localhost/sales\n")
    (root / ".gitignore").write_text("*.csv\n")
    (root / ".dockerignore").write_text(".git\n")
    assert repolens("index", "--no-embed", str(root)).returncode == 0
    done = repolens("status", "--json", "--project", str(root))
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    files = status["files"]
    assert files["line_level"] == {"r": 3}
    assert not [p for p in files["problems"] if p["file"].endswith(".R")]
    assert status["languages"]["text"] == 4  # Procfile, .env.example, .gitignore, .dockerignore
    human = repolens("status", "--project", str(root)).stdout
    assert "Line-level only (definitions and imports, no call graph): r 3" in human
    found = repolens("symbols", "summarise_sales", "--json", "--project", str(root))
    assert "R/utils.R" in found.stdout
