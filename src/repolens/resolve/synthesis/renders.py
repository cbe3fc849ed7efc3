"""State changes that make a UI framework render again.

React: ``this.setState(...)`` (or ``forceUpdate``) in a method of a ``Component`` class
runs its ``render``; a state setter from ``const [items, setItems] = useState(...)`` (or
``useReducer``'s ``dispatch``) called in a function inside a component runs the
component (a function component is its own render). Flutter: ``setState(...)`` in a
``State`` subclass runs its ``build``. The framework makes these calls, so no reference
names them. A hook's setter is paired only inside the component that declared it (a
setter handed to a child, or declared in a custom hook, is left alone), and a component
is a function named in PascalCase.
"""

from __future__ import annotations

import re
import sqlite3

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project, Sym
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    edge,
    line_texts,
    owner_class,
    site,
)

CONFIDENCE = 0.85  # the framework re-renders after the state changes
REACT_LANGUAGES = frozenset({"typescript", "tsx", "javascript"})
REACT_BASES = frozenset({"Component", "PureComponent"})
CLASS_UPDATES = ("setState", "forceUpdate")
HOOKS = ("useState", "useReducer")
_SETTER = re.compile(r"\[\s*[\w$]+\s*,\s*([\w$]+)\s*\]\s*=\s*(?:React\.)?use(?:State|Reducer)\b")


def edges(graph: Stored) -> list[EdgeRow]:
    return _class_renders(graph.conn, graph.project) + _hook_renders(graph.conn, graph.project)


def _class_renders(conn: sqlite3.Connection, project: Project) -> list[EdgeRow]:
    """``this.setState`` in a React component class -> its ``render``; ``setState`` in a
    Flutter ``State`` -> its ``build``."""
    rows = conn.execute(
        # resolved ones too: a State may override setState and call super.setState
        "SELECT source_id, name, receiver, file_id, line, col FROM refs WHERE kind = 'calls'"
        f" AND name IN ({','.join('?' * len(CLASS_UPDATES))}) ORDER BY file_id, line, col",
        CLASS_UPDATES,
    ).fetchall()
    made: list[EdgeRow] = []
    for source, name, receiver, file_id, line, col in rows:
        language = project.files[int(file_id)].language
        cls = owner_class(project, int(source)) if source is not None else None
        if cls is None or _constructor(project, int(source)):
            continue  # a constructor's setState runs in a handler it defines, not in it
        if (
            language in REACT_LANGUAGES
            and receiver == "this"
            and _extends(project, cls, REACT_BASES)
        ):
            render = "render"
        elif language == "dart" and name == "setState" and receiver in (None, "this"):
            render = "build" if _extends(project, cls, frozenset({"State"})) else ""
        else:
            continue
        found = [s for s in project.members.get(cls.id, {}).get(render, []) if s.kind == "method"]
        if len(found) == 1 and found[0].id != int(source):
            made.append(
                edge(int(source), found[0].id, int(file_id), int(line), int(col), CONFIDENCE,
                     channel="render", via=str(name), site=site(project, int(file_id), int(line)))
            )  # fmt: skip
    return made


def _constructor(project: Project, sym_id: int) -> bool:
    sym = project.syms.get(sym_id)
    return sym is not None and (sym.kind == "constructor" or sym.name == "constructor")


def _extends(project: Project, cls: Sym, names: frozenset[str]) -> bool:
    """Whether a class's written bases name one of ``names`` (``React.Component``,
    ``State<Counter>``): the framework's classes are not in the project."""
    return any(ref.name in names for ref in project.bases.get(cls.id, ()) if ref.kind == "extends")


def _hook_renders(conn: sqlite3.Connection, project: Project) -> list[EdgeRow]:
    """A hook's setter called inside the component that declared it -> the component."""
    hooks = conn.execute(
        "SELECT source_id, file_id, line FROM refs WHERE kind = 'calls' AND resolved = 0"
        f" AND name IN ({','.join('?' * len(HOOKS))}) AND (receiver IS NULL OR receiver = 'React')",
        HOOKS,
    ).fetchall()
    wanted: dict[int, set[int]] = {}
    for source, file_id, line in hooks:
        if project.files[int(file_id)].language in REACT_LANGUAGES and _component(project, source):
            wanted.setdefault(int(file_id), set()).add(int(line))
    texts = line_texts(conn, wanted)
    setters: dict[tuple[int, str], tuple[int, int]] = {}  # (component, setter) -> file, line
    for source, file_id, line in hooks:
        match = _SETTER.search(texts.get((int(file_id), int(line)), ""))
        if match is not None and _component(project, source):
            setters.setdefault((int(source), match.group(1)), (int(file_id), int(line)))
    if not setters:
        return []
    names = sorted({name for _, name in setters})
    made: list[EdgeRow] = []
    for part in [names[i : i + 500] for i in range(0, len(names), 500)]:
        rows = conn.execute(
            "SELECT source_id, name, file_id, line, col FROM refs"
            " WHERE kind = 'calls' AND resolved = 0"
            f" AND receiver IS NULL AND name IN ({','.join('?' * len(part))})"
            " ORDER BY file_id, line, col",
            part,
        )
        for source, name, file_id, line, col in rows:
            component = _declaring(project, int(source), str(name), setters)
            if component is None:
                continue
            wired_file, wired_line = setters[(component, str(name))]
            made.append(
                edge(int(source), component, int(file_id), int(line), int(col), CONFIDENCE,
                     channel="render", via=str(name), site=site(project, wired_file, wired_line))
            )  # fmt: skip
    return made


def _component(project: Project, sym_id: int | None) -> bool:
    """A function component: a function named in PascalCase (a hook's ``useX`` is not)."""
    sym = project.syms.get(sym_id) if sym_id is not None else None
    return sym is not None and sym.kind in CALLABLE and sym.name[:1].isupper()


def _declaring(
    project: Project, source: int, name: str, setters: dict[tuple[int, str], tuple[int, int]]
) -> int | None:
    """The component around ``source`` (not ``source`` itself: a setter called while
    rendering is no new hop) that declared the setter ``name``."""
    sym = project.syms.get(source)
    parent = sym.parent_id if sym is not None else None
    while parent is not None:
        if (parent, name) in setters:
            return parent
        above = project.syms.get(parent)
        parent = above.parent_id if above is not None else None
    return None
