"""Value references to a function's own parameters, and in Python to the names it
assigns, are locals: never stored, never an edge, even when a project symbol has the
name."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import IndexTree
from conftest import indexed_edges as edges
from repolens.parse import parse_source

SOURCES = {
    "python": (
        "m.py",
        "def f(a, b: int, c=d, e: X = g, *args, h, **kw):\n"
        "    use(a, b, c, d, e, g, args, h, kw, outer)\n",
    ),
    "javascript": (
        "m.js",
        "function f(a, c = d, ...args) { use(a, c, d, args, outer); }\n"
        "const k = x => use(x, outer);\n",
    ),
    "typescript": (
        "m.ts",
        "class K {\n  constructor(private a: A, c?: C, ...args: R[]) {\n"
        "    use(a, c, args, outer);\n  }\n}\n",
    ),
    "go": (
        "m.go",
        "package m\nfunc (a *S) f(c, args int) { use(a, c, args, outer) }\n",
    ),
    "rust": ("m.rs", "fn f(a: u8, mut c: X) { use_(a, c, outer); }\n"),
    "java": (
        "M.java",
        "class M { void f(int a, final B c, D... args) { use(a, c, args, outer); } }\n",
    ),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_parameters_passed_as_values_make_no_reference(language: str) -> None:
    path, text = SOURCES[language]
    parsed = parse_source(path, language, text.encode())
    values = {ref.name for ref in parsed.references if ref.kind == "references"}
    assert "outer" in values  # not a parameter: kept
    assert not values & {"a", "c", "x"}, values
    if language == "python":
        assert {"d", "g"} <= values  # defaults and annotations are not parameters
        assert not values & {"b", "e", "h", "args", "kw"}
    if language == "javascript":
        assert "d" in values and "args" not in values


def test_a_parameter_named_like_a_function_is_the_parameter(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``run(handler)`` with ``handler`` a parameter is the parameter, not the module's
    ``handler`` function; inside a closure too. A real callback and a nested definition
    that rebinds the name are still references."""
    found = edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/jobs.py": "def handler(): ...\n\ndef callback(): ...\n\n"
            "def run(fn): fn()\n\n"
            "def schedule(handler):\n    run(handler)\n"
            "    def later():\n        run(handler)\n    return later\n\n"
            "def start():\n    run(callback)\n\n"
            "def rebind(callback):\n    def callback(): ...\n    run(callback)\n",
        },
        index_tree,
        kinds=("references",),
    )
    assert ("start", "references", "callback", "app/jobs.py") in found
    assert ("rebind", "references", "rebind.callback", "app/jobs.py") in found
    assert not {edge for edge in found if edge[2] == "handler"}, found


def test_python_names_a_function_assigns_are_its_locals() -> None:
    """``=``, tuple targets, ``for``, ``with``/``except ... as``, ``+=`` and ``:=`` make
    a name local to the whole function and its closures, even where the use comes
    first; ``global`` keeps it a reference, and so does a name no one assigns here."""
    text = (
        "def handler(): ...\n"
        "def f():\n"
        "    use(early)\n"
        "    early = 1\n"
        "    x, (y, z) = 1, (2, 3)\n"
        "    for i in r: pass\n"
        "    with o() as fh: pass\n"
        "    try: pass\n"
        "    except E as err: pass\n"
        "    n += 1\n"
        "    (w := 3)\n"
        "    global g\n"
        "    g = 2\n"
        "    use(x, y, z, i, fh, err, n, w, g, handler, other)\n"
        "    def inner():\n"
        "        use(x, late)\n"
        "    late = 1\n"
        "class C:\n"
        "    attr = 1\n"
        "    def m(self):\n"
        "        use(attr)\n"
    )
    parsed = parse_source("m.py", "python", text.encode())
    values = {ref.name for ref in parsed.references if ref.kind == "references"}
    assert values == {"g", "handler", "other", "attr"}, values


def test_a_local_named_like_an_imported_module_is_the_local(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """attrs' tests: ``attrs, base = _transform_attrs(...)`` then ``len(attrs)`` is the
    local list, not the ``attrs`` package imported at the top."""
    found = edges(
        tmp_path,
        {
            "attrs/__init__.py": "def define(): ...\n",
            "tests/test_make.py": "import attrs\n\n"
            "def test_transform():\n    attrs, base = split()\n    check(attrs)\n\n"
            "def test_module():\n    check(attrs)\n",
        },
        index_tree,
        kinds=("references",),
    )
    targets = {(source, target) for source, _, target, _ in found}
    assert ("test_module", "attrs/__init__.py") in targets
    assert ("test_transform", "attrs/__init__.py") not in targets


def test_a_field_named_like_a_parameter_leaves_it_a_parameter(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """A class field ``header`` elsewhere in the file (rich's ``Table``, pip's
    ``_PylockRequest.filename``) does not make a ``header`` parameter or loop variable a
    reference, to be taken for a nested ``def header`` of another method; a function
    assigned in a callback (``const open = () => ...``) is still referenced."""
    found = edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/table.py": "class Column:\n    header: str = ''\n\n"
            "def add(column): ...\n\n"
            "class Table:\n"
            "    def __init__(self, headers):\n"
            "        for header in headers:\n            add(header)\n\n"
            "    def render(self):\n        def header(text): ...\n        return header\n",
            "src/buffer.ts": "export function buffer(on: (f: () => void) => void) {\n"
            "  return on(() => {\n    const open = () => on(open);\n    open();\n  });\n}\n",
        },
        index_tree,
        kinds=("references",),
    )
    assert not {edge for edge in found if edge[0] == "Table.__init__"}, found
    assert ("buffer.open", "references", "buffer.open", "src/buffer.ts") in found, found
