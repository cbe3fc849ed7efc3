"""``repolens projects`` lists every index this machine has written, and ``prune`` forgets
(and deletes the outside data dir of) those whose project is gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def repolens(*args: str, env: dict[str, str]) -> Any:
    done = subprocess.run([sys.executable, "-m", "repolens", *args, "--json"], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout)


def test_projects_then_prune(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "REPOLENS_EMBED_PROVIDER": "none",
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    kept, gone, outside = tmp_path / "kept", tmp_path / "gone", tmp_path / "outside"
    for root in (kept, gone, outside):
        root.mkdir()
        (root / "a.py").write_text("def a():\n    return 1\n")
    repolens("index", "--no-embed", str(kept), env=env)
    repolens("index", "--no-embed", str(gone), env=env)
    external = {**env, "REPOLENS_DATA_DIR": str(tmp_path / "indexes")}
    repolens("index", "--no-embed", str(outside), env=external)
    listed = {row["root"]: row for row in repolens("projects", env=env)["projects"]}
    assert set(listed) == {str(kept), str(gone), str(outside)}
    assert all(row["bytes"] > 0 and not row["gone"] for row in listed.values())
    shutil.rmtree(gone)
    shutil.rmtree(outside)
    outside_dir = Path(listed[str(outside)]["data_dir"])
    assert outside_dir.is_dir()  # left behind in the shared data dir
    assert repolens("prune", "--dry-run", env=env)["pruned"] == [str(gone), str(outside)]
    assert outside_dir.is_dir()
    assert repolens("prune", env=env)["pruned"] == [str(gone), str(outside)]
    assert not outside_dir.exists()
    assert [row["root"] for row in repolens("projects", env=env)["projects"]] == [str(kept)]
    assert (kept / ".repolens" / "index.db").is_file()
