"""What resolving a reference gives, in the records the context remembers.

They sit below the context (which memoises them) and the ladder and name match (which
make them), so that the context needs neither of its users.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from repolens.resolve.base import Value
from repolens.resolve.project import Sym

Placed = tuple[Sym, int, str]  # a candidate, its tier, its file's path without extension


@dataclass(frozen=True, slots=True)
class Hit:
    """One edge a reference makes."""

    target: Sym
    kind: str
    confidence: float
    provenance: str
    metadata: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    hits: tuple[Hit, ...] = ()
    reason: str = ""  # why there are no hits
    # edges the reference makes besides its answer (the module-level variable its
    # receiver starts with): written, but they do not make the reference resolved
    uses: tuple[Hit, ...] = ()


@functools.cache
def unresolved(reason: str) -> Outcome:
    """The outcome of a reference without edges: one object per reason, as most
    references end in one of a handful of reasons and each answer is remembered."""
    return Outcome(reason=reason)


@dataclass(frozen=True, slots=True)
class Guess:
    """The guess for a name referred to from a file (a function of the file, the name, the
    reference kind and whether it is a method call), remembered: a few names recur
    thousands of times. A reference from inside a candidate leaves that one out (it is no
    answer to itself); a reference's enclosing symbol is in its own file, so only there
    can a candidate be left out, and only then are the candidates kept."""

    value: Value  # the answer from outside every candidate
    own: tuple[int, ...]  # the candidates in the referring file
    placed: list[Placed]  # the candidates (in the project's symbol order) if `own` or a tie
