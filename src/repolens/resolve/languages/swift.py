"""Swift: a module is a SwiftPM target; all its files see each other's declarations.

Targets come from every ``Package.swift`` in the project (``.target``,
``.executableTarget``, ``.testTarget``, ``.macro``): a target's files are those under its
``path:``, or ``Sources/<name>`` (``Tests/<name>`` for test targets) by convention. A
file in no target (an Xcode project, a script) belongs to the module of its directory.
``import Name`` makes a project module's declarations visible; other names are the SDK's
or a dependency's (external).
"""

from __future__ import annotations

import re
from pathlib import Path

from repolens.readfile import read_text
from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module
from repolens.resolve.filemods import join
from repolens.resolve.project import FileRow, ImportRow, Project

_TARGET = re.compile(r"\.(target|executableTarget|testTarget|macro|plugin)\s*\(")
_NAME = re.compile(r'\bname\s*:\s*"([^"]+)"')
_PATH = re.compile(r'\bpath\s*:\s*"([^"]+)"')


def _balanced(text: str, start: int) -> str:
    """The text from ``start`` (just after an opening parenthesis) to its closing one."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return text[start:]


def package_targets(root: Path, base: str) -> list[tuple[str, str]]:
    """(target name, directory relative to the project root) of ``base/Package.swift``."""
    try:
        text = read_text(root / base / "Package.swift")
    except (OSError, UnicodeDecodeError):
        return []
    found: list[tuple[str, str]] = []
    for match in _TARGET.finditer(text):
        args = _balanced(text, match.end())
        name = _NAME.search(args)
        if name is None:
            continue
        path = _PATH.search(args)
        default = ("Tests/" if match.group(1) == "testTarget" else "Sources/") + name.group(1)
        found.append((name.group(1), join(base, path.group(1) if path else default)))
    return found


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    dirs = {"/".join(f.dir.split("/")[:i]) for f in files for i in range(f.dir.count("/") + 2)}
    targets: list[tuple[str, str]] = []
    for base in sorted(d for d in dirs if (root / d / "Package.swift").is_file()):
        targets.extend(package_targets(root, base))
    targets.sort(key=lambda t: -len(t[1]))
    modules: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    for f in files:
        name = next((n for n, d in targets if f.path.startswith(d + "/")), None)
        key = name if name is not None else "dir:" + f.dir
        module = modules.setdefault(key, Module(key))
        module.files.append(f.id)
        of_file[f.id] = module

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        module = modules.get(imp.module)
        return ImportResult(module) if module is not None else ImportResult(external=True)

    return Layout(modules, of_file, resolve_import, _local_name)


def _local_name(imp: ImportRow) -> str | None:
    return None  # `import Mod` makes its declarations visible, binding no name


BUILTINS = frozenset(
    {
        "print", "debugPrint", "fatalError", "precondition", "preconditionFailure", "assert",
        "assertionFailure", "min", "max", "abs", "zip", "stride", "type", "String", "Int",
        "Double", "Bool", "Array", "Dictionary", "Set", "Optional", "DispatchQueue",
        "NotificationCenter", "UserDefaults", "URL", "Data", "Date", "JSONEncoder",
        "JSONDecoder", "Task", "XCTAssert", "XCTAssertEqual", "XCTAssertTrue",
        "XCTAssertFalse", "XCTAssertNil", "XCTAssertNotNil", "XCTFail", "super",
        "XCTestCase", "CustomStringConvertible", "Codable", "Encodable", "Decodable",
        "Equatable", "Hashable", "Comparable", "Identifiable", "Sendable", "Error",
        "ObservableObject", "View", "NSObject", "Package",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {"Int", "Double", "Float", "Bool", "String", "Character", "Void", "Any", "AnyObject",
     "Array", "Dictionary", "Set", "Optional", "Data", "Date", "URL", "Error", "Result"}
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "append", "insert", "remove", "removeAll", "contains", "map", "compactMap",
        "flatMap", "filter", "reduce", "forEach", "first", "last", "sorted", "sort",
        "joined", "split", "count", "isEmpty", "index", "firstIndex", "prefix", "suffix",
        "dropFirst", "dropLast", "hasPrefix", "hasSuffix", "lowercased", "uppercased",
        "description", "async", "sync", "encode", "decode", "keys", "values", "updateValue",
        "removeValue", "enumerated", "reversed", "max", "min", "allSatisfy",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="swift",
    languages=frozenset({"swift"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"self"}),
    class_self_names=frozenset({"Self"}),
    implicit_members=True,
    class_scope_visible=True,
    package_scope=True,
)
