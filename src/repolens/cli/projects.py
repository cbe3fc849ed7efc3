"""``repolens projects`` (every index on this machine) and ``repolens prune``."""

from __future__ import annotations

import time
from dataclasses import asdict

import click

from repolens.cli.common import console, emit, json_option
from repolens.registry import KnownIndex, index_bytes, is_gone, known, prune
from repolens.store.shared import PrunedStore, prune_stores


def _row(entry: KnownIndex) -> dict[str, object]:
    return {"root": entry.root, "id": entry.project_id, "data_dir": entry.data_dir,
            "bytes": index_bytes(entry), "last_index": entry.last_index,
            "gone": is_gone(entry)}  # fmt: skip


def _ago(stamp: float) -> str:
    seconds = max(0.0, time.time() - stamp)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


@click.command("projects")
@json_option
def projects_command(as_json: bool) -> None:
    """Every index on this machine: project root, id, size, when last indexed, and whether
    the project is gone (`repolens prune` forgets those)."""
    rows = [_row(entry) for entry in known()]

    def render() -> None:
        if not rows:
            console().print("no index recorded on this machine yet")
        for row in rows:
            state = "gone" if row["gone"] else _ago(float(str(row["last_index"])))
            size = int(str(row["bytes"])) / 1e6
            console().print(f"{row['root']}  (id {row['id']}, {size:.1f} MB, {state})",
                            markup=False, highlight=False)  # fmt: skip

    emit({"projects": rows}, as_json, render)


@click.command("prune")
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
@json_option
def prune_command(dry_run: bool, as_json: bool) -> None:
    """Forget the indexes whose project folder (or index) no longer exists, deleting their
    data dir when it was kept outside the project; then drop from each repository's
    shared store what none of its worktrees' indexes uses any more (the whole store
    when none is left)."""
    gone = prune(dry_run=dry_run)
    stores = prune_stores(dry_run=dry_run)

    def render() -> None:
        verb = "would remove" if dry_run else "removed"
        for entry in gone:
            console().print(f"{verb} {entry.root} ({entry.data_dir})", markup=False)
        for store in stores:
            console().print(_store_line(store, verb), markup=False)
        if not gone and not stores:
            console().print("nothing to prune")

    emit({"pruned": [e.root for e in gone], "stores": [asdict(s) for s in stores],
          "dry_run": dry_run}, as_json, render)  # fmt: skip


def _store_line(store: PrunedStore, verb: str) -> str:
    name = store.repository or store.store
    if store.note:
        return f"shared store of {name}: {store.note}"
    if store.removed:
        return f"{verb} the shared store of {name} (no index of it is left)"
    return (
        f"shared store of {name}: {verb} {store.facts} parsed files and {store.vectors}"
        " vectors no worktree uses"
    )


COMMANDS = [projects_command, prune_command]
