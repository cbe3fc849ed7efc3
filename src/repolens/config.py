"""Settings from defaults, ``.repolens.toml`` at the project root, and ``REPOLENS_*``.

Every setting has one name: ``key`` in the file, ``REPOLENS_KEY`` in the environment
(environment wins). Each value is validated where it is read, so a typo fails loudly with
the key, the value and what is allowed, instead of surfacing later as odd behaviour.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from repolens.readfile import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_FILE = ".repolens.toml"
MAX_CONFIG_BYTES = 1 << 20  # a settings file; anything larger is a mistake, not settings
ENV_PREFIX = "REPOLENS_"
PROJECT_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")


class ConfigError(Exception):
    """A setting has a value repolens cannot use."""


class NotAllowedError(ValueError):
    """A value outside a set known only at run time; ``allowed`` says what is allowed."""

    def __init__(self, value: Any, allowed: str) -> None:
        super().__init__(value)
        self.allowed = allowed


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One setting: its default, how to read it, and what is allowed (for messages)."""

    name: str
    default: Any
    parse: Callable[[Any], Any]
    allowed: str
    help: str
    env: str = ""  # the environment variable, when not REPOLENS_<NAME>

    @property
    def env_key(self) -> str:
        return self.env or ENV_PREFIX + self.name.upper()


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise ValueError(value)


def _positive_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    number = int(value)
    if number <= 0:
        raise ValueError(value)
    return number


def _non_negative_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    number = int(value)
    if number < 0:
        raise ValueError(value)
    return number


def _optional_positive_int(value: Any) -> int | None:
    return None if value in (None, "", 0, "0") else _positive_int(value)


def _choice(*options: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in options:
            raise ValueError(value)
        return text

    return parse


def _optional_text(value: Any) -> str | None:
    """A text that may be set empty on purpose (an empty prefix); unset is ``None``."""
    return None if value is None else _text(value)


def _search_limit(value: Any) -> int:
    number = _positive_int(value)
    if number > 200:
        raise ValueError(value)
    return number


def _chunk_lines(value: Any) -> int:
    number = _positive_int(value)
    if not 10 <= number <= 60:
        raise ValueError(value)
    return number


def _runtime(value: Any) -> str:
    """A local embedding runtime's name, checked by the one list of them (imported only
    when a setting names one: the embed package brings numpy)."""
    from repolens.embed.base import EmbeddingError
    from repolens.embed.runtimes import parse_runtime

    try:
        runtime = parse_runtime(str(value))
    except EmbeddingError:
        raise ValueError(value) from None
    return "auto" if runtime is None else runtime.name


def _text(value: Any) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ValueError(value)
    return str(value)


def _optional_project_id(value: Any) -> str | None:
    if value in (None, ""):
        return None
    text = str(value)
    if not PROJECT_ID_PATTERN.match(text):
        raise ValueError(value)
    return text


def _string_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValueError(value)


def _extensions(value: Any) -> dict[str, str]:
    """``{".foo": "python"}`` in the file; ``.foo:python,.bar:ruby`` in the environment and
    on the command line, where a bare ``.tpl`` is indexed as text (chunked for search)."""
    if isinstance(value, str):
        pairs = [part.split(":", 1) for part in value.split(",") if part.strip()]
        value = {pair[0].strip(): pair[1].strip() if len(pair) == 2 else "text" for pair in pairs}
    if not isinstance(value, dict):
        raise ValueError(value)
    result = {}
    for ext, lang in value.items():
        if not isinstance(ext, str) or not isinstance(lang, str) or not ext.startswith("."):
            raise ValueError(value)
        result[ext.lower()] = lang.lower()
    if result:
        from repolens.discover.languages import known_languages  # only when some are set

        known = known_languages()
        for ext, lang in result.items():
            if lang not in known:
                close = difflib.get_close_matches(lang, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise NotAllowedError(
                    value,
                    f"a known language for {ext!r}, not {lang!r}{hint}; the languages are"
                    f" {', '.join(sorted(known))}",
                )
    return result


def _project_paths(value: Any) -> tuple[str, ...]:
    """Paths of linked projects: a list in the file, ``os.pathsep``-separated in the
    environment (as ``PATH`` is). Kept as written: each is relative to the project root."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(os.pathsep) if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value):
        return tuple(item.strip() for item in value)
    raise ValueError(value)


@dataclass(frozen=True, slots=True)
class ArtifactSpec:
    """One ``[[artifacts]]`` table: a schema, an API spec or docs to search beside the code.
    ``path`` is as written (a file or folder, relative to the project root); where it leads
    is checked when the artifact is read, against the root it must stay inside."""

    name: str
    path: str
    description: str = ""


ARTIFACT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _artifacts(value: Any) -> tuple[ArtifactSpec, ...]:
    """``[[artifacts]]`` tables in the file; a JSON array of the same in the environment."""
    if isinstance(value, str):
        import json  # only when the environment sets artifacts

        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError(value) from None
    if not isinstance(value, list):
        raise ValueError(value)
    specs: list[ArtifactSpec] = []
    for table in value:
        if not isinstance(table, dict) or set(table) - {"name", "path", "description"}:
            raise ValueError(value)
        name, path, description = table.get("name"), table.get("path"), table.get("description", "")
        if not isinstance(name, str) or not ARTIFACT_NAME.match(name):
            raise NotAllowedError(value, f"a name of letters, digits, '_', '.', '-' (not {name!r})")
        if not isinstance(path, str) or not path.strip() or not isinstance(description, str):
            raise NotAllowedError(
                value, f"a path (text) for artifact {name!r}, and a text description"
            )
        if any(spec.name == name for spec in specs):
            raise NotAllowedError(value, f"one artifact per name ({name!r} is given twice)")
        specs.append(ArtifactSpec(name, path.strip(), description.strip()))
    return tuple(specs)


TOOL_SETS = ("auto", "core", "all")


def _tool_set(value: Any) -> str | tuple[str, ...]:
    """``auto`` / ``core`` / ``all``, or the names of the tools to offer (a list in the
    file, comma-separated in the environment); the names are checked by the server,
    which knows its tools."""
    if isinstance(value, str) and value.strip().lower() in TOOL_SETS:
        return value.strip().lower()
    names = _string_list(value)
    if not names:
        raise ValueError(value)
    return names


RESUME_MODES = ("current", "all", "off")


def _resume_mode(value: Any) -> str | tuple[str, ...]:
    """``current`` / ``all`` / ``off``, or a list of project paths; ``true`` and ``false``
    (the setting's first form) mean ``current`` and ``off``."""
    if isinstance(value, list):
        return _string_list(value)
    if isinstance(value, bool):
        return "current" if value else "off"
    if not isinstance(value, str):
        raise ValueError(value)
    text = value.strip()
    if text.lower() in RESUME_MODES:
        return text.lower()
    with contextlib.suppress(ValueError):
        return "current" if _bool(text) else "off"
    paths = _string_list(text)  # the environment's form: ../lib,../tool
    if not paths or not all("/" in path or path == "." for path in paths):
        raise ValueError(value)  # a misspelt mode is an error, not a path
    return paths


SPECS: tuple[SettingSpec, ...] = (
    SettingSpec("project_id", None, _optional_project_id, "letters, digits, '_' and '-'",
                "Explicit project id (default: a short hash of the root path)."),
    SettingSpec("branch_aware", False, _bool, "true or false",
                "Keep one index per git branch (id suffixed with the branch)."),
    SettingSpec("shared_store", True, _bool, "true or false",
                "Share parsed files and vectors with the other worktrees and branches of"
                " this git repository (a store in the user's state dir), so that what is"
                " identical is parsed and embedded once."),
    SettingSpec("data_dir", None, lambda v: Path(_text(v)).expanduser() if v else None,
                "a directory path", "Where indexes live (default: <root>/.repolens)."),
    SettingSpec("max_file_size", 1_000_000, _positive_int, "a positive number of bytes",
                "Files larger than this are skipped (counted as too_large)."),
    SettingSpec("extra_extensions", {}, _extensions,
                'a table like {".foo" = "python"} (or ".foo:python,.tpl")',
                "Extra file extensions mapped to a language."),
    SettingSpec("ignore", (), _string_list, "a list of gitignore-style patterns",
                "Extra ignore patterns on top of .gitignore and .repolensignore."),
    SettingSpec("workers", 0, _non_negative_int, "0 (one per core) or a positive number",
                "Processes that parse and resolve (1: one process, least memory);"
                " at most one per usable core unless force_workers."),
    SettingSpec("force_workers", False, _bool, "true or false",
                "Start `workers` processes even where there are fewer usable cores."),
    SettingSpec("resolve_resident_symbols", 150_000, _non_negative_int, "a number of symbols",
                "Symbols up to which resolution holds the whole project in memory (fastest);"
                " past it, each file's rows are read from the index as needed, so memory"
                " stays bounded as the project grows."),
    SettingSpec("embed_provider", "local", _choice("local", "ollama", "openai", "gemini", "none"),
                "local, ollama, openai, gemini or none", "Embedding provider for semantic search."),
    SettingSpec("embed_runtime", "auto", _runtime,
                "auto, numpy, openvino-bf16, onnxruntime-int8, openvino-fp32, onnxruntime-fp32,"
                " onnxruntime-cuda-fp32 or openvino-gpu-fp16",
                "What runs the local model (auto: the fastest this machine offers)."),
    SettingSpec("embed_model", "", _text, "a model name", "Embedding model (provider default)."),
    SettingSpec("embed_base_url", "", _text, "an http(s) URL",
                "Base URL of the Ollama or OpenAI-compatible server."),
    SettingSpec("embed_api_key", "", _text, "a string",
                "API key for an OpenAI-compatible server or Gemini (prefer the environment)."),
    SettingSpec("embed_dims", None, _optional_positive_int, "a positive integer",
                "Expected embedding dimensions (checked against the server)."),
    SettingSpec("embed_query_prefix", None, _optional_text, "a string (may be empty)",
                "Text put before each search query (default: what the model was trained with)."),
    SettingSpec("embed_document_prefix", None, _optional_text, "a string (may be empty)",
                "Text put before each chunk embedded (default: the model's own)."),
    SettingSpec("chunk_max_lines", 60, _chunk_lines, "a number of lines from 10 to 60",
                "Longest chunk (search result and embedding unit); smaller is finer-grained"
                " search. Changing it re-chunks every file on the next run."),
    SettingSpec("mcp_tools", "auto", _tool_set,
                "auto, core, all, or a list of tool names",
                "Tools `serve` offers: core (the few most questions need), all, or the ones"
                " listed; auto: core on a small project, all on a larger one."),
    SettingSpec("search_limit", 10, _search_limit, "a number from 1 to 200",
                "Results a search returns when the call does not say."),
    SettingSpec("log_level", "warning", _choice("debug", "info", "warning", "error"),
                "debug, info, warning or error", "How much repolens logs."),
    SettingSpec("log_file", None, lambda v: Path(_text(v)).expanduser() if v else None,
                "a file path",
                "Also log there, as JSON lines, rotated at 5 MB (3 kept); a relative path is"
                " under the project root. Default: no file (stderr only)."),
    SettingSpec("watch", "auto", _choice("auto", "manual", "off"), "auto, manual or off",
                "Whether `serve` watches files and updates the index."),
    SettingSpec("auto_resume", "current", _resume_mode,
                "current, all, off, or a list of project paths ('../lib')",
                "Which interrupted indexes a server resumes when it starts: its own project"
                " (current), every project it serves (all), the listed ones, or none."),
    SettingSpec("links", (), _project_paths,
                f"a list of project paths (['../shared-lib']; '{os.pathsep}'-separated in"
                " the environment)",
                "Linked projects: searched together by `search --linked`, served by `serve`,"
                " and their symbols resolve this project's imports of their packages.",
                env="REPOLENS_LINKED_PROJECTS"),
    SettingSpec("artifacts", (), _artifacts,
                "[[artifacts]] tables with name, path (inside the project) and description",
                "Context artifacts: SQL schemas, OpenAPI specs, GraphQL and protobuf schemas,"
                " Markdown docs, searched beside the code and linked to it."),
    SettingSpec("search_backend", "embedded", _choice("embedded", "qdrant"),
                "embedded or qdrant",
                "Where search reads chunks: this index (embedded) or a Qdrant collection."),
    SettingSpec("qdrant_url", "", _text, "an http(s) URL, local:DIR or edge:DIR",
                "Qdrant server (https:// for TLS); local:DIR is the client's embedded mode,"
                " edge:DIR Qdrant's engine in this process (qdrant-edge-py)."),
    SettingSpec("qdrant_api_key", "", _text, "a string",
                "API key for the Qdrant server (prefer the environment)."),
    SettingSpec("qdrant_collection", "repolens", _optional_project_id,
                "letters, digits, '_' and '-'", "The collection shared by many projects."),
    SettingSpec("qdrant_tenant", None, _optional_project_id, "letters, digits, '_' and '-'",
                "This project's name in the collection (default: project_id)."),
    SettingSpec("qdrant_ca_bundle", "", _text, "a file path",
                "CA certificates that verify the Qdrant server's TLS certificate."),
    SettingSpec("graph_share", None, lambda v: Path(_text(v)).expanduser() if v else None,
                "a directory path",
                "A folder CI and laptops share: `index --push` publishes the graph there,"
                " and `index` fetches it when the local index is missing or empty."),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Settings:
    """The effective settings, plus where each came from (default, file or env)."""

    values: Mapping[str, Any]
    sources: Mapping[str, str] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


def user_state_dir() -> Path:
    """repolens's folder in the user's state directory (``$XDG_STATE_HOME``, else
    ``~/.local/state``): the registry of indexes and the installer's manifest live there."""
    state = os.environ.get("XDG_STATE_HOME")
    return (Path(state) if state else Path.home() / ".local" / "state") / "repolens"


def usable_cores() -> int:
    """Cores this process may run on (respects CPU affinity, e.g. in containers): what
    ``workers = 0`` means, and how many threads the local embedding model runs."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _validate(spec: SettingSpec, raw: Any, origin: str) -> Any:
    try:
        return spec.parse(raw)
    except (ValueError, TypeError) as exc:
        allowed = exc.allowed if isinstance(exc, NotAllowedError) else spec.allowed
        raise ConfigError(
            f"invalid {spec.name} = {raw!r} (from {origin}): expected {allowed}"
        ) from None


def parse_setting(name: str, raw: Any, origin: str) -> Any:
    """``raw`` read and validated as setting ``name`` would be, for values given per call
    (a command option, a tool argument); errors name ``origin``."""
    spec = next(spec for spec in SPECS if spec.name == name)
    return _validate(spec, raw, origin)


def read_config_file(root: Path) -> dict[str, Any]:
    """The table in ``.repolens.toml``, or ``{}`` when there is none."""
    path = root / CONFIG_FILE
    try:
        text = read_regular(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:  # a FIFO or device is refused unread: it could block for ever
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path}: not UTF-8 ({exc.reason})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def load_settings(root: Path, environ: Mapping[str, str] | None = None) -> Settings:
    """Merge defaults, the project's file and the environment, validating every value."""
    env = os.environ if environ is None else environ
    file_values = read_config_file(root)
    known = {spec.name for spec in SPECS}
    unknown = sorted(set(file_values) - known)
    if unknown:
        raise ConfigError(
            f"unknown setting(s) in {root / CONFIG_FILE}: {', '.join(unknown)};"
            f" known settings: {', '.join(sorted(known))}"
        )
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in SPECS:
        env_key = spec.env_key
        if env_key in env:
            values[spec.name] = _validate(spec, env[env_key], f"environment {env_key}")
            sources[spec.name] = "env"
        elif spec.name in file_values:
            values[spec.name] = _validate(spec, file_values[spec.name], CONFIG_FILE)
            sources[spec.name] = "file"
        else:
            values[spec.name] = spec.default
            sources[spec.name] = "default"
    return Settings(values, sources)


def describe(settings: Settings) -> list[dict[str, Any]]:
    """Rows for ``repolens config``: each key, its value, origin and meaning. Secrets hidden."""
    rows = []
    for spec in SPECS:
        value = settings.values[spec.name]
        if spec.name in ("embed_api_key", "qdrant_api_key") and value:
            value = "***"
        if isinstance(value, Path):
            value = str(value)
        if isinstance(value, tuple):
            value = [asdict(v) if isinstance(v, ArtifactSpec) else v for v in value]
        rows.append(
            {"key": spec.name, "value": value, "source": settings.sources[spec.name],
             "env": spec.env_key, "help": spec.help}
        )  # fmt: skip
    return rows
