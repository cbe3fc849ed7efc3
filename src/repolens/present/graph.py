"""Rendering graph answers: callers, callees, impact, file dependencies, cycles, dead code
and statistics.

Each says how sure it is (edge provenance and confidence) and separates "none" from
"unknown": an empty caller list is followed by the unresolved references that carry the
symbol's name, because those may be calls to it (principle 3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from repolens.present.format import Answer, cite, clip, plural
from repolens.present.symbols import edge_line, label, wiring_label
from repolens.query.graph import DeadCodeReport, EdgeHit, FileDeps, ImportLink, SymbolRef
from repolens.query.impact import ImpactHit, ImpactResult
from repolens.query.symbols import is_test_code

FOREIGN = ("builtin", "external")
CALL_KINDS = ("calls", "instantiates")
VARIABLE_KINDS = ("variable", "constant")
TESTS_DOMINATE_AT = 8  # this many test uses, and more than half: counted, not listed
TEST_FILES_NAMED = 5
T = TypeVar("T")
UNINDEXED_READS = (
    "reads of a variable inside other expressions (operators, conditions, f-strings)"
    " are not indexed"
)


def split_tests(
    items: Sequence[T], symbol_of: Callable[[T], SymbolRef], include: bool | None
) -> tuple[list[T], list[T]]:
    """``items`` to list, and the tests among them to count instead. ``include``: true
    lists every item, false counts the tests, ``None`` counts them only when they
    dominate (``TESTS_DOMINATE_AT`` or more, and more than half): a symbol whose 53
    callers are 41 tests is told by its 12 others."""
    if include:
        return list(items), []
    tests = [item for item in items if is_test_code(symbol_of(item))]
    dominate = len(tests) >= TESTS_DOMINATE_AT and 2 * len(tests) > len(items)
    if not tests or (include is None and not dominate):
        return list(items), []
    return [item for item in items if not is_test_code(symbol_of(item))], tests


def tests_line(files: Sequence[str], what: str) -> str:
    """``41 test callers, not listed: tests/test_app.py 30, tests/test_cli.py 11``."""
    counts = Counter(files).most_common()
    named = ", ".join(f"{path} {n}" for path, n in counts[:TEST_FILES_NAMED])
    more = (
        f", … {plural(len(counts) - TEST_FILES_NAMED, 'more file')}"
        if len(counts) > TEST_FILES_NAMED
        else ""
    )
    return f"{plural(len(files), what)}, not listed: {named}{more}"


def render_test_summary(out: Answer, files: Sequence[str], what: str) -> None:
    """The tests ``split_tests`` counted: how many, in which files, how to list them."""
    if files:
        out.add_clipped(tests_line(files, what))
        out.leave_out(plural(len(files), what), "include_tests=true lists them")


def add_lines(out: Answer, lines: Sequence[str], what: str, hint: str) -> bool:
    """Add each line while it fits; on the first that does not, record the rest as left
    out (``what`` names them in the plural: "3 more callers"). True when all fitted."""
    for index, line in enumerate(lines):
        if not out.add_clipped(line):
            out.leave_out(f"{len(lines) - index} more {what}", hint)
            return False
    return True


def render_edges(
    out: Answer, hits: Sequence[EdgeHit], *, what: str, hint: str, more: bool, cap: int = 10_000
) -> None:
    """One line per hit (the other symbol, the site, the certainty)."""
    shown = hits[:cap]
    if not hits:
        out.add("- none resolved")
        return
    site = "at" if what.startswith("caller") else "called at"
    lines = [f"- {edge_line(h, site_label=site)}" for h in shown]
    done = add_lines(out, lines, what, "raise budget")
    if done and (len(hits) > cap or more):
        extra = f"{len(hits) - cap} more {what}" if len(hits) > cap else f"more {what}"
        out.leave_out(extra, hint)


def render_possible_callers(out: Answer, refs: Sequence[Mapping[str, object]], name: str) -> None:
    """Unresolved references carrying ``name``: the reason "no callers" is not certain."""
    if not refs:
        return
    out.add(
        f"Possible callers ({len(refs)} unresolved references named '{name}'; the"
        " resolver could not tell whether they reach this symbol):"
    )
    lines = [f"- {_ref_text(r)}" + (f" in {r['source']}" if r.get("source") else "") for r in refs]
    add_lines(out, lines, "possible callers", "raise budget")


def caller_gaps(sym: SymbolRef, known: int, maybe: int) -> list[str]:
    """Why a callers answer may not hold every use, so it never ends "complete" when
    that is not known: unresolved references carrying the name, reads the index does not
    record (a variable's), and for a symbol with no known use at all, dynamic ones."""
    gaps = []
    if maybe:
        gaps.append(f"{plural(maybe, 'unresolved reference')} named '{sym.name}' may reach it")
    if sym.kind in VARIABLE_KINDS:
        gaps.append(UNINDEXED_READS)
    if not known and not maybe:
        gaps.append("uses by dynamic means (getattr, registries) or from outside the project")
    return gaps


def render_unresolved(out: Answer, refs: Sequence[Mapping[str, object]]) -> None:
    """Outgoing calls the resolver could not connect: unknown ones listed (the graph may
    be missing an edge there), builtin/external ones counted by name. Plain references
    (a variable read) are not calls and are left out."""
    calls = [r for r in refs if r["kind"] in CALL_KINDS]
    unknown = [r for r in calls if r["reason"] not in FOREIGN]
    foreign = [r for r in calls if r["reason"] in FOREIGN]
    if unknown:
        out.add(f"Unresolved ({len(unknown)}; targets unknown, the graph may miss edges here):")
        add_lines(
            out, [f"- {_ref_text(r)}" for r in unknown], "unresolved references", "raise budget"
        )
    if foreign:
        names = sorted({str(r["name"]) for r in foreign})
        shown = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
        out.add_clipped(f"Outside the project ({len(foreign)} builtin/external uses): {shown}")


def _ref_text(ref: Mapping[str, object]) -> str:
    receiver = f"{ref['receiver']}." if ref.get("receiver") else ""
    where = cite(str(ref["file"]), int(str(ref["line"])))
    return f"{receiver}{ref['name']} at {where} ({ref['reason']})"


def render_impact(
    out: Answer, result: ImpactResult, hits: Sequence[ImpactHit] | None = None
) -> None:
    """Dependents grouped by file, nearest first (``hits``: those of ``result`` to list,
    when not all)."""
    groups: dict[str, list[ImpactHit]] = {}
    for hit in result.hits if hits is None else hits:
        groups.setdefault(hit.symbol.file, []).append(hit)
    for index, (path, hits) in enumerate(groups.items()):
        lines = [f"{path}"]
        for hit in hits:
            sure = "" if hit.confidence >= 0.9 else f" [confidence {hit.confidence:.2f}]"
            lines.append(
                f"  depth {hit.depth}: {hit.symbol.qualified_name} ({hit.symbol.kind})"
                f" :{hit.symbol.line} — {hit.edge_kind} at {cite(hit.file, hit.line)}"
                f"{sure}{wiring_label(hit.metadata)}"
            )
        block = "\n".join(lines)
        if not out.add(block) and not out.add_clipped(block):
            rest = sum(len(h) for h in list(groups.values())[index:])
            out.leave_out(
                f"{plural(rest, 'dependent')} in {plural(len(groups) - index, 'file')}",
                "raise budget, or lower depth",
            )
            break
    if result.truncated:
        out.leave_out("dependents beyond the limit", "raise limit")
    if result.frontier:
        out.leave_out(
            f"dependents of {plural(result.frontier, 'symbol')} at depth {result.depth}",
            "raise depth",
        )


def render_deps(out: Answer, deps: FileDeps) -> None:
    sections = (
        (
            "Imports (project files)",
            deps.imports,
            lambda i: f"- :{i.line} {_imported(i)} → {i.target}",
        ),
        (
            "Imports outside the project or unresolved",
            deps.unresolved,
            lambda i: f"- :{i.line} {_imported(i)}",
        ),
        ("Imported by", deps.importers, lambda i: f"- {cite(i.file, i.line)} {_imported(i)}"),
    )
    for title, links, fmt in sections:
        out.add(f"\n## {title} ({len(links)})")
        if not links:
            out.add("- none")
        add_lines(out, [fmt(link) for link in links], title.lower(), "raise budget")


def _imported(link: ImportLink) -> str:
    return f"{link.module}.{link.name}" if link.name else link.module


def render_cycles(
    out: Answer, cycles: Sequence[list[str]], links: Mapping[int, Sequence[ImportLink]]
) -> None:
    for number, files in enumerate(cycles, start=1):
        lines = [f"{number}. " + " → ".join([*files, files[0]])]
        lines += [
            f"   {cite(i.file, i.line)} imports {_imported(i)}" for i in links.get(number, [])
        ]
        if not out.add("\n".join(lines)) and not out.add_clipped(lines[0]):
            out.leave_out(plural(len(cycles) - number + 1, "cycle"), "raise budget")
            return


def render_dead(out: Answer, report: DeadCodeReport) -> None:
    for title, refs, total in (
        ("Unused (nothing in the project refers to them)", report.dead, report.total_dead),
        (
            "Possibly unused (unresolved references carry their names)",
            report.possibly,
            report.total_possibly,
        ),
    ):
        out.add(f"\n## {title}: {total}")
        lines = [
            f"- {label(r)}" + (f" — {report.why[r.id]}" if r.id in report.why else "") for r in refs
        ]
        done = add_lines(out, lines, "symbols", "raise budget")
        if done and total > len(refs):
            out.leave_out(f"{total - len(refs)} more", "raise limit")
    if report.unparsed_files:
        files = ", ".join(report.unparsed_files[:5])
        out.note(
            f"{plural(len(report.unparsed_files), 'file')} failed to parse ({files}…):"
            " uses in them are unknown"
        )


def render_mapping(out: Answer, data: Mapping[str, Any], indent: str = "") -> bool:
    """Nested dicts and lists as compact indented lines; False once the budget ran out."""
    for key, value in data.items():
        if (
            isinstance(value, Mapping)
            and value
            and all(not isinstance(v, Mapping | list) for v in value.values())
        ):
            text = ", ".join(f"{k} {v}" for k, v in value.items())
            line = f"{indent}{key}: {text}"
        elif isinstance(value, Mapping):
            if not out.add_clipped(f"{indent}{key}:"):
                return False
            if not render_mapping(out, value, indent + "  "):
                return False
            continue
        elif isinstance(value, list):
            if not out.add_clipped(f"{indent}{key}:"):
                return False
            for item in value:
                text = (
                    ", ".join(f"{k} {v}" for k, v in item.items())
                    if isinstance(item, Mapping)
                    else str(item)
                )
                if not out.add_clipped(f"{indent}- {text}"):
                    return False
            continue
        else:
            line = f"{indent}{key}: {value}"
        if not out.add_clipped(clip(line, 400)):
            return False
    return True


def symbol_title(sym: SymbolRef) -> str:
    return f"{sym.qualified_name} ({sym.kind}) — {cite(sym.file, sym.line, sym.end_line)}"
