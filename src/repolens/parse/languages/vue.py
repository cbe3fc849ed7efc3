"""Vue single-file components (``<script>``, ``<script setup>``, ``lang="ts"``): see ``sfc``."""

from __future__ import annotations

from repolens.parse.languages.sfc import VUE_EVENTS, Attributes, make_spec


def _per_instance(attrs: Attributes) -> bool:
    """``<script setup>`` runs for each component instance; a plain ``<script>`` runs once,
    when the module is imported (its ``export default`` holds the component's options)."""
    return "setup" in attrs


SPEC = make_spec("vue", _per_instance, kebab_tags=True, events=VUE_EVENTS)
