"""The agent plugins under ``integrations/``: each manifest checked against the format its
agent documents (as JSON Schemas written from those docs), and the Claude Code hook's own
command run on a real index after an edit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import tomllib

PLUGINS = Path(__file__).parents[2] / "integrations"
SEMVER = r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$"
KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
STDIO_SERVER = {
    "type": "object",
    "required": ["command"],
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "cwd": {"type": "string"},
    },
}
CLAUDE_PLUGIN = {  # Claude Code plugins reference: .claude-plugin/plugin.json
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": KEBAB},
        "version": {"type": "string", "pattern": SEMVER},
        "description": {"type": "string"},
        "author": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "email": {"type": "string"},
                "url": {"type": "string"},
            },
        },
        "homepage": {"type": "string"},
        "repository": {"type": "string"},
        "license": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "commands": {},
        "agents": {},
        "hooks": {},
        "mcpServers": {},
    },
}
HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Notification", "Stop",
               "SubagentStop", "SessionStart", "SessionEnd", "PreCompact"]  # fmt: skip
CLAUDE_HOOKS = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": HOOK_EVENTS},
            "additionalProperties": {"type": "array", "items": {
                "type": "object", "required": ["hooks"],
                "properties": {"matcher": {"type": "string"}, "hooks": {"type": "array", "items": {
                    "type": "object", "required": ["type", "command"],
                    "properties": {"type": {"const": "command"}, "command": {"type": "string"},
                                   "timeout": {"type": "number", "exclusiveMinimum": 0}}}}}}},
        },
    },
}  # fmt: skip
MCP_JSON = {
    "type": "object",
    "required": ["mcpServers"],
    "properties": {"mcpServers": {"type": "object", "additionalProperties": STDIO_SERVER}},
}
GEMINI_EXTENSION = {  # Gemini CLI extensions: gemini-extension.json
    "type": "object",
    "required": ["name", "version"],
    "properties": {
        "name": {"type": "string", "pattern": KEBAB},
        "version": {"type": "string", "pattern": SEMVER},
        "description": {"type": "string"},
        "mcpServers": {"type": "object", "additionalProperties": STDIO_SERVER},
        "contextFileName": {"anyOf": [{"type": "string"}, {"type": "array"}]},
        "excludeTools": {"type": "array", "items": {"type": "string"}},
    },
}


def load(rel: str) -> Any:
    return json.loads((PLUGINS / rel).read_text())


def test_claude_code_plugin_manifest_servers_and_hooks() -> None:
    jsonschema.validate(load("claude-code/.claude-plugin/plugin.json"), CLAUDE_PLUGIN)
    jsonschema.validate(load("claude-code/.mcp.json"), MCP_JSON)
    jsonschema.validate(load("claude-code/hooks/hooks.json"), CLAUDE_HOOKS)
    matcher = load("claude-code/hooks/hooks.json")["hooks"]["PostToolUse"][0]["matcher"]
    assert all(re.fullmatch(matcher, tool) for tool in ("Edit", "Write", "MultiEdit"))
    assert not re.fullmatch(matcher, "Read")


def test_claude_code_skill_front_matter() -> None:
    text = (PLUGINS / "claude-code/skills/repolens/SKILL.md").read_text()
    head = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert head is not None
    fields = dict(line.split(": ", 1) for line in head.group(1).splitlines())
    assert set(fields) == {"name", "description"}
    assert re.fullmatch(r"[a-z0-9-]{1,64}", fields["name"])
    assert 0 < len(fields["description"]) <= 1024


def test_gemini_extension_and_codex_config() -> None:
    manifest = load("gemini-cli/gemini-extension.json")
    jsonschema.validate(manifest, GEMINI_EXTENSION)
    assert (PLUGINS / "gemini-cli" / manifest["contextFileName"]).is_file()
    codex = tomllib.loads((PLUGINS / "codex/config.toml").read_text())
    server = codex["mcp_servers"]["repolens"]
    assert server["command"] == "repolens" and server["args"] == ["serve"]
    assert set(server) <= {"command", "args", "env", "startup_timeout_sec", "tool_timeout_sec"}


def test_the_hook_command_reindexes_the_file_an_edit_wrote(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "REPOLENS_EMBED_PROVIDER": "none",
        "CLAUDE_PROJECT_DIR": str(tmp_path),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    (tmp_path / "app.py").write_text("def before():\n    return 1\n")
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(tmp_path)],
                   env=env, check=True, capture_output=True)  # fmt: skip
    (tmp_path / "app.py").write_text("def after_the_edit():\n    return 2\n")
    command = load("claude-code/hooks/hooks.json")["hooks"]["PostToolUse"][0]["hooks"][0]
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "cwd": str(tmp_path),
        "tool_input": {"file_path": str(tmp_path / "app.py"), "content": "..."},
    }
    done = subprocess.run(["bash", "-c", command["command"]], input=json.dumps(payload),
                          env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = subprocess.run([sys.executable, "-m", "repolens", "symbols", "after_the_edit",
                            "--project", str(tmp_path)], env=env, capture_output=True,
                           text=True)  # fmt: skip
    assert "app.py:1" in found.stdout
    quiet = subprocess.run(["bash", "-c", command["command"]], input="not json", env=env,
                           capture_output=True, text=True)  # fmt: skip
    assert quiet.returncode == 0 and "nothing to update" in quiet.stdout
