"""Vue single-file components (``<script>``, ``<script setup>``, ``lang="ts"``): see ``sfc``."""

from __future__ import annotations

from repolens.parse.languages.sfc import make_spec

SPEC = make_spec("vue")
