"""Fusion: weighted RRF, code signals and the calibrated score."""

from __future__ import annotations

import pytest

from repolens.query import fusion
from repolens.query.fusion import Candidate, QueryShape
from repolens.store.chunks import code_tokens


def shape(query: str) -> QueryShape:
    return QueryShape.of(query, tuple(dict.fromkeys(code_tokens(query))))


def test_rrf_weights_dense_above_bm25() -> None:
    fused = fusion.fuse([(1, 9.0), (2, 5.0)], [(2, 0.8), (3, 0.7)])
    assert fused[2].rrf > fused[1].rrf > 0
    assert fused[3].rrf > fused[1].rrf  # dense rank 2 beats BM25 rank 1
    assert (fused[1].bm25_rank, fused[2].dense_rank, fused[3].cosine) == (1, 1, 0.7)


@pytest.mark.parametrize(
    ("query", "names", "value", "name"),
    [
        ("load_settings", ["config.load_settings"], 1.0, "config.load_settings"),
        ("loadSettings", ["load_settings"], 1.0, "load_settings"),
        ("load settings", ["Loader.load_settings"], 1.0, "Loader.load_settings"),
        ("how does parse_config work", ["a", "parse_config"], 0.8, "parse_config"),
        ("settings are loaded from a toml file", ["load_settings"], 0.0, None),
        ("load the settings from disk", ["load_settings"], 0.5, "load_settings"),
        ("find the git branch", ["Project.branch"], 0.0, None),  # a plain word is not a name
        ("branch", ["Project.branch"], 1.0, "Project.branch"),
        ("console options update", ["ConsoleOptions.update"], 1.0, "ConsoleOptions.update"),
        (
            "HelpFormatter.write_dl",
            ["HelpFormatter", "HelpFormatter.write_dl"],
            1.0,
            "HelpFormatter.write_dl",
        ),
    ],
)
def test_name_match(query: str, names: list[str], value: float, name: str | None) -> None:
    assert fusion.name_match(shape(query), names) == (value, name)


def test_path_match_stem_over_directories() -> None:
    assert fusion.path_match(shape("search ranking"), "src/repolens/query/search.py") == 1.0
    assert fusion.path_match(shape("query ranking"), "src/repolens/query/search.py") == 0.5
    assert fusion.path_match(shape("src lib"), "src/lib/main.py") == 0.0  # generic parts


def test_tests_are_penalised_unless_asked_for() -> None:
    assert fusion.role_penalty(shape("cart total"), "test") < 1.0
    assert fusion.role_penalty(shape("tests for cart total"), "test") == 1.0
    assert fusion.role_penalty(shape("tests for cart total"), "vendored") < 1.0
    assert fusion.role_penalty(shape("cart total"), "") == 1.0


def test_calibrated_score_is_bounded_and_monotonic() -> None:
    def score(
        cosine: float | None, bm25: float | None, name: float = 0.0, penalty: float = 1.0
    ) -> float:
        return fusion.calibrate(Candidate(1, bm25=bm25, cosine=cosine), 10.0, name, penalty)

    assert score(None, None) == 0.0
    assert score(0.05, None) == 0.0  # unrelated text: nothing
    assert 0.0 < score(0.4, None) < score(0.6, None) <= 1.0
    assert score(0.4, 2.0) < score(0.4, 8.0) < score(0.4, 50.0) <= 1.0
    assert score(0.4, 8.0, name=1.0) > score(0.4, 8.0)
    assert score(0.4, 8.0, penalty=0.5) == pytest.approx(score(0.4, 8.0) * 0.5)
    assert score(0.99, 500.0, name=1.0) == 1.0


def test_prose_config_and_examples_are_ranked_down_unless_asked_for() -> None:
    plain = shape("retry the request on timeout")
    assert fusion.role_penalty(plain, "", "markdown") < 1.0
    assert fusion.role_penalty(plain, "", "yaml") < 1.0
    assert fusion.role_penalty(plain, "", "python", "examples/retry/app.py") < 1.0
    assert fusion.role_penalty(plain, "", "python", "src/retry.py") == 1.0
    assert fusion.role_penalty(shape("docs on retry"), "", "markdown") == 1.0
    assert fusion.role_penalty(shape("the ci workflow"), "", "yaml") == 1.0
    assert fusion.role_penalty(shape("retry example"), "", "python", "examples/app.py") == 1.0


def test_a_files_imports_rank_below_its_code() -> None:
    plain = shape("retry the request on timeout")
    assert fusion.role_penalty(plain, "", "python", "src/retry.py", "preamble") < 1.0
    assert fusion.role_penalty(plain, "", "python", "src/retry.py", "function") == 1.0


def test_central_code_ranks_higher_with_everything_else_equal() -> None:
    candidate = Candidate(1, rrf=0.01)
    assert fusion.rank(candidate, 0, 0, 1.0, central=1.0) > fusion.rank(candidate, 0, 0, 1.0)
    most = fusion.rank(candidate, 1.0, 1.0, 1.0, central=1.0)
    assert most == pytest.approx(candidate.rrf * fusion.MAX_BOOST)  # the pruning bound holds


def test_the_scores_shown_follow_the_ranking_and_separate() -> None:
    values = [(3.0, 0.7), (2.4, 1.0), (2.4, 1.0), (1.5, 0.2), (1.2, 0.9)]
    ranked = [Candidate(i, rank_score=r, score=s) for i, (r, s) in enumerate(values)]
    fusion.spread(ranked)
    shown = [c.score for c in ranked]
    assert shown == sorted(shown, reverse=True)
    assert shown[:3] == pytest.approx([0.7, 0.56, 0.56])  # ranked below, so scored below
    assert shown[3] == 0.2  # never above its own evidence
    assert shown[4] == pytest.approx(0.16)
    assert [c.signals["relevance"] for c in ranked] == [0.7, 1.0, 1.0, 0.2, 0.9]


def test_a_kind_of_file_is_asked_for_in_the_querys_first_words_only() -> None:
    task = (
        "Raise TypeError on invalid query params so that a bad value fails early"
        " * update the tests * fix the docs"
    )
    assert fusion.role_penalty(shape(task), "test") < 1.0
    assert fusion.role_penalty(shape(task), "", "markdown") < 1.0
    assert fusion.role_penalty(shape("update the tests for invalid query params"), "test") == 1.0


def test_type_declarations_rank_below_code_unless_types_are_asked_about() -> None:
    plain = shape("retry the request on timeout")
    assert fusion.role_penalty(plain, "", "typescript", "src/retry.ts", "interface") < 1.0
    assert fusion.role_penalty(plain, "", "typescript", "src/retry.ts", "type_alias") < 1.0
    assert fusion.role_penalty(plain, "", "typescript", "src/retry.ts", "function") == 1.0
    asked = shape("the types of the retry options")
    assert fusion.role_penalty(asked, "", "typescript", "src/retry.ts", "interface") == 1.0
