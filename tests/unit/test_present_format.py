"""Budgeted answers: never over budget, line-numbered, and honest about what was cut."""

from __future__ import annotations

import pytest

from repolens.present.format import (
    Answer,
    add_code,
    cite,
    code_block,
    lines_that_fit,
    numbered,
)


def test_numbered_lines_are_right_aligned_and_start_at_the_given_line() -> None:
    text = numbered(["def f():", "    return 1", ""], 98)
    assert text.splitlines() == [" 98  def f():", " 99      return 1", "100  "]


def test_marks_put_a_gutter_arrow_on_the_call_line() -> None:
    text = numbered(["a()", "b()", "c()"], 10, marks={11})
    assert text.splitlines() == [" 10  a()", ">11  b()", " 12  c()"]


def test_a_minified_line_is_cut_not_allowed_to_eat_the_budget() -> None:
    text = numbered(["x" * 5000], 1)
    assert len(text) < 300
    assert text.endswith("…")


def test_cite_forms() -> None:
    assert cite("a.py") == "a.py"
    assert cite("a.py", 3) == "a.py:3"
    assert cite("a.py", 3, 3) == "a.py:3"
    assert cite("a.py", 3, 9) == "a.py:3-9"


@pytest.mark.parametrize("budget", [400, 700, 1500, 5000])
def test_answer_never_exceeds_its_budget_and_lists_what_it_dropped(budget: int) -> None:
    out = Answer(budget)
    out.add_clipped("# Title " + "t" * 1000)
    dropped = 0
    for number in range(200):
        if not out.add(f"- item {number} " + "y" * 40):
            dropped = 200 - number
            out.leave_out(f"{dropped} items", "raise budget")
            break
    out.note("index in progress")
    text = out.render()
    assert len(text) <= budget
    assert dropped > 0
    assert text.rstrip().endswith("raise budget.") or "Left out" in text
    assert "Note: index in progress" in text


def test_a_complete_answer_says_so() -> None:
    out = Answer(2000)
    out.add("everything")
    assert out.render().splitlines()[-1] == "(complete: nothing left out)"


def test_lines_that_fit_agrees_with_the_rendered_block() -> None:
    lines = [f"line number {n} " + "z" * (n % 30) for n in range(200)]
    for room in (100, 500, 2000, 9000):
        count = lines_that_fit(lines, 1, room, "python")
        assert count > 0
        assert len(code_block(lines[:count], 1, "python")) <= room
        assert count == len(lines) or len(code_block(lines[: count + 1], 1, "python")) > room


def test_add_code_centres_the_window_on_the_focus_line() -> None:
    lines = [f"stmt_{n}()" for n in range(1, 301)]
    out = Answer(1600)
    shown = add_code(out, "## f", lines, 1, focus=250, marks={250})
    assert shown is not None
    first, last = shown
    assert first <= 250 <= last
    assert last - first + 1 < 300
    assert ">250  stmt_250()" in out.render()


def test_add_code_refuses_when_not_even_a_few_lines_fit() -> None:
    out = Answer(400)
    assert add_code(out, "## f", ["x = 1"] * 50, 1, room=30) is None
    assert out.parts == []
