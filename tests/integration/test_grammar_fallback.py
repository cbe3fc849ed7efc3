"""A language whose grammar wheel cannot be imported falls back to a reported line-level
outline: never silently to nothing, and visible in the grammar status."""

import json
import subprocess
import sys

SCRIPT = r"""
import json, sys
sys.modules["tree_sitter_ruby"] = None  # as if the wheel were not installed
from repolens.parse import grammar_status, parse_source
source = b"require 'json'\nclass Shop\n  def total\n  end\nend\n"
parsed = parse_source("lib/shop.rb", "ruby", source)
print(json.dumps({
    "status": grammar_status()["ruby"],
    "python": grammar_status()["python"],
    "symbols": [[s.kind, s.name] for s in parsed.symbols],
    "imports": [i.module for i in parsed.imports],
    "error": parsed.error,
}))
"""


def test_missing_grammar_gives_reported_line_level_outline() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert result["python"] == "ok"
    assert result["status"].startswith("fallback: line-level")
    assert ["class", "Shop"] in result["symbols"]
    assert "json" in result["imports"]
    assert "line-level extraction" in result["error"]
