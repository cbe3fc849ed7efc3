"""``tsconfig.json``/``jsconfig.json``: the ``baseUrl`` and ``paths`` a file is compiled with.

A config may ``extends`` others (a relative path, a package in ``node_modules``, or since
TypeScript 5 a list of them); the nearest config above a file applies. ``baseUrl`` is
relative to the config that sets it; ``paths`` targets are relative to the effective
``baseUrl`` or, without one, to the config that sets ``paths``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from repolens.resolve.languages import jsonc

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_EXTENDS = 16


@dataclass(frozen=True, slots=True)
class PathRules:
    """How bare specifiers map to project paths (all relative to the project root)."""

    base_url: str | None = None
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()  # pattern -> targets, longest first

    def candidates(self, specifier: str) -> list[str]:
        """Project paths (without extension resolution) a specifier may mean."""
        found: list[str] = []
        for pattern, targets in self.paths:
            star = _match(pattern, specifier)
            if star is not None:
                found.extend(t.replace("*", star, 1) for t in targets)
                break  # the most specific pattern wins, as in TypeScript
        if self.base_url is not None:
            found.append(_join(self.base_url, specifier))
        return found


def _match(pattern: str, specifier: str) -> str | None:
    if "*" not in pattern:
        return "" if pattern == specifier else None
    prefix, _, suffix = pattern.partition("*")
    fits = len(specifier) >= len(prefix) + len(suffix)
    if fits and specifier.startswith(prefix) and specifier.endswith(suffix):
        return specifier[len(prefix) : len(specifier) - len(suffix)]
    return None


def _join(base: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(base, rel)) if base else posixpath.normpath(rel)
    return "" if joined == "." else joined


def _inside(path: str) -> bool:
    return path != ".." and not path.startswith("../") and not path.startswith("/")


def _extends_target(root: Path, config_dir: str, value: str) -> str | None:
    """The project-relative path of an ``extends`` entry, if it is in the project."""
    if value.startswith("."):
        candidates = [_join(config_dir, value)]
    else:  # a package: node_modules/<name>[/<file>]
        candidates = [_join(d, f"node_modules/{value}") for d in _ancestors(config_dir)]
    for candidate in candidates:
        for option in (candidate, candidate + ".json", f"{candidate}/tsconfig.json"):
            if _inside(option) and (root / option).is_file():
                return option
    return None


def _ancestors(directory: str) -> list[str]:
    found = [directory]
    while directory:
        directory = posixpath.dirname(directory)
        found.append(directory)
    return found


def _chain(root: Path, config: str, seen: tuple[str, ...]) -> list[tuple[str, dict[str, object]]]:
    """(config dir, compilerOptions) from the farthest base to ``config`` itself."""
    data = jsonc.load_file(root / config)
    config_dir = posixpath.dirname(config)
    extends = data.get("extends")
    bases = extends if isinstance(extends, list) else [extends] if extends else []
    chain: list[tuple[str, dict[str, object]]] = []
    for base in bases:
        if not isinstance(base, str) or len(seen) >= MAX_EXTENDS:
            continue
        target = _extends_target(root, config_dir, base)
        if target is not None and target not in seen:
            chain.extend(_chain(root, target, (*seen, target)))
    options = data.get("compilerOptions")
    chain.append((config_dir, options if isinstance(options, dict) else {}))
    return chain


def load_rules(root: Path, config: str) -> PathRules:
    """The effective ``baseUrl``/``paths`` of a config after following ``extends``."""
    base_url: str | None = None
    paths: dict[str, object] = {}
    paths_dir = ""
    for config_dir, options in _chain(root, config, (config,)):
        if isinstance(options.get("baseUrl"), str):
            base_url = _join(config_dir, str(options["baseUrl"]))
        if isinstance(options.get("paths"), dict):
            paths, paths_dir = options["paths"], config_dir  # type: ignore[assignment]
    anchor = base_url if base_url is not None else paths_dir
    compiled = []
    for pattern, targets in paths.items():
        if isinstance(targets, list):
            joined = tuple(_join(anchor, t) for t in targets if isinstance(t, str))
            compiled.append((pattern, tuple(t for t in joined if _inside(t))))
    compiled.sort(key=lambda item: -len(item[0].partition("*")[0]))
    return PathRules(base_url if base_url is None or _inside(base_url) else None, tuple(compiled))


class ConfigFinder:
    """The nearest config above each directory, read once per config."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._by_dir: dict[str, PathRules] = {}
        self._by_config: dict[str, PathRules] = {}

    def rules(self, directory: str) -> PathRules:
        found = self._by_dir.get(directory)
        if found is None:
            found = self._by_dir[directory] = self._find(directory)
        return found

    def _find(self, directory: str) -> PathRules:
        for name in CONFIG_NAMES:
            config = f"{directory}/{name}" if directory else name
            if (self._root / config).is_file():
                rules = self._by_config.get(config)
                if rules is None:
                    rules = self._by_config[config] = load_rules(self._root, config)
                return rules
        if not directory:
            return PathRules()
        return self.rules(posixpath.dirname(directory))
