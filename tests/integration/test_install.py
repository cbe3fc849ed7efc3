"""``repolens install`` / ``uninstall`` / ``doctor`` as processes, on a real temporary home
and project: every agent's config written in its own format, merged with what was there,
idempotent, and removed exactly, round-tripped through the real parsers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from repolens.integrations.clients import CLIENTS
from repolens.resolve.languages import jsonc

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}


def repolens(home: Path, root: Path, *args: str, check: bool = True) -> Any:
    env = {**ENV, "HOME": str(home)}
    env.pop("XDG_STATE_HOME", None)
    done = subprocess.run([sys.executable, "-m", "repolens", *args, "--project", str(root),
                           "--json"], env=env, capture_output=True, text=True)  # fmt: skip
    if check:
        assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def parse(path: Path, fmt: str) -> Any:
    text = path.read_text()
    return tomllib.loads(text) if fmt == "toml" else jsonc.loads(text) if fmt == "jsonc" \
        else json.loads(text)  # fmt: skip


def servers(path: Path, fmt: str, key: tuple[str, ...]) -> Any:
    node = parse(path, fmt)
    for part in key:
        node = node.get(part, {})
    return node


EXISTING = {
    "json": '{"theme": "dark", "mcpServers": {"other": {"command": "other-server"}},'
            ' "servers": {"other": {"command": "other-server"}}}\n',
    "jsonc": '// my editor settings\n{\n  "theme": "dark", // keep me\n  "servers": {"other":'
             ' {"command": "other-server"}},\n  "context_servers": {"other": {"command":'
             ' "other-server"}},\n}\n',
    "toml": '# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n',
}  # fmt: skip


@pytest.mark.parametrize("scope", ["user", "project"])
def test_every_agent_round_trips_through_its_format(tmp_path: Path, scope: str) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    root.mkdir()
    (root / "CLAUDE.md").write_text("# Notes of mine\n")
    chosen = [c for c in CLIENTS.values() if c.config_path(scope, root, home) is not None]
    existing = {}
    for number, client in enumerate(chosen):
        path = client.config_path(scope, root, home)
        assert path is not None
        if number % 2 == 0 and not path.exists():  # half start with a config of their own
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(EXISTING[client.format])
            existing[client.name] = path.read_text()
    flag = ["--user"] if scope == "user" else []
    first = repolens(home, root, "install", *flag)
    actions = {c["agent"]: c["action"] for c in first["changes"] if c["what"] == "server"}
    assert {actions[c.name] for c in chosen} == {"add"}
    assert all(a == "skip" for name, a in actions.items() if CLIENTS[name] not in chosen)
    for client in chosen:
        path = client.config_path(scope, root, home)
        assert path is not None
        entry = servers(path, client.format, client.key)["repolens"]
        assert (
            entry["args"][-3:] == ["serve", "--project", str(root)] or entry["args"][-1] == "serve"
        )
        assert Path(entry["command"]).name in ("repolens", Path(sys.executable).name)
        if client.typed:
            assert entry["type"] == "stdio"
        if client.name in existing:
            assert servers(path, client.format, client.key)["other"] == {"command": "other-server"}
            assert (
                path.with_name(path.name + ".repolens-backup").read_text() == existing[client.name]
            )
    again = repolens(home, root, "install", *flag)
    assert {c["action"] for c in again["changes"]} - {"skip"} == {"unchanged"}
    gone = repolens(home, root, "uninstall", *flag)
    assert {c["action"] for c in gone["changes"] if c["what"] == "server"} == {"remove"}
    # an instructions file two agents share (AGENTS.md) is cleaned once, then found clean
    assert {c["action"] for c in gone["changes"]} <= {"remove", "absent"}
    for client in chosen:
        path = client.config_path(scope, root, home)
        assert path is not None
        if client.name in existing:
            before = EXISTING[client.format]
            assert parse(path, client.format) == (tomllib.loads(before) if client.format == "toml"
                                                  else jsonc.loads(before))  # fmt: skip
        else:
            assert not path.exists(), path
    assert (root / "CLAUDE.md").read_text() == "# Notes of mine\n"
    leftovers = {p.relative_to(root) for p in root.rglob("*") if ".repolens-backup" not in p.name}
    assert leftovers <= {Path("CLAUDE.md"), *(Path(n) for n in existing_dirs(existing, root))}


def existing_dirs(existing: dict[str, str], root: Path) -> set[str]:
    """Folders and files the test made itself under the project (they stay)."""
    out: set[str] = set()
    for name in existing:
        path = CLIENTS[name].config_path("project", root, root)
        if path is not None and path.is_relative_to(root):
            rel = path.relative_to(root)
            out |= {str(rel), *(str(p) for p in rel.parents if str(p) != ".")}
    return out


def test_an_entry_changed_by_the_user_is_kept_and_dry_run_writes_nothing(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    root.mkdir()
    plan = repolens(home, root, "install", "--agent", "cursor", "--dry-run")
    assert [c["action"] for c in plan["changes"]] == ["add", "add"]
    assert not (root / ".cursor").exists()
    repolens(home, root, "install", "--agent", "cursor")
    config = root / ".cursor" / "mcp.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["repolens"]["args"].append("--http")
    config.write_text(json.dumps(data))
    gone = repolens(home, root, "uninstall", "--agent", "cursor")
    kept = [c for c in gone["changes"] if c["what"] == "server"]
    assert kept[0]["action"] == "kept" and "changed since install" in kept[0]["note"]
    assert "repolens" in json.loads(config.read_text())["mcpServers"]
    assert not (root / ".cursor" / "rules" / "repolens.mdc").exists()


def test_unknown_agent_is_a_clear_error(tmp_path: Path) -> None:
    out = repolens(tmp_path, tmp_path, "install", "--agent", "emacs", check=False)
    assert "unknown agent(s) emacs" in out["error"] and "claude-code" in out["error"]


def test_doctor_finds_the_config_and_a_server_that_answers(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    before = {c["what"]: c for c in repolens(home, root, "doctor")["checks"]}
    assert before["agent config"]["level"] == "warn"
    assert before["index"]["level"] == "warn" and "repolens index" in before["index"]["detail"]
    repolens(home, root, "install", "--agent", "claude-code")
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(root)],
                   env=ENV, check=True, capture_output=True)  # fmt: skip
    checks = {c["what"]: c for c in repolens(home, root, "doctor")["checks"]}
    assert (
        checks["agent config"]["level"] == "ok"
        and "Claude Code" in checks["agent config"]["detail"]
    )
    assert checks["MCP server"]["level"] == "ok" and "tools" in checks["MCP server"]["detail"]
    assert checks["index"]["level"] == "ok"
