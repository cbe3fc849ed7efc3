"""A type hierarchy as lines, one class a line, indented by its distance from the root;
the CLI and the MCP tool print the same lines."""

from __future__ import annotations

from repolens.query.hierarchy import Hierarchy, HierarchyLink


def _row(link: HierarchyLink, word: str) -> str:
    sure = "" if link.confidence >= 0.9 else f"  [~{link.confidence:.2f} {link.provenance}]"
    sym = link.symbol
    return (
        f"{'  ' * link.depth}{sym.full_name} ({sym.kind}) {sym.location}"
        f"  {word} at {link.file}:{link.line}{sure}"
    )


def hierarchy_lines(tree: Hierarchy, *, up: bool, down: bool) -> list[str]:
    """Bases first (nearest first), then subclasses; what is outside the project or
    unresolved is said, so "no subclasses" is only said when none may exist."""
    lines: list[str] = []
    if up:
        lines.append("bases and interfaces:" if tree.up or tree.outside_bases else "no bases")
        lines += [_row(link, link.edge_kind) for link in tree.up]
        lines += [f"  {b.name} ({b.reason}), base of {b.of} at {b.file}:{b.line}"
                  for b in tree.outside_bases]  # fmt: skip
    if down:
        if tree.down:
            lines.append("subclasses and implementations:")
        elif not tree.possible_subclasses:
            lines.append("no subclasses or implementations in the index")
        lines += [_row(link, "extended" if link.edge_kind == "extends" else "implemented")
                  for link in tree.down]  # fmt: skip
        if tree.possible_subclasses:
            lines.append(
                f"possible subclasses ({len(tree.possible_subclasses)} unresolved bases named"
                f" {tree.root.name}):"
            )
            lines += [f"  {b.of} at {b.file}:{b.line} ({b.reason})"
                      for b in tree.possible_subclasses]  # fmt: skip
    return lines
