"""TSX: the TypeScript spec on the TSX grammar, plus JSX patterns (see ``typescript``)."""

from repolens.parse.languages.typescript import TSX_SPEC as SPEC

__all__ = ["SPEC"]
