"""Reading and writing a client's config file as data: JSON, JSON with comments, TOML.

Entries are merged into the parsed document, never pasted as text, so whatever else the
file holds stays. TOML goes through tomlkit, which keeps the user's comments and layout;
JSON with comments is read leniently and written back as plain JSON (its comments are in
the backup made before the first change).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import tomlkit

from repolens.integrations.clients import Format
from repolens.resolve.languages import jsonc

BACKUP_SUFFIX = ".repolens-backup"


class ConfigFileError(Exception):
    """A config file exists but cannot be read or written as its client's format."""


def load(path: Path, fmt: Format) -> Any:
    """The document in ``path`` (an empty one when the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return tomlkit.document() if fmt == "toml" else {}
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return tomlkit.document() if fmt == "toml" else {}
    parse = {"toml": tomlkit.parse, "jsonc": jsonc.loads, "json": json.loads}[fmt]
    try:
        data = parse(text)
    except Exception as exc:  # each parser raises its own error type
        raise ConfigFileError(f"{path} is not valid {fmt.upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigFileError(f"{path} does not hold an object at its top")
    return data


def dump(path: Path, fmt: Format, data: Any) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it)."""
    text = tomlkit.dumps(data) if fmt == "toml" else json.dumps(data, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".repolens-tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise ConfigFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def back_up(path: Path) -> Path | None:
    """Copy ``path`` beside itself before a change (the latest state before repolens
    touched it); ``None`` when there was no file."""
    if not path.exists():
        return None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    shutil.copy2(path, backup)
    return backup


def table(data: Any, key: tuple[str, ...], *, create: bool) -> Any:
    """The nested table at ``key`` (made when ``create``), or ``None``."""
    node = data
    for part in key:
        child = node.get(part)
        if child is None:
            if not create:
                return None
            toml = isinstance(node, tomlkit.TOMLDocument | tomlkit.items.Table)
            child = tomlkit.table() if toml else {}
            node[part] = child
        if not hasattr(child, "get"):
            raise ConfigFileError(f"'{'.'.join(key)}' is not a table")
        node = child
    return node


def plain(value: Any) -> Any:
    """A tomlkit value as plain Python (for comparing with what was written)."""
    return json.loads(json.dumps(value, default=str)) if value is not None else None
