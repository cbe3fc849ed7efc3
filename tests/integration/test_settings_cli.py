"""Settings a user of the peers expects, through real ``repolens`` processes: the default
search limit, and the log level and log file (JSON lines, where the user says)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}


def repolens(root: Path, *args: str, env: dict[str, str] = ENV) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "repolens", *args], cwd=root, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip


def test_search_limit_is_the_default_and_limit_overrides_it(tmp_path: Path) -> None:
    for n in range(6):
        (tmp_path / f"mod{n}.py").write_text(f"def checkout_step_{n}():\n    return 'checkout'\n")
    (tmp_path / ".repolens.toml").write_text("search_limit = 2\n")
    repolens(tmp_path, "index", "--no-embed")
    found = json.loads(repolens(tmp_path, "search", "checkout", "--json").stdout)["results"]
    assert len(found) == 2
    more = json.loads(repolens(tmp_path, "search", "checkout", "--limit", "4", "--json").stdout)
    assert len(more["results"]) == 4


def test_log_file_gets_json_lines_and_stderr_follows_the_level(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("def a():\n    return 1\n")
    log = tmp_path / "logs" / "repolens.jsonl"
    env = {**ENV, "REPOLENS_LOG_LEVEL": "info", "REPOLENS_LOG_FILE": str(log)}
    done = repolens(project, "index", "--no-embed", env=env)
    assert "repolens INFO repolens.index: indexed" in done.stderr
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries and entries[-1]["level"] == "info" and entries[-1]["logger"] == "repolens.index"
    assert entries[-1]["message"].startswith(f"indexed {project}: 1 files, 1 parsed")
    assert not any(p.suffix == ".jsonl" for p in project.rglob("*"))  # nothing in the project
    quiet = repolens(project, "index", "--no-embed", env={**env, "REPOLENS_LOG_LEVEL": "warning"})
    assert "INFO" not in quiet.stderr


def test_chunk_max_lines_caps_chunks_and_a_change_rechunks(tmp_path: Path) -> None:
    body = "".join(f"    total += {n}\n" for n in range(45))
    (tmp_path / "long.py").write_text(f"def long_sum():\n    total = 0\n{body}    return total\n")

    def spans() -> list[tuple[int, int]]:
        with sqlite3.connect(tmp_path / ".repolens" / "index.db") as db:
            return sorted(db.execute("SELECT start_line, end_line FROM chunks"))

    repolens(tmp_path, "index", "--no-embed")
    assert spans() == [(1, 48)]  # one function, one chunk under the default cap of 60
    (tmp_path / ".repolens.toml").write_text("chunk_max_lines = 20\n")
    report = json.loads(repolens(tmp_path, "update", "--no-embed", "--json").stdout)
    # long.py is unchanged on disk but re-chunked for the new cap (and .repolens.toml is new)
    assert report["index"]["parsed"] == 2
    cut = spans()
    assert len(cut) >= 3 and all(end - start + 1 <= 20 for start, end in cut)
    assert cut[0][0] == 1 and cut[-1][1] == 48  # still every line covered
    (tmp_path / ".repolens.toml").write_text("chunk_max_lines = 5\n")
    bad = subprocess.run([sys.executable, "-m", "repolens", "update", "--no-embed"],
                         cwd=tmp_path, env=ENV, capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 1 and "chunk_max_lines" in bad.stderr and "10 to 60" in bad.stderr
