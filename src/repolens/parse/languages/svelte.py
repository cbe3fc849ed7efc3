"""Svelte components (``<script>``, ``<script context="module">``, ``<style>``): see ``sfc``."""

from __future__ import annotations

from repolens.parse.languages.sfc import SVELTE_EVENTS, Attributes, make_spec


def _per_instance(attrs: Attributes) -> bool:
    """The instance ``<script>`` runs for each component; ``<script context="module">``
    (Svelte 5: ``<script module>``) runs once and may export names to importers."""
    return attrs.get("context") != "module" and "module" not in attrs


SPEC = make_spec("svelte", _per_instance, kebab_tags=False, events=SVELTE_EVENTS)
