"""Value references to a function's own parameters are locals: never stored, never an
edge, even when a project symbol has the parameter's name."""

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
