"""The context builder on a real indexed project: what it picks, the paths it finds, the
code it loads, and that the rendered answer keeps to its budget."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from repolens.config import load_settings
from repolens.index.pipeline import index_project
from repolens.mcp.source import SourceCache
from repolens.present.context import render_context
from repolens.project import Project, open_project
from repolens.query.context import ContextBundle, build_context, query_names
from repolens.store.db import connect

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Project, sqlite3.Connection]]:
    root = tmp_path_factory.mktemp("ctx") / "sample"
    shutil.copytree(FIXTURE, root)
    project = open_project(root, load_settings(root, {"REPOLENS_EMBED_PROVIDER": "none"}))
    writer = connect(project.db_path)
    index_project(project, writer)
    writer.close()
    conn = connect(project.db_path, readonly=True)
    yield project, conn
    conn.close()


def build(indexed: tuple[Project, sqlite3.Connection], query: str, **kw: int) -> ContextBundle:
    project, conn = indexed
    reader = SourceCache(project.root, conn)
    return build_context(conn, project.data_dir, query, read_lines=reader, **kw)  # type: ignore[arg-type]


def names(bundle: ContextBundle) -> list[str]:
    return [item.symbol.qualified_name for item in bundle.items]


def test_query_names_keeps_code_shaped_identifiers_and_drops_filler_words() -> None:
    found = dict(query_names("How does `Server.handle` call fetch_user() and the router?"))
    assert found == {"Server.handle": True, "fetch_user": True, "router": False}


def test_named_symbols_lead_and_their_neighbours_follow(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    bundle = build(indexed, "how does Server.handle reach fetch_user?")
    top = names(bundle)[:2]
    assert set(top) == {"Server.handle", "fetch_user"}
    assert "Router.dispatch" in names(bundle)  # reached through the graph, not named
    dispatch = next(i for i in bundle.items if i.symbol.qualified_name == "Router.dispatch")
    assert not dispatch.entry and any("handle" in why for why in dispatch.why)


def test_call_paths_connect_the_top_symbols(indexed: tuple[Project, sqlite3.Connection]) -> None:
    bundle = build(indexed, "how does Server.handle reach fetch_user?")
    chains = [[path.start.qualified_name, *(h.symbol.qualified_name for h in path.hops)]
              for path in bundle.paths]  # fmt: skip
    assert any(
        chain[chain.index("Server.handle"):chain.index("fetch_user") + 1]
        == ["Server.handle", "Router.dispatch", "get_user", "fetch_user"]
        for chain in chains if "Server.handle" in chain and "fetch_user" in chain
    )  # fmt: skip


def test_code_is_loaded_from_disk_for_the_top_symbols(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    bundle = build(indexed, "fetch_user")
    first = bundle.items[0]
    assert first.symbol.qualified_name == "fetch_user"
    assert first.lines[0] == "def fetch_user(user_id):"
    assert len(first.lines) == first.total_lines == 4


def test_an_ambiguous_name_contributes_its_candidates_without_choosing(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    bundle = build(indexed, "where is load defined")
    files = {i.symbol.file for i in bundle.items if i.symbol.name == "load"}
    assert files == {"shop/cache.py", "shop/config.py"}


def test_a_plain_word_in_a_sentence_is_not_taken_for_a_common_name(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    long = "fix the crash when the settings file is missing and we load defaults on start"
    named = [i for i in build(indexed, long).items if any("named" in w for w in i.why)]
    assert all(i.symbol.name != "load" for i in named)  # "load" is in many chunks here
    code = "fix the crash when the settings file is missing and `load` returns defaults"
    found = {i.symbol.file for i in build(indexed, code).items if i.symbol.name == "load"}
    assert found == {"shop/cache.py", "shop/config.py"}  # written as code, it is a name


def test_an_unknown_identifier_is_reported_not_replaced(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    bundle = build(indexed, "what calls fetch_usr_record")
    assert any("fetch_usr_record" in note for note in bundle.notes)
    assert all(i.symbol.name != "fetch_usr_record" for i in bundle.items)


def test_tests_rank_below_the_code_they_test(indexed: tuple[Project, sqlite3.Connection]) -> None:
    order = names(build(indexed, "get_user"))
    assert order.index("get_user") < order.index("test_get_user")


def test_a_class_and_its_methods_do_not_show_the_same_lines_twice(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    bundle = build(indexed, "Server Server.handle Server.start")
    shown: dict[str, set[int]] = {}
    for item in bundle.items:
        lines = set(range(item.symbol.line, item.symbol.line + len(item.lines)))
        assert not lines & shown.get(item.symbol.file, set()), item.symbol.qualified_name
        shown.setdefault(item.symbol.file, set()).update(lines)


@pytest.mark.parametrize("budget", [600, 1200, 3000, 6000, 20_000])
def test_the_rendered_answer_keeps_to_its_budget(
    indexed: tuple[Project, sqlite3.Connection], budget: int
) -> None:
    bundle = build(indexed, "how is a user renamed and saved", budget=budget)
    text = render_context(bundle)
    assert len(text) <= budget
    assert text.startswith("# Context:")
    last = text.splitlines()[-1]
    assert last.startswith(("To get more", "(complete", "Left out"))
    if budget >= 3000:
        assert "def rename_user(user_id, name):" in text


def test_a_small_budget_says_what_was_left_out(indexed: tuple[Project, sqlite3.Connection]) -> None:
    text = render_context(build(indexed, "fetch_user rename_user save_user get_user", budget=1000))
    assert "Left out:" in text and "To get more:" in text


def test_a_large_budget_leaves_nothing_out_on_a_small_project(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    text = render_context(build(indexed, "fetch_user", budget=40_000))
    assert text.endswith("(complete: nothing left out)")


def test_a_long_docstring_is_trimmed_before_the_body_is_cut(tmp_path: Path) -> None:
    doc = "".join(f"    Detail {i} of how the totals are computed.\n" for i in range(30))
    body = "".join(f"    total += item_{i}\n" for i in range(70))
    source = f'def compute_totals(items):\n    """Sum the items.\n\n{doc}    """\n'
    (tmp_path / "totals.py").write_text(source + "    total = 0\n" + body + "    return total\n")
    project = open_project(tmp_path, load_settings(tmp_path, {"REPOLENS_EMBED_PROVIDER": "none"}))
    writer = connect(project.db_path)
    index_project(project, writer)
    writer.close()
    conn = connect(project.db_path, readonly=True)
    try:
        bundle = build((project, conn), "compute_totals", budget=6000)
        text = render_context(bundle)
    finally:
        conn.close()
    assert '    """Sum the items.' in text and "docstring lines 3-34 left out" in text
    assert "Detail 5 of how" not in text
    assert "    return total" in text  # the whole body, once the docstring made room


def test_a_change_lists_the_tests_that_call_what_it_changes(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    change = render_context(build(indexed, "fix get_user when the user is missing"))
    assert "## Tests that call the entry points" in change
    assert "- test_get_user (test) tests/test_handlers.py:4 — calls get_user at line 5" in change
    question = render_context(build(indexed, "how does get_user find a user"))
    assert "## Tests that call" not in question


def test_the_other_definitions_a_search_hit_holds_are_seeded_beside_it(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    """db.py is one chunk (USERS, connect, fetch_user, save_user): search names it by
    fetch_user, and save_user, which nothing found calls, comes with it."""
    bundle = build(indexed, "keep users in memory")
    assert names(bundle)[0] == "fetch_user"
    saved = next(i for i in bundle.items if i.symbol.qualified_name == "save_user")
    assert "beside search hit #1" in saved.why


def test_tests_are_asked_for_in_the_first_words_of_a_question_not_in_its_tail(
    indexed: tuple[Project, sqlite3.Connection],
) -> None:
    asked = names(build(indexed, "tests for get_user"))
    assert asked.index("test_get_user") == 1
    task = "return the user with this id or none when no user has it, and update the tests"
    assert "test_get_user" not in names(build(indexed, task))[:4]
