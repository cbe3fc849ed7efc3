"""stub"""

from __future__ import annotations

from repolens.resolve.frameworks.facts import Facts, Route


def routes(facts: Facts) -> list[Route]:
    return []
