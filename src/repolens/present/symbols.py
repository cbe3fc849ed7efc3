"""How symbols, edges and call chains are written in every answer, so that all tools speak
the same compact notation: ``name (kind) path:line``, hops as ``→ name @ path:line``, and
uncertain edges marked with their provenance and confidence."""

from __future__ import annotations

import json
from collections.abc import Sequence

from repolens.present.format import cite
from repolens.query.graph import EdgeHit, SymbolRef

CERTAIN_PROVENANCE = frozenset({"parsed", "resolved-import", "resolved-type", "framework"})
# how each dynamic-dispatch channel's wiring site reads ("via `fn`, passed at app.py:31")
WIRED_AT = {
    "interface": "implemented at",
    "virtual": "overridden at",
    "callback": "passed at",
    "signal": "connected at",
    "table": "defined at",
    "injection": "registered at",
    "depends": "declared at",
    "render": "state set at",
    "handler": "bound at",
    "event": "registered at",
    "stored": "registered at",
    "family": "named at",
}


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


def wiring(hit: EdgeHit) -> str:
    """For a synthesized edge, what the call went through and where that was wired
    (`` via `on_update` (signal), connected at app.py:31``); "" for any other edge."""
    return wiring_label(hit.metadata)


def wiring_label(metadata: str) -> str:
    """``wiring`` from an edge's stored metadata (a flow node's, a hit's)."""
    try:
        meta = json.loads(metadata) if metadata else None
    except ValueError:
        return ""
    if not isinstance(meta, dict) or "channel" not in meta:
        return ""
    channel = str(meta["channel"])
    where = WIRED_AT.get(channel, "wired at")
    return f" via `{meta.get('via', '')}` ({channel}), {where} {meta.get('site', '')}"


def edge_line(hit: EdgeHit, *, site_label: str = "at") -> str:
    """One caller/callee line: the other symbol, where the relationship is written, how
    sure the resolver is, and for a dynamic-dispatch edge how it was wired."""
    kind = "" if hit.edge_kind == "calls" else f" {hit.edge_kind}"
    where = cite(hit.file, hit.line)
    return f"{label(hit.symbol)}{kind} {site_label} {where}{certainty(hit)}{wiring(hit)}"


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
        where = cite(hop.file, hop.line)
        parts.append(f"{hop.symbol.qualified_name} @ {where}{certainty(hop)}{wiring(hop)}")
    return " → ".join(parts)


def signature_line(sym: SymbolRef) -> str:
    """The signature when known, else the qualified name."""
    return sym.signature.strip() or sym.qualified_name
