"""A ``Diagram`` as Mermaid flowchart text, valid whatever the names hold.

Names come from the code being explored, so nothing of them reaches the syntax unquoted:
node and group ids are generated (``n3``, ``g1``), every label is a quoted string with the
characters Mermaid would read as markup written as its entity codes (``#quot;``, ``#lt;``),
and the notes ride along as ``%%`` comments, which renderers skip. A picture pasted into a
Markdown file or piped to ``mmdc`` then draws exactly the names in the index.
"""

from __future__ import annotations

from repolens.present.diagram import Diagram

CYCLE = "#d62728"
# Fill colours per language for file boxes: light enough for dark text on either theme.
LANGUAGE_FILLS = {
    "python": "#dbe8f7",
    "typescript": "#d9ecf2",
    "tsx": "#d9ecf2",
    "javascript": "#fbf1c7",
    "jsx": "#fbf1c7",
    "go": "#d5f1f3",
    "java": "#f7e0d0",
    "rust": "#f2dcd2",
    "c": "#e3e3ef",
    "cpp": "#e6dcef",
    "csharp": "#e0efd9",
    "php": "#e4e0f2",
    "ruby": "#f6d8dc",
    "kotlin": "#ece0f7",
    "swift": "#fbe1d2",
}
_ESCAPES = {
    "#": "#35;",
    '"': "#quot;",
    "<": "#lt;",
    ">": "#gt;",
    "&": "#amp;",
    "`": "#96;",
    "|": "#124;",
    "\n": " ",
    "\r": " ",
}


def quote(text: str) -> str:
    """``text`` as a Mermaid quoted label; long names are cut in the middle."""
    if len(text) > 80:
        text = text[:38] + "…" + text[-38:]
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'


def render(diagram: Diagram) -> str:
    """Mermaid ``flowchart`` text for ``diagram``."""
    ids = {key: f"n{number}" for number, key in enumerate(diagram.nodes)}
    lines = [f"flowchart {diagram.direction}", f"  %% repolens: {_comment(diagram.title)}"]
    lines += [f"  %% {_comment(note)}" for note in diagram.notes]
    groups: dict[str, list[str]] = {}
    for key, node in diagram.nodes.items():
        groups.setdefault(node.group, []).append(key)
    for number, (group, keys) in enumerate(sorted(groups.items())):
        indent = "  "
        if group:
            lines.append(f"  subgraph g{number}[{quote(group)}]")
            indent = "    "
        for key in keys:
            node = diagram.nodes[key]
            shape = ("[[", "]]") if "folder" in node.tags else ("[", "]")
            lines.append(f"{indent}{ids[key]}{shape[0]}{quote(node.label)}{shape[1]}")
        if group:
            lines.append("  end")
    cycle_links: list[int] = []
    for number, edge in enumerate(diagram.edges):
        arrow = "-->" if edge.sure else "-.->"
        label = f"|{quote(edge.label)}|" if edge.label else ""
        lines.append(f"  {ids[edge.source]} {arrow}{label} {ids[edge.target]}")
        if edge.cycle:
            cycle_links.append(number)
    lines += _styles(diagram, ids, cycle_links)
    return "\n".join(lines) + "\n"


def _styles(diagram: Diagram, ids: dict[str, str], cycle_links: list[int]) -> list[str]:
    tagged: dict[str, list[str]] = {}
    for key, node in diagram.nodes.items():
        for tag in node.tags:
            tagged.setdefault(tag, []).append(ids[key])
    lines: list[str] = []
    for tag in sorted(tagged):
        style = _class_style(tag)
        if style:
            name = tag.replace("-", "_")
            lines.append(f"  classDef {name} {style}")
            lines.append(f"  class {','.join(tagged[tag])} {name}")
    if cycle_links:
        numbers = ",".join(str(n) for n in cycle_links)
        lines.append(f"  linkStyle {numbers} stroke:{CYCLE},stroke-width:2px")
    return lines


def _class_style(tag: str) -> str:
    if tag == "cycle":
        return f"stroke:{CYCLE},stroke-width:3px"
    if tag == "root":
        return "stroke-width:3px,font-weight:bold"
    if tag == "folder":
        return "fill:#eeeeee,stroke:#888888"
    if tag.startswith("lang-"):
        fill = LANGUAGE_FILLS.get(tag[5:])
        return f"fill:{fill}" if fill else ""
    return ""


def _comment(text: str) -> str:
    """A note as one comment line (``%%`` ends at the line's end; ``}%%`` would be read
    as the end of a directive)."""
    return " ".join(text.split()).replace("%%", "% %")
