"""``repolens explore NAMES...``: the longest call chain through symbols you name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, json_option, project_option
from repolens.cli.graph_common import graph_index, say, symbol_json
from repolens.present.explore import exploration_lines
from repolens.query.explore import Exploration, explore


def exploration_json(found: Exploration) -> dict[str, Any]:
    chain = None
    if found.chain is not None:
        chain = {
            "start": symbol_json(found.chain.start),
            "hops": [{**symbol_json(hop.symbol), "call_site": f"{hop.file}:{hop.line}",
                      "confidence": hop.confidence, "provenance": hop.provenance}
                     for hop in found.chain.hops],
        }  # fmt: skip
    return {
        "query": found.query,
        "named": [symbol_json(ref) for ref in found.named],
        "chain": chain,
        "off_chain": [symbol_json(ref) for ref in found.off_chain],
        "ambiguous": {w: [symbol_json(c) for c in cs] for w, cs in found.ambiguous.items()},
        "unknown": found.unknown,
    }


@click.command("explore")
@click.argument("names", nargs=-1, required=True)
@project_option
@json_option
def explore_command(names: tuple[str, ...], project_path: Path | None, as_json: bool) -> None:
    """How the symbols NAMES connect: the longest call chain through them, in call order
    ("OrderController list OrderService find"; a class then a member name means that
    member). `repolens context` answers questions; this answers "how do these connect"."""
    with graph_index(project_path, as_json) as conn:
        found = explore(conn, " ".join(names))

    def render() -> None:
        for line in exploration_lines(found):
            say(line)

    emit(exploration_json(found), as_json, render)


COMMANDS = [explore_command]
