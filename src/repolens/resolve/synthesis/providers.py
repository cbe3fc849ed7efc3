"""NestJS and Angular providers: an injected member holds the class a provider names.

``providers: [{ provide: 'STORE', useClass: MemStore }]`` in a ``@Module``/``@NgModule``/
``@Component``/``@Injectable`` decorator, and ``constructor(@Inject('STORE') private
store: Store)`` (or ``constructor(private log: Logger)`` with ``provide: Logger``, or
Angular's ``private log = inject(Logger)``): ``this.store.all()`` runs ``MemStore.all``,
which nothing written at the call says. The token pairs the two exactly: the same string
literal, or the same class or constant name. A provider that names the class the member
is typed as changes nothing resolution did not already connect; factories and values
(``useFactory``, ``useValue``) name no class, and give nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project
from repolens.resolve.synthesis.common import (
    MAX_FAN_OUT,
    Stored,
    decorator_names,
    edge,
    method_of,
    owner_class,
    site,
    supertypes,
)

CONFIDENCE = 0.85  # the one class provided for the token
SEVERAL_CONFIDENCE = 0.5  # modules provide different classes for it
LANGUAGES = frozenset({"typescript", "tsx", "javascript"})
DECORATORS = frozenset({"Module", "NgModule", "Component", "Injectable", "Directive"})
_ENTRY = re.compile(r"\{[^{}]*\}")
_PROVIDE = re.compile(r"""\bprovide\s*:\s*('[^']*'|"[^"]*"|[\w$.]+)""")
_USE_CLASS = re.compile(r"\b(?:useClass|useExisting)\s*:\s*([\w$]+)")
_PARAM = re.compile(
    r"""^(?:@Inject\(\s*(?P<token>'[^']*'|"[^"]*"|[\w$.]+)\s*\)\s*)?(?:@\w+\([^)]*\)\s*)*"""
    r"""(?:(?:private|public|protected|readonly)\s+)+(?P<name>[\w$]+)\??\s*:\s*(?P<type>[\w$.]+)"""
)


def edges(graph: Stored) -> list[EdgeRow]:
    conn, project = graph.conn, graph.project
    provided = _provided(graph)
    if not provided:
        return []
    members = _injected_members(project, provided)
    members.update((key, token) for key, token in _inject_calls(graph).items() if token in provided)
    if not members:
        return []
    bases = supertypes(conn)
    made: list[EdgeRow] = []
    receivers = sorted({f"this.{name}" for (_, name) in members})
    for part in [receivers[i : i + 500] for i in range(0, len(receivers), 500)]:
        rows = conn.execute(
            "SELECT source_id, name, receiver, file_id, line, col FROM refs WHERE kind = 'calls'"
            f" AND receiver IN ({','.join('?' * len(part))}) ORDER BY file_id, line, col",
            part,
        )
        for source, name, receiver, file_id, line, col in rows:
            cls = owner_class(project, int(source))
            token = members.get((cls.id, str(receiver)[5:])) if cls is not None else None
            classes = provided.get(token) if token is not None else None
            if cls is None or not classes or len(classes) > MAX_FAN_OUT:
                continue
            confidence = CONFIDENCE if len(classes) == 1 else SEVERAL_CONFIDENCE
            for impl, wired in sorted(classes.items()):
                target = method_of(project, bases, impl, str(name))
                if target is not None and target != source:
                    made.append(
                        edge(int(source), target, int(file_id), int(line), int(col), confidence,
                             channel="injection", via=f"{cls.qname}.{str(receiver)[5:]}",
                             site=wired)
                    )  # fmt: skip
    return made


def _token(text: str) -> str:
    """A token as one key: ``'STORE'`` and ``"STORE"`` are the same string."""
    return "'" + text[1:-1] + "'" if text[:1] in "'\"" else text.rsplit(".", 1)[-1]


def _provided(graph: Stored) -> dict[str, dict[int, str]]:
    """Token -> each class a provider gives for it, with where the provider is written."""
    project = graph.project
    modules = [
        sym
        for sym in project.syms.values()
        if sym.kind == "class"
        and "provide" in sym.decorators
        and project.files[sym.file_id].language in LANGUAGES
        and decorator_names(sym.decorators) & DECORATORS
    ]
    if not modules:
        return {}
    named = _classes_named(graph, {sym.file_id for sym in modules})
    found: defaultdict[str, dict[int, str]] = defaultdict(dict)
    for sym in modules:
        for entry in _ENTRY.findall(sym.decorators):
            token, used = _PROVIDE.search(entry), _USE_CLASS.search(entry)
            wired = named.get((sym.file_id, used.group(1))) if used is not None else None
            if token is not None and wired is not None:
                found[_token(token.group(1))].setdefault(*wired)
    return found


def _classes_named(graph: Stored, files: set[int]) -> dict[tuple[int, str], tuple[int, str]]:
    """(file, name) -> the one class the file's code references by that name, and the
    first line it does: what a provider's ``useClass: MemStore`` names."""
    project = graph.project
    found: dict[tuple[int, str], tuple[int, str]] = {}
    several: set[tuple[int, str]] = set()
    for (_, file_id, line), targets in sorted(graph.references_at.items(), key=lambda i: i[0][2]):
        if file_id not in files:
            continue
        for target, _ in targets:
            cls = project.syms.get(target)
            if cls is None or cls.kind != "class":
                continue
            key = (file_id, cls.name)
            if key in found and found[key][0] != target:
                several.add(key)
            found.setdefault(key, (target, site(project, file_id, line)))
    return {key: value for key, value in found.items() if key not in several}


def _injected_members(
    project: Project, provided: dict[str, dict[int, str]]
) -> dict[tuple[int, str], str]:
    """(class, member) -> the token it is injected by, for tokens some provider gives:
    constructor parameter properties."""
    found: dict[tuple[int, str], str] = {}
    for sym in project.syms.values():
        owner = project.syms.get(sym.parent_id) if sym.parent_id is not None else None
        if owner is None or owner.kind != "class":
            continue
        if project.files[sym.file_id].language not in LANGUAGES:
            continue
        if sym.kind == "constructor" or (sym.kind == "method" and sym.name == "constructor"):
            for param in _parameters(sym.signature):
                match = _PARAM.match(param)
                if match is not None:
                    token = _token(match.group("token") or match.group("type"))
                    if token in provided:
                        found[(owner.id, match.group("name"))] = token
    return found


def _inject_calls(graph: Stored) -> dict[tuple[int, str], str]:
    """(class, field) -> the class token of Angular's ``private log = inject(Logger)``:
    the class named right after ``inject(``, on the field's line."""
    project = graph.project
    rows = graph.conn.execute(
        "SELECT source_id, file_id, line, col FROM refs WHERE kind = 'calls'"
        " AND resolved = 0 AND name = 'inject' AND receiver IS NULL"
    ).fetchall()
    found: dict[tuple[int, str], str] = {}
    for source, file_id, line, col in rows:
        owner = project.syms.get(int(source)) if source is not None else None
        at = graph.references_at.get((owner.id, int(file_id), int(line)), []) if owner else []
        named = [project.syms[t] for t, c in at if c == int(col) + 7 and t in project.syms]
        if owner is None or owner.kind != "class" or len(named) != 1:
            continue
        token = named[0].name
        for by_name in project.members.get(owner.id, {}).values():
            for field in by_name:
                if field.kind in ("field", "property") and field.start_line == int(line):
                    found[(owner.id, field.name)] = str(token)
    return found


def _parameters(signature: str) -> list[str]:
    """A constructor's parameters as written, split at its own commas."""
    inner = signature.split("(", 1)[-1]
    params, depth, start = [], 0, 0
    for i, char in enumerate(inner):
        if char in "([{<":
            depth += 1
        elif char in ")]}" or (char == ">" and inner[i - 1 : i] != "="):
            if depth == 0:
                params.append(inner[start:i].strip())
                return [p for p in params if p]
            depth -= 1
        elif char == "," and depth == 0:
            params.append(inner[start:i].strip())
            start = i + 1
    return [p for p in params if p]
