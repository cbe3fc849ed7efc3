"""How symbols, edges and call chains are written in every answer, so that all tools speak
the same compact notation: ``name (kind) path:line``, hops as ``→ name @ path:line``, and
uncertain edges marked with their provenance and confidence."""

from __future__ import annotations

from collections.abc import Sequence

from repolens.present.format import cite
from repolens.query.graph import EdgeHit, SymbolRef

CERTAIN_PROVENANCE = frozenset({"parsed", "resolved-import", "resolved-type", "framework"})


def label(sym: SymbolRef) -> str:
    """``Class.method (method) path:line``."""
    return f"{sym.qualified_name} ({sym.kind}) {cite(sym.file, sym.line)}"


def span(sym: SymbolRef) -> str:
    """``path:start-end``, the whole extent of a symbol."""
    return cite(sym.file, sym.line, sym.end_line)


def certainty(hit: EdgeHit) -> str:
    """``""`` for an edge the resolver is sure of, else ``[name-match 0.40]``."""
    if hit.provenance in CERTAIN_PROVENANCE and hit.confidence >= 0.9:
        return ""
    return f" [{hit.provenance} {hit.confidence:.2f}]"


def edge_line(hit: EdgeHit, *, site_label: str = "at") -> str:
    """One caller/callee line: the other symbol, where the relationship is written, and
    how sure the resolver is."""
    kind = "" if hit.edge_kind == "calls" else f" {hit.edge_kind}"
    return f"{label(hit.symbol)}{kind} {site_label} {cite(hit.file, hit.line)}{certainty(hit)}"


def chain(start: SymbolRef, hops: Sequence[EdgeHit]) -> str:
    """``a → b @ file:line → c @ file:line`` (each ``@`` is the call site)."""
    parts = [start.qualified_name]
    for hop in hops:
        if hop.edge_kind == "contains":
            parts.append(f"{hop.symbol.qualified_name}")
            continue
        if hop.edge_kind == "dispatch":
            parts.append(f"{hop.symbol.qualified_name} [dynamic dispatch: it overrides the above]")
            continue
        parts.append(f"{hop.symbol.qualified_name} @ {cite(hop.file, hop.line)}{certainty(hop)}")
    return " → ".join(parts)


def signature_line(sym: SymbolRef) -> str:
    """The signature when known, else the qualified name."""
    return sym.signature.strip() or sym.qualified_name
