"""A diff's consequences as lines: what changed, what depends on it, which tests to run."""

from __future__ import annotations

from repolens.present.format import cite, plural
from repolens.query.affected import Affected


def affected_lines(found: Affected) -> list[str]:
    lines = [f"# Changed: {plural(len(found.changed), 'symbol')}"]
    for item in found.changed:
        sym = item.symbol
        lines.append(f"- {sym.qualified_name} ({sym.kind}) {cite(sym.file, sym.line)}"
                     f" — {plural(len(item.lines), 'changed line')}")  # fmt: skip
    lines += [f"- deleted file: {path}" for path in found.deleted]
    if found.unindexed:
        lines.append("Not in the index (new, or not indexed yet: `repolens update`): "
                     + ", ".join(found.unindexed))  # fmt: skip
    lines.append(f"\n# Affected: {plural(len(found.dependents), 'dependent')}, nearest first")
    for hit in found.dependents:
        sure = "" if hit.confidence >= 0.9 else f" [~{hit.confidence:.2f}]"
        lines.append(f"- depth {hit.depth}: {hit.symbol.qualified_name} ({hit.symbol.kind})"
                     f" {cite(hit.symbol.file, hit.symbol.line)} — {hit.edge_kind} at"
                     f" {cite(hit.file, hit.line)}{sure}")  # fmt: skip
    if found.truncated:
        lines.append("… more dependents past the limit; narrow the diff or lower --depth")
    lines.append(f"\n# Tests to run: {len(found.tests)}")
    lines += [f"- {t.qualified_name} {cite(t.file, t.line)}" for t in found.tests]
    if not found.tests:
        lines.append("- none reaches the change in the graph (tests may still cover it"
                     " dynamically)")  # fmt: skip
    return lines
