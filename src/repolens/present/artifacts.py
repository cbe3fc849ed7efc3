"""Context artifacts for people and agents: what is indexed, search hits, and a named
artifact symbol with its text and the code it links to."""

from __future__ import annotations

import re
from collections.abc import Sequence

from repolens.index.artifacts import Refresh
from repolens.present.format import Answer, cite, numbered, plural
from repolens.query.artifact_links import ArtifactLink
from repolens.query.artifacts import ArtifactHit, ArtifactInfo, ArtifactSymbolRef
from repolens.query.symbols import FILE_KIND

MAX_LINKS_SHOWN = 6  # per artifact symbol


def render_list(out: Answer, infos: Sequence[ArtifactInfo]) -> None:
    if not infos:
        out.add("No artifacts indexed (add [[artifacts]] tables to .repolens.toml).")
    for info in infos:
        head = f"## {info.name}  ({info.path})"
        if info.description:
            head += f" — {info.description}"
        out.add_clipped(head)
        if info.error:
            out.add_clipped(f"error: {info.error}")
            continue
        kinds = ", ".join(_count(n, k) for k, n in sorted(info.symbols.items()))
        out.add_clipped(
            f"{plural(len(info.files), 'file')}, {plural(info.chunks, 'chunk')}"
            f" ({info.embedded} embedded): {kinds or 'nothing defined'}"
        )
        for file in info.files:
            if file.error:
                out.add_clipped(f"  {file.path} ({file.kind}): {file.error}")


def _count(count: int, kind: str) -> str:
    word = kind.replace("_", " ")
    consonant_y = word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u")
    return plural(count, word, word[:-1] + "ies" if consonant_y else None)


def render_refresh(out: Answer, refresh: Refresh) -> None:
    for report in refresh.reports:
        if report.error:
            out.add_clipped(f"{report.name}: error: {report.error}")
            continue
        what = (
            f"{plural(len(report.parsed), 'file')} read, {report.unchanged} unchanged,"
            f" {report.removed} removed"
        )
        if report.skipped:
            what += f", {len(report.skipped)} skipped (not OpenAPI or Swagger)"
        out.add_clipped(f"{report.name}: {what}")
        for note in report.notes:
            out.add_clipped(f"  {note}")
    if refresh.embedded:
        out.add(f"{plural(refresh.embedded, 'window')} embedded.")


def render_hits(
    out: Answer, hits: Sequence[ArtifactHit], links: dict[int, list[ArtifactLink]]
) -> None:
    """Hits, each followed by the code its operations, tables and services link to
    (``links``: hit index -> links)."""
    if not hits:
        out.add("No artifact matches.")
    for index, hit in enumerate(hits):
        title = f"## [{hit.artifact}] {cite(hit.file, hit.start_line, hit.end_line)}"
        title += f"  {hit.symbol or hit.kind}  (score {hit.score:.2f})"
        block = f"{title}\n{_block(hit.snippet.split(chr(10)), hit.start_line, _fence(hit.file))}"
        if not out.add(block):
            out.leave_out(f"{len(hits) - index} more hits", "raise `budget` or lower `limit`")
            break
        render_links(out, links.get(index, []), subjects=True)


def render_links(out: Answer, links: Sequence[ArtifactLink], *, subjects: bool = False) -> None:
    """One line per link: what it reaches, where, and the text that shows it (the line of
    use when it is not the symbol's first); ``subjects``: each line names the artifact
    symbol it starts from (a hit may hold several tables)."""
    shown: dict[str, int] = {}
    for link in links:
        count = shown[link.subject] = shown.get(link.subject, 0) + 1
        if count > MAX_LINKS_SHOWN:
            continue
        subject = f"{link.subject}: " if subjects else ""
        role = f" [{link.role}]" if link.role else ""
        at = f", line {link.line}" if link.line != link.symbol.line else ""
        out.add_clipped(
            f"  {subject}{link.relation} {_shown(link)} ({link.symbol.location}{at}){role}"
            f" — {link.evidence}"
        )
    for subject, count in shown.items():
        if count > MAX_LINKS_SHOWN:
            out.leave_out(
                f"{count - MAX_LINKS_SHOWN} more links of {subject}",
                "`repolens artifacts search --json` lists every link",
            )


def _shown(link: ArtifactLink) -> str:
    """A linked symbol's name; a file's module-level code by its path."""
    return link.symbol.file if link.symbol.kind == FILE_KIND else link.symbol.qualified_name


def render_symbol(
    out: Answer, symbol: ArtifactSymbolRef, lines: list[str], links: Sequence[ArtifactLink]
) -> None:
    """A named artifact symbol: its definition, then the code that uses it."""
    head = f"## {symbol.kind} {symbol.qualified_name} [{symbol.artifact}]"
    head += f" {cite(symbol.file, symbol.line, symbol.end_line)}"
    if not out.add(f"{head}\n{_block(lines, symbol.line, _fence(symbol.file))}"):
        out.add_clipped(head)
        out.leave_out(f"the text of {symbol.qualified_name}")
    if links:
        render_links(out, links)
    elif symbol.kind in ("operation", "table", "view", "service"):
        out.add_clipped("  no code in the index names it")


_FENCES = {"sql": "sql", "proto": "proto", "graphql": "graphql", "gql": "graphql",
           "yaml": "yaml", "yml": "yaml", "json": "json", "md": "markdown"}  # fmt: skip


def _block(lines: list[str], first_line: int, language: str) -> str:
    """A numbered block fenced by more backticks than any run inside it (docs hold
    fenced code of their own)."""
    longest = max((len(run) for line in lines for run in re.findall(r"`{3,}", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{numbered(lines, first_line)}\n{fence}"


def _fence(path: str) -> str:
    return _FENCES.get(path.rsplit(".", 1)[-1].lower(), "")
