"""Graph queries over a real index of tests/fixtures/query/pyapp (parsed, stored, resolved).

The fixture's call graph is small enough to know by heart; every expectation below is
read off its source, not off what the code happened to return.
"""

from __future__ import annotations

import sqlite3

import pytest

from repolens.query.graph import (
    SymbolLookupError,
    call_path,
    callees,
    callers,
    entry_reason,
    find_symbol,
    possible_callers,
    search_symbols,
    unresolved_calls,
)
from repolens.query.impact import impact


@pytest.fixture(scope="module")
def conn(pyapp: sqlite3.Connection) -> sqlite3.Connection:
    return pyapp


def names(hits: list) -> set[tuple[str, str, int]]:  # type: ignore[type-arg]
    return {(h.symbol.full_name, h.edge_kind, h.line) for h in hits}


# -- find_symbol ----------------------------------------------------------------------------


def test_bare_name_finds_the_one_definition(conn: sqlite3.Connection) -> None:
    ref = find_symbol(conn, "describe")
    assert (ref.full_name, ref.kind, ref.file, ref.line) == (
        "app.service.describe", "function", "app/service.py", 17,
    )  # fmt: skip


def test_class_method_and_full_dotted_name(conn: sqlite3.Connection) -> None:
    local = find_symbol(conn, "User.save")
    assert (local.qualified_name, local.file, local.line) == ("User.save", "app/models.py", 16)
    assert find_symbol(conn, "app.models.User.save") == local
    assert find_symbol(conn, "models.User.save") == local  # a segment suffix of the full name
    assert find_symbol(conn, "app/models.py:User.save") == local
    assert find_symbol(conn, "app/models.py:17") == local  # the innermost symbol at a line


def test_module_name_names_the_file_symbol(conn: sqlite3.Connection) -> None:
    ref = find_symbol(conn, "app.service")
    assert (ref.kind, ref.file, ref.full_name) == ("file", "app/service.py", "app.service")


def test_same_name_in_two_files_is_ambiguous_until_file_given(conn: sqlite3.Connection) -> None:
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "process")
    assert caught.value.kind == "ambiguous"
    assert [(c.file, c.line) for c in caught.value.candidates] == [
        ("app/jobs.py", 4),
        ("app/util.py", 25),
    ]
    assert find_symbol(conn, "process", file="jobs.py").file == "app/jobs.py"
    assert find_symbol(conn, "process", file="app/util.py").file == "app/util.py"


def test_save_is_ambiguous_between_base_and_override(conn: sqlite3.Connection) -> None:
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "save")
    assert {c.full_name for c in caught.value.candidates} == {
        "app.models.Base.save",
        "app.models.User.save",
    }


def test_not_found_suggests_but_never_substitutes(conn: sqlite3.Connection) -> None:
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "formatName")
    error = caught.value
    assert error.kind == "not_found"
    assert "format_name" in [c.name for c in error.candidates]
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "Describe")
    assert [c.full_name for c in caught.value.candidates][:1] == ["app.service.describe"]
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "Servic")
    assert "Service" in [c.name for c in caught.value.candidates]


def test_wrong_qualifier_is_not_found_with_the_real_one_offered(conn: sqlite3.Connection) -> None:
    with pytest.raises(SymbolLookupError) as caught:
        find_symbol(conn, "Base.display")
    assert caught.value.kind == "not_found"
    assert [c.full_name for c in caught.value.candidates] == ["app.models.User.display"]


def test_file_filter_that_excludes_the_name_is_not_found(conn: sqlite3.Connection) -> None:
    with pytest.raises(SymbolLookupError, match="exists elsewhere") as caught:
        find_symbol(conn, "describe", file="app/util.py")
    assert [c.file for c in caught.value.candidates] == ["app/service.py"]
    with pytest.raises(SymbolLookupError, match="no indexed file"):
        find_symbol(conn, "describe", file="nope.py")


def test_search_symbols_ranks_exact_then_prefix(conn: sqlite3.Connection) -> None:
    found = search_symbols(conn, "save")
    assert [r.qualified_name for r in found] == ["Base.save", "User.save", "_on_save"]
    found = search_symbols(conn, "SERVICE")  # case-insensitive; the class before its file
    assert [(r.kind, r.full_name) for r in found][:1] == [("class", "app.service.Service")]
    found = search_symbols(conn, "", file="app/util.py", kind="function")
    assert [r.name for r in found] == [
        "format_name", "unused_helper", "register", "on_event", "process", "_on_save",
    ]  # fmt: skip
    assert len(search_symbols(conn, "", limit=3)) == 3


# -- callers / callees ------------------------------------------------------------------------


def test_callers_of_a_function(conn: sqlite3.Connection) -> None:
    hits = callers(conn, find_symbol(conn, "format_name"))
    assert names(hits) == {("app.service.describe", "calls", 18)}
    assert all(h.file == "app/service.py" for h in hits)


def test_callers_of_a_class_include_instantiations(conn: sqlite3.Connection) -> None:
    hits = callers(conn, find_symbol(conn, "User"))
    # `User(name)` is stored as instantiates User and calls User.__init__: one caller row
    assert [(h.symbol.full_name, h.edge_kind, h.file, h.line) for h in hits] == [
        ("app.service.Service.create_user", "instantiates", "app/service.py", 9),
    ]
    hits = callers(conn, find_symbol(conn, "Service"))
    assert [(h.symbol.full_name, h.edge_kind, h.file, h.line) for h in hits] == [
        ("app.main.main", "instantiates", "app/main.py", 7),
        ("tests.service_check.test_create_user", "instantiates", "tests/service_check.py", 5),
    ]


def test_module_level_caller_is_the_file_symbol(conn: sqlite3.Connection) -> None:
    hits = callers(conn, find_symbol(conn, "main"))
    assert [(h.symbol.kind, h.symbol.file, h.line) for h in hits] == [("file", "app/main.py", 11)]


def test_callback_passed_by_reference_is_a_reference_caller(conn: sqlite3.Connection) -> None:
    hits = callers(conn, find_symbol(conn, "on_event"))
    assert [(h.symbol.file, h.edge_kind, h.line) for h in hits] == [
        ("app/util.py", "references", 22)
    ]


def test_callees_with_call_sites(conn: sqlite3.Connection) -> None:
    hits = callees(conn, find_symbol(conn, "Service.create_user"))
    assert names(hits) == {
        ("app.models.User", "instantiates", 9),
        ("app.models.User.save", "calls", 10),
        ("app.service.describe", "calls", 11),
    }
    user = next(h for h in hits if h.symbol.name == "User")
    assert (user.symbol.file, user.symbol.line, user.file) == (
        "app/models.py", 12, "app/service.py",
    )  # fmt: skip


def test_callees_of_a_class_leave_out_calls_between_its_members(
    conn: sqlite3.Connection,
) -> None:
    hits = callees(conn, find_symbol(conn, "Base"))
    assert hits == []  # Base.save -> Base.validate stays inside the class
    assert {h.symbol.full_name for h in callees(conn, find_symbol(conn, "Base.save"))} == {
        "app.models.Base.validate"
    }


def test_unknown_calls_are_reported_not_hidden(conn: sqlite3.Connection) -> None:
    dispatch = find_symbol(conn, "Service.dispatch")
    assert callees(conn, dispatch) == []
    unknown = unresolved_calls(conn, dispatch)
    assert [(u["name"], u["receiver"], u["line"], u["reason"]) for u in unknown] == [
        ("maybe_called", "handler", 14, "unknown")
    ]
    target = find_symbol(conn, "maybe_called")
    assert callers(conn, target) == []
    maybe = possible_callers(conn, target)  # so the answer is "unknown", not "none"
    assert [(m["file"], m["line"], m["source"]) for m in maybe] == [
        ("app/service.py", 14, "app.service.Service.dispatch")
    ]
    assert possible_callers(conn, find_symbol(conn, "format_name")) == []


def test_entry_reason_explains_a_missing_caller(conn: sqlite3.Connection) -> None:
    hello = find_symbol(conn, "hello")
    assert callers(conn, hello) == []
    assert entry_reason(conn, hello) == 'decorated with @route("/hello"): a framework may call it'
    assert entry_reason(conn, find_symbol(conn, "User.save")).startswith(
        "overrides Base.save (app/models.py:5)"
    )
    assert entry_reason(conn, find_symbol(conn, "test_create_user")).startswith("an entry point")
    assert entry_reason(conn, find_symbol(conn, "unused_helper")) == ""


# -- impact ---------------------------------------------------------------------------------


def test_impact_groups_by_file_with_depth(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "format_name"), depth=3)
    depths = {h.symbol.full_name: h.depth for h in result.hits}
    assert depths["app.service.describe"] == 1
    assert depths["app.service.Service.create_user"] == 2
    assert depths["app.main.main"] == 3
    assert depths["tests.service_check.test_create_user"] == 3
    grouped = {
        path: [(h.symbol.qualified_name, h.depth) for h in hits]
        for path, hits in result.by_file().items()
    }
    assert grouped == {
        "app/service.py": [("describe", 1), ("Service.create_user", 2)],
        "app/main.py": [("main", 3)],
        "tests/service_check.py": [("test_create_user", 3)],
    }
    assert list(grouped) == ["app/service.py", "app/main.py", "tests/service_check.py"]
    assert not result.truncated


def test_impact_depth_bound_reports_the_frontier(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "format_name"), depth=1)
    assert [h.symbol.full_name for h in result.hits] == ["app.service.describe"]
    assert result.frontier == 1  # create_user, one hop further
    # at depth 3, main is still called by the module-level `main()` of app/main.py
    assert impact(conn, find_symbol(conn, "format_name"), depth=3).frontier == 1
    whole = impact(conn, find_symbol(conn, "format_name"), depth=6)
    assert whole.frontier == 0
    assert [(h.symbol.kind, h.symbol.file, h.depth) for h in whole.hits][-1:] == [
        ("file", "app/main.py", 4)
    ]


def test_impact_limit_is_reported(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "format_name"), depth=5, limit=2)
    assert len(result.hits) == 2 and result.truncated


def test_impact_of_a_class_covers_its_members_and_subclasses(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "Base"), depth=1)
    assert {(h.symbol.full_name, h.depth) for h in result.hits} == {
        ("app.models.User", 1),  # extends Base
        ("app.models.User.save", 1),  # overrides and calls Base.save
    }
    deeper = impact(conn, find_symbol(conn, "Base"), depth=2)
    assert ("app.service.Service.create_user", 2) in {
        (h.symbol.full_name, h.depth) for h in deeper.hits
    }


def test_impact_of_a_file_covers_every_symbol_in_it(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "app/models.py"), depth=1)
    assert [(h.symbol.full_name, h.edge_kind, h.line) for h in result.hits] == [
        ("app.service.Service.create_user", "instantiates", 9),
        ("app.util.format_name", "calls", 7),  # `user.display()`, matched by name only
    ]
    assert result.hits[1].confidence < 0.5 < result.hits[0].confidence


def test_impact_of_a_base_method_reaches_its_override(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "Base.save"), depth=1)
    assert "app.models.User.save" in {h.symbol.full_name for h in result.hits}


# -- call paths -----------------------------------------------------------------------------


def test_call_path_found_with_call_sites(conn: sqlite3.Connection) -> None:
    hops = call_path(conn, find_symbol(conn, "main"), find_symbol(conn, "format_name"))
    assert hops is not None
    assert [(h.symbol.full_name, h.file, h.line) for h in hops] == [
        ("app.service.Service.create_user", "app/main.py", 7),
        ("app.service.describe", "app/service.py", 11),
        ("app.util.format_name", "app/service.py", 18),
    ]


def test_call_path_not_found_and_depth_bound(conn: sqlite3.Connection) -> None:
    assert call_path(conn, find_symbol(conn, "format_name"), find_symbol(conn, "main")) is None
    main, target = find_symbol(conn, "main"), find_symbol(conn, "format_name")
    assert call_path(conn, main, target, max_depth=2) is None
    assert call_path(conn, main, main) == []
