"""``repolens install`` / ``uninstall``: the MCP server entry in each client's config file
and a short instructions block in the file the agent reads, undone exactly.

What was written is recorded in a manifest in the user's state directory (the entry, the
file, whether repolens created it), so ``uninstall`` removes just that: an entry the user
changed since is kept and reported, other servers and settings are never touched, and a
file repolens created is deleted once nothing else is in it. Before any change a backup of
the file is kept beside it. Installing twice changes nothing the second time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from repolens.config import user_state_dir
from repolens.integrations import configfile
from repolens.integrations.clients import CLIENTS, Client
from repolens.integrations.instructions import add_block, has_block, remove_block

SERVER_NAME = "repolens"
Scope = Literal["project", "user"]
Action = Literal["add", "update", "unchanged", "remove", "kept", "absent", "skip"]


@dataclass(frozen=True, slots=True)
class Change:
    """What ``install``/``uninstall`` did (or, in a dry run, would do) to one file."""

    client: str
    path: Path
    what: Literal["server", "instructions"]
    action: Action
    note: str = ""


def manifest_path(home: Path) -> Path:
    """The manifest beside the registry of indexes; ``home`` stands in for the user's home
    when ``$XDG_STATE_HOME`` is not set (a test's temporary home, an install for another)."""
    state = os.environ.get("XDG_STATE_HOME")
    return (
        user_state_dir() if state else home / ".local" / "state" / "repolens"
    ) / "installed.json"


def _load_manifest(home: Path) -> list[dict[str, Any]]:
    path = manifest_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return []
    return [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []


def _save_manifest(home: Path, records: list[dict[str, Any]]) -> None:
    path = manifest_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")


def resolve_clients(names: Iterable[str]) -> list[Client]:
    """The clients named (every one when none is), or ``ValueError`` naming the choices."""
    wanted = list(names) or list(CLIENTS)
    unknown = [name for name in wanted if name not in CLIENTS]
    if unknown:
        raise ValueError(f"unknown agent(s) {', '.join(unknown)}; choose from {', '.join(CLIENTS)}")
    return [CLIENTS[name] for name in wanted]


def install(
    clients: list[Client], scope: Scope, root: Path, home: Path, command: list[str],
    *, dry_run: bool = False,
) -> list[Change]:  # fmt: skip
    records = _load_manifest(home)
    changes: list[Change] = []
    for client in clients:
        path = client.config_path(scope, root, home)
        if path is None:
            changes.append(Change(client.name, root, "server", "skip",
                                  f"{client.title} has no {scope} config; use --user"))  # fmt: skip
            continue
        entry = client.entry(command, root, scope)
        notes = root / client.instructions if scope == "project" and client.instructions else None
        made = {p: _created_dir(p) for p in (path, notes) if p}  # before anything is written
        changes.append(_install_entry(client, path, entry, records, scope, made[path], dry_run))
        if notes is not None:
            changes.append(_install_instructions(client, notes, records, made[notes], dry_run))
    if not dry_run:
        _save_manifest(home, records)
    return changes


def _install_entry(
    client: Client, path: Path, entry: dict[str, Any], records: list[dict[str, Any]],
    scope: Scope, made: str | None, dry_run: bool,
) -> Change:  # fmt: skip
    existed = path.exists()
    data = configfile.load(path, client.format)
    servers = configfile.table(data, client.key, create=True)
    current = configfile.plain(servers.get(SERVER_NAME))
    if current == entry:
        return Change(client.name, path, "server", "unchanged")
    action: Action = "update" if current is not None else "add"
    if dry_run:
        return Change(client.name, path, "server", action)
    configfile.back_up(path)
    servers[SERVER_NAME] = entry
    configfile.dump(path, client.format, data)
    previous = next((r for r in records if r["kind"] == "server" and r["path"] == str(path)),
                    None)  # fmt: skip
    created = previous["created_file"] if previous else not existed
    made = previous.get("created_dir") if previous else made
    records[:] = [r for r in records if not (r["kind"] == "server" and r["path"] == str(path))]
    records.append({"kind": "server", "client": client.name, "scope": scope, "path": str(path),
                    "key": list(client.key), "entry": entry, "created_file": created,
                    "created_dir": made})  # fmt: skip
    return Change(client.name, path, "server", action)


def _install_instructions(
    client: Client, path: Path, records: list[dict[str, Any]], made: str | None, dry_run: bool
) -> Change:
    existed = path.exists()
    if existed and has_block(path.read_text(encoding="utf-8")):
        action: Action = "unchanged"
    else:
        action = "add"
        if not dry_run:
            text = path.read_text(encoding="utf-8") if existed else ""
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(add_block(text, client), encoding="utf-8")
    mine = [r for r in records if r["kind"] == "instructions" and r["path"] == str(path)]
    if not dry_run and not any(r["client"] == client.name for r in mine):
        created = mine[0]["created_file"] if mine else not existed
        made = mine[0].get("created_dir") if mine else made
        records.append({"kind": "instructions", "client": client.name, "path": str(path),
                        "created_file": created, "created_dir": made})  # fmt: skip
    return Change(client.name, path, "instructions", action)


def uninstall(
    clients: list[Client], scope: Scope, root: Path, home: Path, *, dry_run: bool = False
) -> list[Change]:
    records = _load_manifest(home)
    names = {client.name for client in clients}
    changes: list[Change] = []
    for record in list(records):
        if record["client"] not in names:
            continue
        if record["kind"] == "server" and record["scope"] == scope:
            changes.append(_remove_entry(record, dry_run))
        elif record["kind"] == "instructions" and scope == "project" \
                and Path(record["path"]).is_relative_to(root):  # fmt: skip
            others = [r for r in records if r["kind"] == "instructions"
                      and r["path"] == record["path"] and r["client"] not in names]  # fmt: skip
            changes.append(_remove_instructions(record, bool(others), dry_run))
        else:
            continue
        if not dry_run:
            records.remove(record)
    if not dry_run:
        _save_manifest(home, records)
    return changes


def _remove_entry(record: dict[str, Any], dry_run: bool) -> Change:
    client = CLIENTS[record["client"]]
    path = Path(record["path"])
    if not path.exists():
        return Change(client.name, path, "server", "absent")
    data = configfile.load(path, client.format)
    servers = configfile.table(data, tuple(record["key"]), create=False)
    current = configfile.plain(servers.get(SERVER_NAME)) if servers is not None else None
    if current is None:
        return Change(client.name, path, "server", "absent")
    if current != record["entry"]:
        return Change(client.name, path, "server", "kept", "changed since install: left as is")
    if dry_run:
        return Change(client.name, path, "server", "remove")
    del servers[SERVER_NAME]
    if record["created_file"] and _only_empty_tables(data):
        _delete_created(path, record)
    else:
        configfile.back_up(path)
        configfile.dump(path, client.format, data)
    return Change(client.name, path, "server", "remove")


def _created_dir(path: Path) -> str | None:
    """The topmost folder above ``path`` that does not exist yet (made by writing it)."""
    missing = None
    for parent in path.parents:
        if parent.exists():
            break
        missing = parent
    return str(missing) if missing else None


def _delete_created(path: Path, record: dict[str, Any]) -> None:
    """Delete a file repolens created, with the folders it created for it once empty."""
    path.unlink()
    top = record.get("created_dir")
    if not top:
        return
    folder = path.parent
    while folder.is_relative_to(top) and folder.exists() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _only_empty_tables(data: Any) -> bool:
    return all(hasattr(v, "items") and _only_empty_tables(v) for v in data.values())


def _remove_instructions(record: dict[str, Any], shared: bool, dry_run: bool) -> Change:
    path = Path(record["path"])
    if shared:
        return Change(record["client"], path, "instructions", "kept", "still used by another agent")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Change(record["client"], path, "instructions", "absent")
    if not has_block(text):
        return Change(record["client"], path, "instructions", "absent")
    if not dry_run:
        rest = remove_block(text)
        if record["created_file"] and not rest.strip():
            _delete_created(path, record)
        else:
            path.write_text(rest, encoding="utf-8")
    return Change(record["client"], path, "instructions", "remove")
