"""Workspace packages of a JS/TS monorepo: package name -> directory and entry points.

Members come from the root's ``workspaces`` (``package.json``), ``pnpm-workspace.yaml`` or
``lerna.json``, plus any ``package.json`` above a source file. An import of a member's name
reaches its ``exports``/``main``/``module``/``source`` entry; entries that point at build
output (``dist/``, ``lib/``...) are mapped back to ``src/``, since only sources are indexed.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from repolens.readfile import read_text
from repolens.resolve.languages import jsonc

CONDITIONS = ("source", "import", "module", "default", "require", "node", "browser", "types")
BUILD_DIRS = ("dist/", "lib/", "build/", "out/", "esm/", "cjs/")
ENTRY_FIELDS = ("source", "module", "main", "types", "typings")
YAML_ITEM = re.compile(r"^\s*-\s*['\"]?([^'\"#]+?)['\"]?\s*(#.*)?$")


@dataclass(frozen=True, slots=True)
class Package:
    name: str
    dir: str  # relative to the project root; '' for the root package
    manifest: dict[str, object]


def _join(*parts: str) -> str:
    joined = posixpath.normpath(posixpath.join(*[p for p in parts if p]))
    return "" if joined == "." else joined


def _workspace_globs(root: Path) -> list[str]:
    globs: list[str] = []
    manifest = jsonc.load_file(root / "package.json")
    declared = manifest.get("workspaces")
    if isinstance(declared, dict):
        declared = declared.get("packages")
    if isinstance(declared, list):
        globs.extend(g for g in declared if isinstance(g, str))
    lerna = jsonc.load_file(root / "lerna.json").get("packages")
    if isinstance(lerna, list):
        globs.extend(g for g in lerna if isinstance(g, str))
    globs.extend(_pnpm_globs(root / "pnpm-workspace.yaml"))
    # negations, and patterns reaching outside the project, name nothing we index
    return [g for g in globs if g and not g.startswith(("!", "/")) and ".." not in g]


def _pnpm_globs(path: Path) -> list[str]:
    """The ``packages:`` list of ``pnpm-workspace.yaml`` (a tiny subset of YAML)."""
    try:
        lines = read_text(path).splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    globs, inside = [], False
    for line in lines:
        if line.startswith("packages:"):
            inside = True
        elif inside and line.strip() and not line.startswith((" ", "-", "\t")):
            break
        elif inside:
            m = YAML_ITEM.match(line)
            if m:
                globs.append(m.group(1).strip())
    return globs


def find_packages(root: Path, source_dirs: Iterable[str]) -> dict[str, Package]:
    """Packages by name: declared workspace members and manifests above source files."""
    manifests: set[str] = set()
    for pattern in _workspace_globs(root):
        for match in root.glob(pattern.rstrip("/")):
            if (match / "package.json").is_file():
                manifests.add(match.relative_to(root).as_posix())
    seen: set[str] = set()
    for directory in source_dirs:
        while directory not in seen:
            seen.add(directory)
            if (root / directory / "package.json").is_file():
                manifests.add(directory)
            if not directory:
                break
            directory = posixpath.dirname(directory)
    packages: dict[str, Package] = {}
    for directory in sorted(manifests, key=lambda d: (d.count("/"), d)):
        if "node_modules" in directory.split("/"):
            continue
        manifest = jsonc.load_file(root / directory / "package.json")
        name = manifest.get("name")
        if isinstance(name, str) and name not in packages:
            packages[name] = Package(name, "" if directory == "." else directory, manifest)
    return packages


def split_specifier(specifier: str) -> tuple[str, str]:
    """``@scope/pkg/a/b`` -> (``@scope/pkg``, ``a/b``); ``pkg`` -> (``pkg``, '')."""
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    return "/".join(parts[:count]), "/".join(parts[count:])


def _condition(value: object) -> str | None:
    """The file a conditional ``exports`` value picks, preferring sources."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in value:
            found = _condition(item)
            if found:
                return found
    if isinstance(value, dict):
        for key in CONDITIONS:
            if key in value:
                found = _condition(value[key])
                if found:
                    return found
    return None


def _exports_entry(exports: object, subpath: str) -> str | None:
    key = f"./{subpath}" if subpath else "."
    if not isinstance(exports, dict) or not any(str(k).startswith(".") for k in exports):
        return _condition(exports) if not subpath else None
    if key in exports:
        return _condition(exports[key])
    for pattern, value in exports.items():
        prefix, star, suffix = str(pattern).partition("*")
        if star and key.startswith(prefix) and key.endswith(suffix):
            target = _condition(value)
            middle = key[len(prefix) : len(key) - len(suffix)]
            return target.replace("*", middle) if target else None
    return None


def entry_candidates(package: Package, subpath: str) -> list[str]:
    """Project paths (extension not yet resolved) that ``<name>/<subpath>`` may mean."""
    manifest = package.manifest
    entries: list[str] = []
    exported = _exports_entry(manifest.get("exports"), subpath)
    if exported:
        entries.append(exported)
    if subpath:
        entries += [subpath, f"src/{subpath}"]
    else:
        entries += [v for f in ENTRY_FIELDS if isinstance(v := manifest.get(f), str)]
        entries += ["src/index", "index"]
    found: list[str] = []
    for entry in entries:
        entry = entry.removeprefix("./")
        found.append(_join(package.dir, entry))
        for build in BUILD_DIRS:
            if entry.startswith(build):
                found.append(_join(package.dir, "src/" + entry[len(build) :]))
    return found
