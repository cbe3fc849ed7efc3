"""Windows: every line of a document lands in a window that fits, in order, nothing cut."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from repolens.embed.windows import measure_chars, split_chars, split_windows


def _code(lines: int) -> str:
    return "".join(f"    value_{i} = compute(value_{i - 1}, {i})\n" for i in range(lines))


def _unoverlapped(windows: list[str], text: str) -> str:
    """Rebuild the text from windows by dropping each window's overlap with the previous."""
    rebuilt = ""
    for window in windows:
        overlap = next(
            (
                k
                for k in range(min(len(window), len(rebuilt)), -1, -1)
                if rebuilt.endswith(window[:k])
            ),
            0,
        )
        assert text.startswith(rebuilt + window[overlap:])
        rebuilt += window[overlap:]
    return rebuilt


def test_short_text_is_one_window() -> None:
    text = _code(3)
    assert split_windows([text], 1000, measure_chars, split_chars)[0] == [text]


def test_empty_text_is_one_empty_window() -> None:
    assert split_windows([""], 10, measure_chars, split_chars)[0] == [""]


def test_long_text_splits_at_lines_within_budget_and_covers_everything() -> None:
    text = _code(200)
    windows = split_windows([text], 400, measure_chars, split_chars)[0]

    assert len(windows) > 10
    assert all(len(window) <= 400 for window in windows)
    assert all(window.endswith("\n") for window in windows)  # cut at line ends only
    assert _unoverlapped(windows, text) == text
    covered = {line for window in windows for line in window.splitlines()}
    assert covered == set(text.splitlines())


def test_consecutive_windows_overlap_by_a_few_lines() -> None:
    windows = split_windows([_code(100)], 400, measure_chars, split_chars, overlap_lines=2)[0]
    for before, after in itertools.pairwise(windows):
        shared = [line for line in after.splitlines()[:2] if line in before.splitlines()]
        assert 1 <= len(shared) <= 2


def test_overlap_is_dropped_when_the_next_line_needs_the_whole_budget() -> None:
    text = "a = 1\nb = 2\n" + "c" * 99 + "\n" + "d = 4\n"
    windows = split_windows([text], 100, measure_chars, split_chars)[0]
    assert windows == ["a = 1\nb = 2\n", "c" * 99 + "\n", "d = 4\n"]


def test_no_overlap_when_asked() -> None:
    text = _code(60)
    windows = split_windows([text], 300, measure_chars, split_chars, overlap_lines=0)[0]
    assert "".join(windows) == text


def test_a_line_longer_than_the_budget_is_cut_and_nothing_lost() -> None:
    long_line = "x = [" + ", ".join(str(i) for i in range(400)) + "]\n"
    text = "def f():\n" + long_line + "    return x\n"
    windows = split_windows([text], 120, measure_chars, split_chars)[0]

    assert all(len(window) <= 120 for window in windows)
    assert _unoverlapped(windows, text) == text


def test_many_texts_split_as_each_alone_in_three_measure_calls() -> None:
    texts = [_code(3), _code(200), "", _code(41), "x = 1\n" * 90]
    calls: list[int] = []

    def counted(batch: Sequence[str]) -> list[int]:
        calls.append(len(batch))
        return measure_chars(batch)

    together = split_windows(texts, 400, counted, split_chars)
    assert len(calls) == 3  # the texts, the lines of the long ones, the planned windows
    assert together == [split_windows([text], 400, measure_chars, split_chars)[0] for text in texts]


def test_a_tokenizer_that_merges_across_lines_still_gets_windows_that_fit() -> None:
    """A window may cost more than its lines (here each line break joined to the next
    line costs 10): such a document is planned again, measuring each window for real."""

    def merging(batch: Sequence[str]) -> list[int]:
        return [len(text) + 10 * text.rstrip("\n").count("\n") for text in batch]

    text = _code(80)
    windows = split_windows([text], 400, merging, split_chars)[0]
    assert all(merging([window])[0] <= 400 for window in windows)
    assert _unoverlapped(windows, text) == text


def test_split_chars_prefers_spaces() -> None:
    parts = split_chars("alpha beta gamma delta epsilon zeta", 12)
    assert "".join(parts) == "alpha beta gamma delta epsilon zeta"
    assert all(len(part) <= 12 for part in parts)
    assert all(part.endswith(" ") for part in parts[:-1])


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        split_windows(["abc"], 0, measure_chars, split_chars)[0]
