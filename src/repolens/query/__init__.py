"""Queries over the index: search, graph traversals, context. Read-only."""
