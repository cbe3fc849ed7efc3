"""The cross-repository graph: an app and the library it imports, for Python, TypeScript
and Go, each indexed on its own by a real process; ``callers``, ``callees``, ``impact``
and ``path`` with ``--linked`` cross from the app into the library, naming each
symbol's project."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import repolens
from conftest import run_repolens

FIXTURES = Path(__file__).parents[1] / "fixtures" / "linked"
# (app, library, the library's slug function, its catalog class and method, app's functions)
CASES = {
    "python": ("pyapp", "pylib", "slugify", "Catalog", "add",
               ("book_url", "author_url", "stock", "render_page")),
    "typescript": ("tsapp", "tslib", "slugify", "Catalog", "add",
                   ("bookUrl", "authorUrl", "stock", "renderPage")),
    "go": ("goapp", "golib", "Slugify", "Catalog", "Add",
           ("BookURL", "AuthorURL", "Stock", "RenderPage")),
}  # fmt: skip


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("linked-graph")
    for app, lib, *_ in CASES.values():
        for name in (lib, app, *(("geometry",) if app == "pyapp" else ())):
            shutil.copytree(FIXTURES / name, base / name)
            done = run_repolens(base / name, "index", "--no-embed", ".")
            assert done.returncode == 0, done.stderr
    return base


def ask(cwd: Path, *args: str) -> dict[str, Any]:
    done = run_repolens(cwd, *args, "--linked", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def short(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit("/", 1)[-1]


@pytest.mark.parametrize("language", CASES)
def test_callers_of_a_library_function_list_the_app_callers(base: Path, language: str) -> None:
    app, lib, slug, _, method, (book, author, _, _) = CASES[language]
    data = ask(base / app, "callers", slug)
    assert data["symbol"]["project"] == lib
    found = {(r["project"], short(r["qualified_name"]), r["crossing"]) for r in data["results"]}
    assert found == {(lib, method, False), (app, book, True), (app, author, True)}
    crossing = [r for r in data["results"] if r["crossing"]]
    assert all(r["provenance"] == "linked-import" and r["via"] for r in crossing)
    assert data["notes"] == []


@pytest.mark.parametrize("language", CASES)
def test_a_library_class_and_its_method_have_app_callers(base: Path, language: str) -> None:
    app, _, _, cls, method, (_, _, stock, _) = CASES[language]
    made = ask(base / app, "callers", cls)
    assert (app, stock, "instantiates") in {
        (r["project"], short(r["qualified_name"]), r["edge_kind"]) for r in made["results"]
    }
    used = ask(base / app, "callers", f"{cls}.{method}")
    assert [(r["project"], short(r["qualified_name"])) for r in used["results"]] == [(app, stock)]
    assert used["results"][0]["confidence"] < 0.9  # through the variable's stated type


@pytest.mark.parametrize("language", CASES)
def test_impact_and_path_cross_from_the_library_into_the_app(base: Path, language: str) -> None:
    app, lib, slug, _, method, (book, author, stock, page) = CASES[language]
    data = ask(base / app, "impact", slug, "--depth", "3")
    depths = {
        (f["project"], short(s["qualified_name"])): s["depth"]
        for f in data["files"]
        for s in f["symbols"]
    }
    assert depths == {(lib, method): 1, (app, book): 1, (app, author): 1,
                      (app, stock): 2, (app, page): 2}  # fmt: skip
    assert data["projects"] == sorted([app, lib])
    path = ask(base / app, "path", page, slug)
    assert path["found"] and path["from"]["project"] == app and path["to"]["project"] == lib
    hops = [(h["project"], short(h["qualified_name"]), h["crossing"]) for h in path["path"]]
    assert hops == [(app, book, False), (lib, slug, True)]
    back = ask(base / app, "path", slug, page)
    assert not back["found"]


def test_callees_of_an_app_function_reach_into_the_library(base: Path) -> None:
    data = ask(base / "pyapp", "callees", "stock")
    assert {(r["project"], r["qualified_name"], r["edge_kind"]) for r in data["results"]} >= {
        ("pylib", "shelf.slug.Catalog", "instantiates"),
        ("pylib", "shelf.slug.Catalog.add", "calls"),
    }


def test_a_symbol_is_looked_up_in_the_project_named_by_in(base: Path) -> None:
    done = run_repolens(base / "pyapp", "callers", "slugify", "--linked", "--in", "pyapp",
                        "--json")  # fmt: skip
    assert done.returncode == 1 and "looked in pyapp" in json.loads(done.stdout)["error"]
    data = ask(base / "pyapp", "callers", "slugify", "--in", "pylib")
    assert data["symbol"]["project"] == "pylib"


def test_the_library_changing_is_seen_and_a_missing_index_is_said(
    base: Path, tmp_path: Path
) -> None:
    for name in ("pyapp", "pylib", "geometry"):
        shutil.copytree(base / name, tmp_path / name)
    assert ask(tmp_path / "pyapp", "callers", "slugify")["results"]
    lib = tmp_path / "pylib" / "src" / "shelf"
    body = (lib / "slug.py").read_text(encoding="utf-8")
    (lib / "text.py").write_text(
        'def slugify(title: str) -> str:\n    return "-".join(title.lower().split())\n',
        encoding="utf-8",
    )
    moved = body.replace("import re\n", "import re\n\nfrom shelf.text import slugify\n")
    start, end = moved.index("def slugify"), moved.index("def _words")
    (lib / "slug.py").write_text(moved[:start] + moved[end:], encoding="utf-8")
    stale = ask(tmp_path / "pyapp", "callers", "slugify")
    assert any("pylib is stale" in n for n in stale["notes"]), stale["notes"]
    assert run_repolens(tmp_path / "pylib", "update", ".").returncode == 0
    data = ask(tmp_path / "pyapp", "callers", "slugify")
    assert data["symbol"]["file"] == "src/shelf/text.py" and data["notes"] == []
    assert {(r["project"], short(r["qualified_name"])) for r in data["results"]} >= {
        ("pyapp", "book_url"), ("pyapp", "author_url"),
    }  # fmt: skip
    shutil.rmtree(tmp_path / "pylib" / ".repolens")
    gone = run_repolens(tmp_path / "pyapp", "callers", "slugify", "--linked", "--json")
    answer = json.loads(gone.stdout)
    assert gone.returncode == 1 and "looked in pyapp" in answer["error"]
    data = ask(tmp_path / "pyapp", "callers", "book_url")
    assert any("pylib" in n and "not indexed" in n for n in data["notes"]), data["notes"]


@pytest.mark.parametrize(
    ("app", "lib", "expected"),
    [
        ("japp", "jlib", {("com.acme.store.Views.bookUrl", "com.acme.shelf.Slugs")}),
        ("rapp", "rlib", {("store.book_url", "shelf_tools::slug"),
                          ("store.author_url", "shelf_tools::slug")}),
        # an npm workspace's package (main names dist/, the source is in src/), a subpath
        ("tsmonoapp", "tsmono", {("src/a.one", "@acme/shelf/slug"),
                                 ("packages/shelf/src/catalog.Catalog.add", None)}),
    ],
)  # fmt: skip
def test_java_classes_rust_crates_and_npm_workspaces_resolve_across(
    tmp_path: Path, app: str, lib: str, expected: set[tuple[str, str]]
) -> None:
    for name in (lib, app):
        shutil.copytree(FIXTURES / name, tmp_path / name)
        assert run_repolens(tmp_path / name, "index", "--no-embed", ".").returncode == 0
    data = ask(tmp_path / app, "callers", "slugify")
    assert data["symbol"]["project"] == lib
    assert {(r["qualified_name"], r.get("via")) for r in data["results"]} == expected


def test_a_package_two_linked_projects_define_resolves_into_the_first(
    base: Path, tmp_path: Path
) -> None:
    for name in ("pyapp", "pylib"):
        shutil.copytree(base / name, tmp_path / name)
    shutil.copytree(base / "pylib", tmp_path / "fork")
    links = os.pathsep.join(["../pylib", "../fork"])
    first = run_repolens(tmp_path / "pyapp", "callers", "slugify", "--linked", "--in", "pylib",
                         "--json", REPOLENS_LINKED_PROJECTS=links)  # fmt: skip
    projects = {r["project"] for r in json.loads(first.stdout)["results"]}
    assert projects == {"pylib", "pyapp"}
    second = run_repolens(tmp_path / "pyapp", "callers", "slugify", "--linked", "--in", "fork",
                          "--json", REPOLENS_LINKED_PROJECTS=links)  # fmt: skip
    assert {r["project"] for r in json.loads(second.stdout)["results"]} == {"fork"}


def test_no_tests_with_linked_is_refused_not_ignored(base: Path) -> None:
    done = run_repolens(base / "pyapp", "callers", "slugify", "--linked", "--no-tests")
    assert done.returncode == 2 and "--no-tests does not work with --linked" in done.stderr


def test_the_python_api_asks_across_linked_projects(base: Path) -> None:
    code = repolens.open(base / "pyapp")
    with code.linked_graph() as graph:
        number, sym = graph.find("slugify")
        assert graph.label(number) == "pylib"
        crossing = {h.hit.symbol.name for h in graph.callers(number, sym) if h.crossing}
        assert crossing == {"book_url", "author_url"}
    hits = code.linked_search("slugify a book title")
    assert ("pylib", "slugify") in {(h.project, h.symbol) for h in hits}
    assert {h.project for h in hits} >= {"pyapp", "pylib"}
