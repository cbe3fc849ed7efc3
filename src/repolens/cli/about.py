"""``repolens about`` (also ``repolens --about``): version, active profile, where data lives."""

from __future__ import annotations

from pathlib import Path

import click

from repolens.cli.common import console, emit, json_option, load_project, project_option


def show_about(project_path: Path | None, as_json: bool) -> None:
    from repolens.about import about, about_lines

    data = about(load_project(project_path, as_json))

    def render() -> None:
        for line in about_lines(data):
            console().print(line, markup=False, highlight=False)

    emit(data, as_json, render)


@click.command("about")
@project_option
@json_option
def about_command(project_path: Path | None, as_json: bool) -> None:
    """What repolens is, its version, the project's index profile and where its data lives."""
    show_about(project_path, as_json)


COMMANDS = [about_command]
