"""``repolens search --linked``: an app, the library it uses and an unrelated project,
each indexed on its own (embeddings by the real packaged model), searched as one ranking
by real processes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import run_repolens

FIXTURES = Path(__file__).parents[1] / "fixtures" / "linked"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("linked")
    for name in ("pylib", "geometry", "pyapp"):
        shutil.copytree(FIXTURES / name, base / name)
        done = run_repolens(base / name, "index", ".")
        assert done.returncode == 0, done.stderr
    return base


def search(cwd: Path, query: str, *args: str, **env: str) -> dict[str, Any]:
    done = run_repolens(cwd, "search", "--linked", query, "--json", *args, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def places(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(r["project"], r["file"], r["symbol"]) for r in data["results"]]


def test_a_library_question_ranks_the_library_first_and_labels_every_hit(base: Path) -> None:
    data = search(base / "pyapp", "lowercase a book title and join its words with dashes")
    assert data["mode"] == "hybrid"
    assert [p["project"] for p in data["projects"]] == ["pyapp", "pylib", "geometry"]
    assert places(data)[0] == ("pylib", "src/shelf/slug.py", "slugify")
    assert {r["project"] for r in data["results"]} <= {"pyapp", "pylib", "geometry"}
    assert "notes" not in data


def test_an_app_question_ranks_the_app_first(base: Path) -> None:
    data = search(base / "pyapp", "the public URL of a book page")
    project, file, _ = places(data)[0]
    assert (project, file) == ("pyapp", "app/views.py")
    assert "pylib" in {r["project"] for r in data["results"]}


def test_an_unrelated_project_ranks_below_relevant_hits_of_the_others(base: Path) -> None:
    """Each index's own first hit is not a first hit: geometry's best chunk for a slug
    question ranks below the app's and the library's, and a calibrated floor drops it."""
    data = search(base / "pyapp", "slugify a book title for a URL")
    projects = [r["project"] for r in data["results"]]
    assert projects[:3].count("geometry") == 0, projects
    floored = search(base / "pyapp", "slugify a book title for a URL", "--min-score", "0.3")
    assert floored["results"] and "geometry" not in {r["project"] for r in floored["results"]}
    circle = search(base / "pyapp", "area of a circle of this radius")
    assert places(circle)[0] == ("geometry", "geometry/shapes.py", "circle_area")


def test_the_environment_names_linked_projects_separated_as_path_is(base: Path) -> None:
    links = os.pathsep.join(["../geometry", "../pylib"])
    data = search(base / "pyapp", "area of a circle", REPOLENS_LINKED_PROJECTS=links)
    assert [p["project"] for p in data["projects"]] == ["pyapp", "geometry", "pylib"]
    only = search(base / "pyapp", "slugify", REPOLENS_LINKED_PROJECTS="")
    assert {r["project"] for r in only["results"]} == {"pyapp"}
    assert any("no linked projects" in n for n in only["notes"])


def test_a_missing_or_stale_linked_index_is_said_and_the_rest_answers(
    base: Path, tmp_path: Path
) -> None:
    for name in ("pyapp", "pylib"):
        shutil.copytree(base / name, tmp_path / name)
    fresh = tmp_path / "fresh"
    shutil.copytree(FIXTURES / "geometry", fresh)
    links = os.pathsep.join(["../pylib", "../fresh"])
    data = search(tmp_path / "pyapp", "slugify", REPOLENS_LINKED_PROJECTS=links)
    assert any("fresh" in n and "not indexed" in n and "repolens index" in n
               for n in data["notes"]), data["notes"]  # fmt: skip
    assert "pylib" in {r["project"] for r in data["results"]}
    slug = tmp_path / "pylib" / "src" / "shelf" / "slug.py"
    slug.write_text(slug.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    data = search(tmp_path / "pyapp", "slugify", REPOLENS_LINKED_PROJECTS=links)
    assert any("pylib is stale: 1 file(s) changed" in n for n in data["notes"]), data["notes"]


def test_a_link_that_is_not_a_directory_is_an_error_naming_it(base: Path) -> None:
    done = run_repolens(base / "pyapp", "search", "--linked", "slugify", "--json",
                        REPOLENS_LINKED_PROJECTS="../no-such-lib")  # fmt: skip
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert "no-such-lib" in error and "REPOLENS_LINKED_PROJECTS" in error
