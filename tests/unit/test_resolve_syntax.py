"""Receiver expressions and type annotations, read as text."""

from __future__ import annotations

import pytest

from repolens.resolve.syntax import (
    ARRAY,
    Segment,
    is_mapping,
    normalize_type,
    parse_receiver,
    subscript_item,
    union_members,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("self.repo", [Segment("self"), Segment("repo", sep=".")]),
        ("super()", [Segment("super", "c")]),
        ("a.b().c[]", [Segment("a"), Segment("b", "c", "."), Segment("c", "s", ".")]),
        ("crate::models::Order", [Segment("crate"), Segment("models", sep="::"),
                                  Segment("Order", sep="::")]),
        ("Vec::<u8>::new()", [Segment("Vec"), Segment("new", "c", "::")]),
        ("new Foo()", [Segment("Foo", "c")]),
        ("this.items?.first!", [Segment("this"), Segment("items", sep="."),
                                Segment("first", sep=".")]),
        ('", "', [Segment("", literal=True)]),
        ("[1, 2]", [Segment("", literal=True)]),
    ],
)  # fmt: skip
def test_receivers_split_into_segments(text: str, expected: list[Segment]) -> None:
    assert list(parse_receiver(text) or []) == expected


@pytest.mark.parametrize("text", ["(a or b)", "x + y", "a.b c"])
def test_expressions_that_are_not_access_chains_are_refused(text: str) -> None:
    assert parse_receiver(text) is None


@pytest.mark.parametrize(
    ("text", "head", "as_class"),
    [
        ("Optional[Repo]", "Repo", False),
        ("Repo | None", "Repo", False),
        ("'models.Repo'", "models.Repo", False),
        ("type[Repo]", "Repo", True),
        ("*pkg.Server", "pkg.Server", False),
        ("&'a mut Store<T>", "Store", False),
        ("Arc<Mutex<Store>>", "Store", False),
        ("crate::store::Store", "crate.store.Store", False),
        ("(*Server, error)", "Server", False),
        ("list[Repo]", "list", False),
        ("[]Repo", ARRAY, False),
        ("Repo[]", ARRAY, False),
        ("map[string]Repo", ARRAY, False),
        ("Repo | Store", "", False),
    ],
)
def test_types_reduce_to_the_name_whose_members_matter(
    text: str, head: str, as_class: bool
) -> None:
    assert normalize_type(text) == (head, as_class)


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("list[Conn]", "Conn"),
        ("typing.List[m.Conn]", "m.Conn"),
        ("tuple[Conn, ...]", "Conn"),
        ("dict[str, list[Conn]]", "list[Conn]"),
        ("Conn[]", "Conn"),
        ("[]*Conn", "*Conn"),
        ("map[Key[int]]*Conn", "*Conn"),
        ("Vec<Conn>", "Conn"),
        ("HashMap<String, Conn>", "Conn"),
        ("Record<string, Conn>", "Conn"),
        ("tuple[Conn, Pool]", ""),  # which one depends on the index
        ("set[Conn]", ""),  # not indexable
        ("Conn", ""),
    ],
)
def test_subscripts_give_a_sequences_element_or_a_mappings_value(text: str, item: str) -> None:
    assert subscript_item(text) == item


def test_mappings_are_told_from_sequences() -> None:
    assert is_mapping("dict[str, Conn]") and is_mapping("typing.Mapping[str, Conn]")
    assert is_mapping("map[string]*Conn") and is_mapping("HashMap<String, Conn>")
    assert not is_mapping("list[Conn]") and not is_mapping("Conn[]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A | B", ["A", "B"]),
        ("A|B|null", ["A", "B"]),
        ("typing.Union[A, B]", ["A", "B"]),
        ("Optional[A | B]", ["A", "B"]),
        ("Union[A, B] | None", ["A", "B"]),
        ("Named & Aged", ["Named", "Aged"]),
        ("&'a mut T", []),  # Rust's reference, C++'s `T&`: no intersection
        ("const T&", []),
        ("A | None", []),  # one type: normalize_type reads it
        ("Optional[A]", []),
        ("dict[str, A | B]", []),  # the union is inside: the dict is the type
    ],
)
def test_union_members(text: str, expected: list[str]) -> None:
    assert union_members(text) == expected
