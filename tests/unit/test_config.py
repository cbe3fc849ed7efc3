"""Settings: defaults, file, environment precedence, and loud validation errors."""

import os
import re
from pathlib import Path

import pytest

from repolens.config import ConfigError, describe, load_settings


def write_config(root: Path, text: str) -> None:
    (root / ".repolens.toml").write_text(text, encoding="utf-8")


def test_defaults_without_file_or_env(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, environ={})
    assert settings.max_file_size == 1_000_000
    assert settings.embed_provider == "local"
    assert all(source == "default" for source in settings.sources.values())


def test_environment_overrides_file(tmp_path: Path) -> None:
    write_config(tmp_path, 'max_file_size = 5000\nembed_provider = "ollama"\n')
    settings = load_settings(tmp_path, environ={"REPOLENS_MAX_FILE_SIZE": "7000"})
    assert settings.max_file_size == 7000
    assert settings.sources["max_file_size"] == "env"
    assert settings.embed_provider == "ollama"
    assert settings.sources["embed_provider"] == "file"


def test_bad_value_names_key_value_and_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, environ={"REPOLENS_MAX_FILE_SIZE": "-3"})
    message = str(info.value)
    assert "max_file_size" in message and "'-3'" in message and "positive" in message


def test_invalid_project_id_is_loud(tmp_path: Path) -> None:
    write_config(tmp_path, 'project_id = "my project!"\n')
    with pytest.raises(ConfigError, match=r"project_id.*letters, digits"):
        load_settings(tmp_path, environ={})


def test_unknown_key_and_malformed_toml(tmp_path: Path) -> None:
    write_config(tmp_path, "max_file_sise = 10\n")
    with pytest.raises(ConfigError, match=r"unknown setting.*max_file_sise"):
        load_settings(tmp_path, environ={})
    write_config(tmp_path, "max_file_size = = 10\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(tmp_path, environ={})


def test_choices_and_extensions_parse(tmp_path: Path) -> None:
    write_config(tmp_path, '[extra_extensions]\n".foo" = "Python"\n')
    settings = load_settings(tmp_path, environ={"REPOLENS_WATCH": "OFF"})
    assert settings.extra_extensions == {".foo": "python"}
    assert settings.watch == "off"
    env = {"REPOLENS_EXTRA_EXTENSIONS": ".a:ruby,.b:lua"}
    assert load_settings(tmp_path, environ=env).extra_extensions == {".a": "ruby", ".b": "lua"}
    with pytest.raises(ConfigError, match="watch"):
        load_settings(tmp_path, environ={"REPOLENS_WATCH": "sometimes"})


def test_describe_hides_api_key(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, environ={"REPOLENS_EMBED_API_KEY": "sk-secret"})
    row = next(r for r in describe(settings) if r["key"] == "embed_api_key")
    assert row["value"] == "***" and row["source"] == "env"


def test_qdrant_settings_validate_and_hide_the_key(tmp_path: Path) -> None:
    env = {"REPOLENS_SEARCH_BACKEND": "qdrant", "REPOLENS_QDRANT_API_KEY": "k-secret",
           "REPOLENS_QDRANT_URL": "https://qdrant.internal:6333"}  # fmt: skip
    settings = load_settings(tmp_path, environ=env)
    assert (settings.search_backend, settings.qdrant_collection) == ("qdrant", "repolens")
    row = next(r for r in describe(settings) if r["key"] == "qdrant_api_key")
    assert row["value"] == "***"
    with pytest.raises(ConfigError, match=r"search_backend.*embedded or qdrant"):
        load_settings(tmp_path, environ={"REPOLENS_SEARCH_BACKEND": "milvus"})
    with pytest.raises(ConfigError, match="qdrant_tenant"):
        load_settings(tmp_path, environ={"REPOLENS_QDRANT_TENANT": "a/b"})


def test_links_are_a_list_in_the_file_and_path_separated_in_the_environment(
    tmp_path: Path,
) -> None:
    (tmp_path / ".repolens.toml").write_text('links = ["../shared-lib", "../tools"]\n')
    assert load_settings(tmp_path, {}).links == ("../shared-lib", "../tools")
    env = {"REPOLENS_LINKED_PROJECTS": os.pathsep.join(["../a", " ../b ", ""])}
    settings = load_settings(tmp_path, env)
    assert settings.links == ("../a", "../b") and settings.sources["links"] == "env"
    row = next(r for r in describe(settings) if r["key"] == "links")
    assert row["env"] == "REPOLENS_LINKED_PROJECTS"
    (tmp_path / ".repolens.toml").write_text("links = [1]\n")
    with pytest.raises(ConfigError, match="invalid links"):
        load_settings(tmp_path, {})


def test_artifacts_are_tables_in_the_file_and_json_in_the_environment(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        '[[artifacts]]\nname = "db"\npath = "db/schema.sql"\ndescription = "Tables"\n'
        '[[artifacts]]\nname = "docs"\npath = "docs"\n',
    )
    settings = load_settings(tmp_path, environ={})
    assert [(a.name, a.path, a.description) for a in settings.artifacts] == [
        ("db", "db/schema.sql", "Tables"),
        ("docs", "docs", ""),
    ]
    env = {"REPOLENS_ARTIFACTS": '[{"name": "api", "path": "api.yaml"}]'}
    assert [a.name for a in load_settings(tmp_path, environ=env).artifacts] == ["api"]


@pytest.mark.parametrize(
    ("tables", "expected"),
    [
        ('name = "a b"\npath = "x.sql"', "a name of letters, digits"),
        ('name = "db"', "a path (text) for artifact 'db'"),
        ('name = "db"\npath = "x.sql"\nkind = "sql"', "[[artifacts]] tables with name"),
        ('name = "db"\npath = "x.sql"\n[[artifacts]]\nname = "db"\npath = "y.sql"',
         "one artifact per name"),
    ],
)  # fmt: skip
def test_bad_artifact_tables_say_what_is_wrong(tmp_path: Path, tables: str, expected: str) -> None:
    write_config(tmp_path, f"[[artifacts]]\n{tables}\n")
    with pytest.raises(ConfigError, match=rf"invalid artifacts = .*expected {re.escape(expected)}"):
        load_settings(tmp_path, environ={})
