"""Keeping every path an agent, a browser or a settings file passes inside the project root.

An MCP server or the explorer may be reached over HTTP, an agent may be steered by text it
read in the code it is exploring, and a cloned repository's ``.repolens.toml`` names the
artifact files to read; so a path argument is untrusted input. ``confine`` is the one gate
(for the MCP tools, the explorer, ``repolens diagram`` and artifact specs alike): it turns
what was typed into a root-relative POSIX path (the form the index stores), and refuses
anything that climbs out with ``..``, names an absolute path elsewhere, or goes through a
symlink whose target lies outside the root.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

_GLOB_CHARS = re.compile(r"[*?\[]")
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
MAX_NAME_BYTES = 255  # NAME_MAX on every common file system


class PathError(ValueError):
    """A path argument points outside the project root or is not a usable path."""


def confine(root: Path, user_path: str) -> str:
    """``user_path`` as a path relative to ``root`` (``""`` for the root itself).

    Relative paths are taken from the root; absolute ones must lie under it. ``..`` is
    allowed only while it stays inside. Symlinks are followed to check where they lead,
    but the path returned is the one the agent named (as the index records it).
    """
    text = user_path.strip().replace("\\", "/")
    if "\x00" in text:
        raise PathError("path contains a NUL byte")
    _check_length(text)
    root = Path(root)
    real_root = _resolve(root)
    if text.startswith("/"):
        relative = _relative_to_root(Path(os.path.normpath(text)), root, real_root, user_path)
    else:
        normal = posixpath.normpath(text) if text else "."
        if normal == ".." or normal.startswith("../"):
            raise PathError(f"'{user_path}' climbs out of the project root {root}")
        relative = normal
    if not _resolve(real_root / relative).is_relative_to(real_root):
        raise PathError(f"'{user_path}' leads outside the project root {root} (through a symlink)")
    return "" if relative == "." else relative


def confine_glob(root: Path, pattern: str) -> str:
    """A path glob (``src/**/*.py``) confined like a path: its literal leading directory
    must stay inside ``root``. The pattern comes back relative to the root, with a
    leading ``/`` when it names the root itself (``<root>/*.py`` is ``/*.py``: files at the
    top only, where a bare ``*.py`` matches at any depth, as in ``.gitignore``)."""
    text = pattern.strip().replace("\\", "/")
    match = _GLOB_CHARS.search(text)
    if match is None:
        return confine(root, text)
    head, rest = text[: match.start()], text[match.start() :]
    directory, _, partial = head.rpartition("/")
    if directory or head.startswith("/"):
        base = confine(root, directory or "/")
        prefix = f"{base}/" if base else "/"  # "/" keeps a glob of the root anchored there
    else:
        prefix = ""
    if ".." in rest.split("/"):
        raise PathError(f"'{pattern}': '..' is not allowed inside a glob")
    return prefix + partial + rest


def _check_length(text: str) -> None:
    """No file system takes a longer path or name; refused here, such a path would fail
    with ENAMETOOLONG wherever it was next used."""
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) > MAX_PATH_BYTES:
        raise PathError(f"path is too long ({len(encoded)} bytes; at most {MAX_PATH_BYTES})")
    if any(len(part) > MAX_NAME_BYTES for part in encoded.split(b"/")):
        raise PathError(f"a name in the path is longer than {MAX_NAME_BYTES} bytes")


def _relative_to_root(path: Path, root: Path, real_root: Path, shown: str) -> str:
    for base in (root, real_root):
        if path == base:
            return "."
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    raise PathError(f"'{shown}' is outside the project root {root}")


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loops raise RuntimeError before 3.13
        raise PathError(f"cannot resolve '{path}': {exc}") from None


def confine_scope(root: Path, scope: str) -> str:
    """A diagram or view scope: written as a path (``/abs``, ``./x``, ``a/b``, ``..``) it
    is confined and made root-relative (``"."`` for the root); a symbol, including
    ``path/file.py:Name``, passes through for the symbol lookup (whose path part is
    matched against indexed paths only)."""
    text = scope.strip()
    if text.startswith(("/", "./", "..")) or ("/" in text and ":" not in text):
        return confine(root, text) or "."
    return text
