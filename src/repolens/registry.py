"""The indexes on this machine: every project indexed here, where its data lives, and when
it was last indexed, so ``repolens projects`` can list them and ``repolens prune`` can
drop those whose project is gone.

One small JSON file in the user's state directory, rewritten atomically by the writer of
an index after each run; a missing or damaged file is an empty registry, never an error.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from repolens.config import user_state_dir
from repolens.project import DB_NAME, Project


@dataclass(frozen=True, slots=True)
class KnownIndex:
    root: str
    project_id: str
    data_dir: str
    last_index: float


def registry_path() -> Path:
    return user_state_dir() / "projects.json"


def known() -> list[KnownIndex]:
    try:
        data = json.loads(registry_path().read_text(encoding="utf-8"))
        return [KnownIndex(**entry) for entry in data]
    except (OSError, ValueError, TypeError):
        return []


def _save(entries: list[KnownIndex]) -> None:
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps([asdict(e) for e in entries], indent=1), encoding="utf-8")
    temporary.replace(path)


def record(project: Project) -> None:
    """Note that ``project``'s index was just written (best effort: a read-only home must
    not fail an index run)."""
    entry = KnownIndex(str(project.root), project.project_id, str(project.data_dir), time.time())
    others = [e for e in known() if e.data_dir != entry.data_dir]
    try:
        _save(sorted([*others, entry], key=lambda e: e.root))
    except OSError:
        return


def folder_bytes(folder: Path) -> int:
    """Bytes under ``folder`` (an index, its WAL, its vector matrices)."""
    try:
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    except OSError:
        return 0


def index_bytes(entry: KnownIndex) -> int:
    return folder_bytes(Path(entry.data_dir))


def is_gone(entry: KnownIndex) -> bool:
    """The project folder, or its index, no longer exists."""
    return not Path(entry.root).is_dir() or not (Path(entry.data_dir) / DB_NAME).is_file()


def prune(*, dry_run: bool = False) -> list[KnownIndex]:
    """Forget the indexes whose project is gone, deleting a data dir left behind outside
    the project (one that holds an index file, and nothing else is deleted)."""
    entries = known()
    gone = [e for e in entries if is_gone(e)]
    if dry_run or not gone:
        return gone
    for entry in gone:
        folder = Path(entry.data_dir)
        if not Path(entry.root).is_dir() and (folder / DB_NAME).is_file():
            shutil.rmtree(folder, ignore_errors=True)
    _save([e for e in entries if e not in gone])
    return gone
