"""Svelte components (``<script>``, ``<script context="module">``, ``<style>``): see ``sfc``."""

from __future__ import annotations

from repolens.parse.languages.sfc import make_spec

SPEC = make_spec("svelte")
