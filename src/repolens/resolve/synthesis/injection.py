"""Spring dependency injection: a call on an injected field reaches the bean behind it.

``@Autowired private OwnerService owners`` (or a field a bean's constructor fills) holds
whatever bean the container made for ``OwnerService``; ``owners.find(id)`` resolves to
the interface method, and at run time runs the bean's. The beans are the project's
classes marked ``@Component``/``@Service``/``@Repository``/``@Controller``/
``@RestController``/``@Configuration``, and the classes a ``@Bean`` method instantiates.
The container picks the bean by type, narrowed by ``@Qualifier("name")`` on the field
or constructor parameter, else by ``@Primary``: one bean is a confident edge, several
(capped) a weaker one each. Implementations that are no bean (a test double, a class
never registered) are not candidates, so these edges replace the interface channel's at
the same call (see ``EXCLUSIVE`` in ``synthesis``).
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import INTERFACE_KINDS, Project, Sym
from repolens.resolve.synthesis.common import (
    MAX_FAN_OUT,
    Stored,
    ancestors,
    decorator_names,
    edge,
    in_chunks,
    line_texts,
    method_of,
    owner_class,
    place,
    supertypes,
)

CONFIDENCE = 0.85  # the one bean of the field's type
SEVERAL_CONFIDENCE = 0.5  # one of several beans of that type, none primary
LANGUAGES = frozenset({"java", "kotlin"})
STEREOTYPES = frozenset(
    {"Component", "Service", "Repository", "Controller", "RestController", "Configuration"}
)
INJECTS = frozenset({"Autowired", "Inject", "Resource"})  # a field the container fills
_NAMED = re.compile(r"""^\s*@?(?:\w+\.)*(\w+)\(\s*(?:(?:value|name)\s*=\s*)?"([^"]+)"\s*\)""")
# `@Qualifier("jpa") OwnerService owners` in a constructor's parameters
_QUALIFIED_PARAM = re.compile(
    r"""@Qualifier\(\s*(?:value\s*=\s*)?"([^"]+)"\s*\)[^,)]*?(\w+)\s*(?:[,)]|$)"""
)


@dataclass(frozen=True, slots=True)
class Bean:
    """A class the container makes, the names it answers to, where it is registered."""

    cls: int
    names: frozenset[str]
    primary: bool
    site: str


def edges(graph: Stored) -> list[EdgeRow]:
    conn, project = graph.conn, graph.project
    beans = _beans(conn, project)
    if not beans:
        return []
    bases = supertypes(conn)
    overriders: defaultdict[int, set[int]] = defaultdict(set)  # base method -> overrides
    for method_id, base in graph.overrides:
        overriders[base].add(method_id)
    by_type: defaultdict[int, list[Bean]] = defaultdict(list)
    for bean in beans:
        for type_id in ancestors(bases, bean.cls):
            by_type[type_id].append(bean)
    calls = _calls(graph, by_type)
    overloaded = {  # calls of a name the interface overloads: resolution may pick wrong
        (file_id, line)
        for _, target, file_id, line, _, _ in calls
        if len(project.members.get(project.syms[target].parent_id or -1, {}).get(
            project.syms[target].name, [])) > 1
    }  # fmt: skip
    wanted: dict[int, set[int]] = {}
    for file_id, line in overloaded:
        wanted.setdefault(file_id, set()).add(line)
    texts = line_texts(conn, wanted)
    made: list[EdgeRow] = []
    for source, target, file_id, line, col, receiver in calls:
        method = project.syms[target]
        arity = None
        if (file_id, line) in overloaded:
            arity = _arity(texts.get((file_id, line), "").encode()[col:].decode("utf-8", "replace"))
            if arity is None:
                continue
        caller = owner_class(project, source)
        field = _field(project, caller, receiver) if caller is not None else None
        if caller is None or field is None or not _injected(project, caller, field):
            continue
        chosen = _choose(by_type[method.parent_id or -1], _qualifier(project, caller, field))
        confidence = CONFIDENCE if len(chosen) == 1 else SEVERAL_CONFIDENCE
        for bean in chosen[: MAX_FAN_OUT if len(chosen) <= MAX_FAN_OUT else 0]:
            impl = _implementation(project, bases, overriders, bean.cls, method, arity)
            if impl is not None and impl != source:
                made.append(
                    edge(source, impl, file_id, line, col, confidence, channel="injection",
                         via=field.qname, site=bean.site)
                )  # fmt: skip
    return made


def _beans(conn: sqlite3.Connection, project: Project) -> list[Bean]:
    """Stereotyped classes, and the one class each ``@Bean`` method instantiates."""
    found: list[Bean] = []
    producers: dict[int, Sym] = {}
    for sym in project.syms.values():
        if project.files[sym.file_id].language not in LANGUAGES or not sym.decorators:
            continue
        names = decorator_names(sym.decorators)
        if sym.kind == "class" and names & STEREOTYPES:
            default = sym.name[:1].lower() + sym.name[1:]
            found.append(
                Bean(sym.id, frozenset({default, *_given_names(sym.decorators, STEREOTYPES)}),
                     "Primary" in names, place(project, sym.id))
            )  # fmt: skip
        elif sym.kind == "method" and "Bean" in names:
            producers[sym.id] = sym
    made: defaultdict[int, set[int]] = defaultdict(set)
    for part in in_chunks(sorted(producers)):
        rows = conn.execute(
            "SELECT source_id, target_id FROM edges WHERE kind = 'instantiates'"
            f" AND source_id IN ({','.join('?' * len(part))})",
            part,
        )
        for source, target in rows:
            made[int(source)].add(int(target))
    for method_id, classes in made.items():
        method = producers[method_id]
        if len(classes) == 1 and (cls := next(iter(classes))) in project.syms:
            given = frozenset({method.name, *_given_names(method.decorators, {"Bean"})})
            primary = "Primary" in decorator_names(method.decorators)
            found.append(Bean(cls, given, primary, place(project, method_id)))
    return found


def _given_names(decorators: str, kinds: frozenset[str] | set[str]) -> set[str]:
    """Bean names written in ``@Service("owners")``, ``@Bean(name = "owners")``,
    ``@Qualifier("owners")`` on a class."""
    found = set()
    for line in decorators.split("\n"):
        match = _NAMED.match(line)
        if match and (match.group(1) in kinds or match.group(1) == "Qualifier"):
            found.add(match.group(2))
    return found


def _calls(
    graph: Stored, by_type: dict[int, list[Bean]]
) -> list[tuple[int, int, int, int, int, str]]:
    """Resolved calls of a method of an interface or abstract class some bean has, with
    the receiver written: source, target, file, line, col, receiver."""
    project = graph.project
    methods = [
        sym
        for owner in by_type
        if (cls := project.syms.get(owner)) is not None and _abstract(cls)
        for by_name in project.members.get(owner, {}).values()
        for sym in by_name
        if sym.kind == "method"
    ]
    calls = [call for method in methods for call in graph.calls_to.get(method.id, ())]
    names = sorted({method.name for method in methods})
    receivers: dict[tuple[int, int, int], str] = {}
    for part in [names[i : i + 500] for i in range(0, len(names), 500)]:
        rows = graph.conn.execute(
            "SELECT file_id, line, col, receiver FROM refs WHERE kind = 'calls'"
            f" AND receiver IS NOT NULL AND name IN ({','.join('?' * len(part))})",
            part,
        )
        receivers.update(((int(f), int(n), int(c)), str(r)) for f, n, c, r in rows)
    return [
        (*call, receivers[(call[2], call[3], call[4])])
        for call in sorted(calls, key=lambda c: (c[2], c[3], c[4]))
        if (call[2], call[3], call[4]) in receivers
    ]


def _abstract(cls: Sym) -> bool:
    """An interface or abstract class: the type a bean is injected as, not the bean."""
    return cls.kind in INTERFACE_KINDS or "abstract " in f" {cls.signature}"


def _field(project: Project, cls: Sym, receiver: str) -> Sym | None:
    """The field of ``cls`` a receiver names (``owners``, ``this.owners``)."""
    name = receiver.removeprefix("this.")
    if not name.isidentifier():
        return None
    found = [
        s for s in project.members.get(cls.id, {}).get(name, []) if s.kind in ("field", "property")
    ]
    return found[0] if len(found) == 1 else None


def _injected(project: Project, cls: Sym, field: Sym) -> bool:
    """Whether the container fills the field: it says ``@Autowired``/``@Inject``, or its
    class is a bean (constructor injection fills its fields, Lombok's too)."""
    if decorator_names(field.decorators) & INJECTS:
        return True
    return bool(decorator_names(cls.decorators) & STEREOTYPES)


def _qualifier(project: Project, cls: Sym, field: Sym) -> str | None:
    """The bean name a field asks for: its own ``@Qualifier``, or that of the
    constructor parameter of the same name."""
    named = _given_names(field.decorators, {"Resource", "Named"})
    if named:
        return next(iter(named))
    for ctor in project.members.get(cls.id, {}).get(cls.name, []):
        for qualifier, param in _QUALIFIED_PARAM.findall(ctor.signature):
            if param == field.name:
                return str(qualifier)
    return None


def _choose(beans: list[Bean], qualifier: str | None) -> list[Bean]:
    """The beans the container may inject: the one named, else the one primary, else all."""
    distinct = list({bean.cls: bean for bean in beans}.values())
    if qualifier is not None:
        return [bean for bean in distinct if qualifier in bean.names]
    primary = [bean for bean in distinct if bean.primary]
    return primary if len(primary) == 1 else distinct


def _implementation(
    project: Project,
    bases: dict[int, set[int]],
    overriders: dict[int, set[int]],
    cls: int,
    method: Sym,
    arity: int | None,
) -> int | None:
    """The method a bean of class ``cls`` runs for a call of ``method``: the one of its
    class or a base class that overrides it, else the one method of that name. For an
    overloaded name, the one overload taking the call's ``arity`` arguments."""
    owners = ancestors(bases, cls)
    if arity is not None:
        fits = [
            sym.id
            for owner in owners
            if (cls_sym := project.syms.get(owner)) is not None and cls_sym.kind == "class"
            for sym in project.members.get(owner, {}).get(method.name, [])
            if sym.kind == "method" and _arity(sym.signature.split(method.name, 1)[-1]) == arity
        ]
        return fits[0] if len(fits) == 1 else None
    seen, todo, found = set(), [method.id], set()
    while todo:
        current = todo.pop()
        for override in overriders.get(current, ()):
            if override not in seen:
                seen.add(override)
                todo.append(override)
                sym = project.syms.get(override)
                if sym is not None and sym.parent_id in owners:
                    found.add(override)
    if len(found) == 1:
        return found.pop()
    return method_of(project, bases, cls, method.name) if not found else None


def _arity(text: str) -> int | None:
    """How many arguments a call or parameter list starting at its name (``find(a,
    b)``, ``(int id)``) has; None where the text does not say."""
    head, paren, rest = text.partition("(")
    if not paren or (not head.replace("_", "a").isalnum() and head.strip()):
        return None
    depth, count, started = 0, 0, False
    for char in rest:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            if depth == 0:
                return count + 1 if started else 0
            depth -= 1
        elif char == "," and depth == 0:
            count += 1
        elif not char.isspace():
            started = True
    return None
