"""Which tools a server offers and how long its answers are, by project size."""

from __future__ import annotations

import pytest

from repolens.config import ConfigError
from repolens.mcp.surface import CORE_TOOLS, ProjectSize, offered_tools

KNOWN = [*CORE_TOOLS, "routes", "flow", "deps", "diagram", "artifacts", "artifact_search"]


def offered(setting: str | tuple[str, ...], files: int, routes: bool = False) -> list[str]:
    return offered_tools(setting, KNOWN, ProjectSize(files), has_routes=routes,
                         has_artifacts=False)  # fmt: skip


def test_auto_is_the_core_below_300_files_and_everything_from_there() -> None:
    assert offered("auto", 299) == list(CORE_TOOLS)
    assert offered("auto", 299, routes=True) == [*CORE_TOOLS, "routes", "flow"]
    assert offered("auto", 300) == KNOWN
    assert offered("core", 50_000) == list(CORE_TOOLS)
    assert offered("all", 3) == KNOWN


def test_a_list_keeps_the_servers_order_and_refuses_unknown_names() -> None:
    assert offered(("node", "search"), 10) == ["search", "node"]
    with pytest.raises(ConfigError, match="unknown tool\\(s\\) serch; the tools are context"):
        offered(("search", "serch"), 10)


@pytest.mark.parametrize(("files", "short", "long"), [(12, 3_600, 6_000), (300, 6_000, 10_000),
                                                      (2_999, 6_000, 10_000),
                                                      (3_000, 9_000, 15_000)])  # fmt: skip
def test_default_budgets_grow_with_the_project_within_bounds(
    files: int, short: int, long: int
) -> None:
    size = ProjectSize(files)
    assert (size.budget(6_000), size.budget(10_000)) == (short, long)
