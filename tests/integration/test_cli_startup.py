"""The CLI loads only what the command it runs needs.

Every command module is imported to build ``repolens --help``; numpy, the embedding
stack and the indexer (parsers, resolve) cost most of a second of start-up on a small
machine, so they are imported inside the commands that use them.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "repolens.embed", "repolens.index.pipeline", "repolens.resolve")


def _loaded_after(code: str) -> dict[str, bool]:
    """Which heavy modules a fresh interpreter holds after running ``code``."""
    report = f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    probe = f"import json, sys\n{code}\n{report}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_loading_the_cli_loads_no_heavy_module() -> None:
    assert _loaded_after("import repolens.cli") == dict.fromkeys(HEAVY, False)


def test_help_loads_no_heavy_module() -> None:
    code = "from repolens.cli import cli\ntry:\n    cli(['--help'])\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == dict.fromkeys(HEAVY, False)


def test_a_command_loads_only_its_own_module() -> None:
    """``repolens update`` (run by hooks and watchers) must not import the query code."""
    run_help = "try:\n    cli(['update', '--help'])\nexcept SystemExit:\n    pass"
    listing = "print(sorted(m for m in sys.modules if m.startswith('repolens.')))"
    probe = f"import sys\nfrom repolens.cli import cli\n{run_help}\n{listing}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = out.stdout.strip().splitlines()[-1]
    assert "'repolens.cli.fresh'" in loaded
    for other in ("repolens.cli.graph", "repolens.cli.analysis", "repolens.query.graph"):
        assert f"'{other}'" not in loaded
