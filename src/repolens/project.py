"""Project identity: which directory is the project, what it is called, where its index lives.

The root is the path given, else the git top level of the current directory, else the
current directory. The index lives in ``<root>/.repolens/`` (which ignores itself, so it is
never committed) unless ``data_dir`` points elsewhere; then each project gets its own
sub-directory named by its id, so many projects can share one data dir.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from repolens.config import ConfigError, Settings, load_settings
from repolens.oserrors import advice

DATA_DIR_NAME = ".repolens"
DB_NAME = "index.db"


class ProjectError(Exception):
    """The project path cannot be used."""


@dataclass(frozen=True, slots=True)
class Project:
    root: Path
    project_id: str
    data_dir: Path
    settings: Settings
    branch: str | None = None

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_NAME


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def find_root(path: Path | None = None) -> Path:
    """The project root for ``path`` (used as given) or for the current directory."""
    if path is not None:
        root = path.expanduser().resolve()
        if not root.exists():
            raise ProjectError(f"project path does not exist: {path}")
        if not root.is_dir():
            raise ProjectError(f"project path is not a directory: {path}")
        return root
    cwd = Path.cwd().resolve()
    top = _git(["rev-parse", "--show-toplevel"], cwd)
    return Path(top).resolve() if top else cwd


def current_branch(root: Path) -> str | None:
    """The checked-out branch, or ``None`` when detached or not a git repository."""
    name = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], root)
    return name or None


def git_common_dir(root: Path) -> Path | None:
    """The git directory that every worktree of ``root``'s repository shares (its branches,
    objects and worktree list), resolved: the same path from the main checkout and from
    each linked worktree, so it names the repository. ``None`` outside a repository."""
    found = _git(["rev-parse", "--git-common-dir"], root)
    return (root / found).resolve() if found else None  # relative in the main checkout


def sanitize_branch(branch: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", branch).strip("-") or "branch"


def default_project_id(root: Path) -> str:
    """A short, stable id from the resolved root path."""
    return hashlib.sha256(str(root).encode()).hexdigest()[:12]


def open_project(
    path: Path | None = None, settings: Settings | None = None, *, create: bool = True
) -> Project:
    """Identify the project at ``path`` and make sure its data dir exists (unless not
    ``create``: a command that only reads must leave no ``.repolens/`` behind where no
    index is)."""
    root = find_root(path)
    settings = settings or load_settings(root)
    base_id = settings.project_id or default_project_id(root)
    branch = current_branch(root) if settings.branch_aware else None
    project_id = f"{base_id}-{sanitize_branch(branch)}" if branch else base_id
    if settings.data_dir:
        # relative to the project, as the settings file that names it is, not to
        # wherever the command happens to run
        data_dir = (root / settings.data_dir).resolve() / project_id
    else:
        data_dir = root / DATA_DIR_NAME
        if branch:
            data_dir = data_dir / "branches" / sanitize_branch(branch)
    if create:
        _ensure_data_dir(data_dir, root)
    return Project(root, project_id, data_dir, settings, branch)


def linked_roots(project: Project) -> list[Path]:
    """The roots of the projects its ``links`` setting names (each relative to this
    project's root), in order, without repeats or this project itself. A link that is
    not a directory is an error naming it: a typo must not silently search less."""
    roots: list[Path] = []
    for link in project.settings.links:
        root = (project.root / Path(link).expanduser()).resolve()
        if not root.is_dir():
            origin = project.settings.sources.get("links", "default")
            where = "REPOLENS_LINKED_PROJECTS" if origin == "env" else ".repolens.toml links"
            raise ProjectError(f"linked project {link!r} ({where}) is not a directory: {root}")
        if root != project.root and root not in roots:
            roots.append(root)
    return roots


def _ensure_data_dir(data_dir: Path, root: Path) -> None:
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        top = root / DATA_DIR_NAME
        ignore = top / ".gitignore"
        if data_dir.is_relative_to(top) and not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
    except OSError as exc:
        todo = advice(exc)
        raise ProjectError(
            f"cannot create data directory {data_dir}: {exc.strerror or exc}"
            + (f"; {todo}" if todo else "")
        ) from exc


__all__ = [
    "ConfigError",
    "Project",
    "ProjectError",
    "find_root",
    "linked_roots",
    "open_project",
]
