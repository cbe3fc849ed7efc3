"""What a search chunk is said to hold, from the definitions the chunker listed."""

from __future__ import annotations

from repolens.query.chunk_contents import Shown, contents


def test_a_chunk_inside_a_class_names_the_class_and_its_methods() -> None:
    shown = [Shown("Foo", "class", 10), Shown("Foo.a", "method", 40),
             Shown("Foo.b", "method", 44), Shown("Foo.b.inner", "function", 45)]  # fmt: skip
    held = contents(shown, "Foo", 40, 50)
    assert held.label == "2 methods of Foo: a, b"
    assert [s.name for s in held.outline] == ["Foo.a", "Foo.b"]


def test_a_chunk_that_starts_with_its_class_is_that_class() -> None:
    shown = [Shown("Foo", "class", 10), Shown("Foo.a", "method", 12)]
    assert contents(shown, "Foo", 10, 20).label == "Foo"


def test_mixed_kinds_and_unknown_kinds_are_counted_honestly() -> None:
    mixed = [Shown("b", "function", 5), Shown("LIMIT", "constant", 1), Shown("c", "function", 9)]
    assert contents(mixed, "", 1, 12).label == "1 constant and 2 functions: LIMIT, b, c"
    remote = [Shown("x"), Shown("y")]  # a team index's chunk this machine has not indexed
    assert contents(remote, "", 1, 9).label == "2 definitions: x, y"


def test_past_six_names_the_rest_are_counted() -> None:
    many = [Shown(f"f{n}", "function", n) for n in range(1, 10)]
    assert contents(many, "", 1, 20).label.endswith("f5, f6, … 3 more")
    assert contents([], "", 1, 3).label == ""
