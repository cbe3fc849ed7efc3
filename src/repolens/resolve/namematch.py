"""Ladder step 5: a scored guess by name, when nothing exact applies.

Candidates are same-named definitions of a fitting kind in the same language family.
The closest tier wins: same file, then same directory/package, then a file the referrer
imports, then anywhere. A tie in the best tier is *ambiguous*: no edge at all rather than
an edge to each. Method calls on receivers of unknown type are guessed with even lower
confidence, and never for names that builtin containers and streams have (``append``,
``get``, ``join``...): those are far more often a list or dict than a project method.
Nor does a method's file decide between classes: ``option.name()`` in ``command.js``
is no likelier ``Command.name`` than the imported ``Option.name`` (commander, click's
``runner.invoke``), so for methods every tier above "elsewhere" counts as one, and a
class and its stub (``.py``/``.pyi``) count once. What does decide a tie is the receiver's
name: ``option``, ``cmd``, ``self.console``, ``_get_help_command()`` name the class whose
method they call far more often than not.
"""

from __future__ import annotations

import re

from repolens.resolve import members
from repolens.resolve.answers import Guess, Placed
from repolens.resolve.base import LanguageSpec, Value
from repolens.resolve.context import Context
from repolens.resolve.project import (
    CLASS_KINDS,
    FUNCTION_KINDS,
    OBJECT_KIND,
    TYPE_KINDS,
    RefRow,
    Sym,
)

TIER_CONFIDENCE = (0.3, 0.4, 0.45, 0.5)  # elsewhere, imported file, same dir, same file
METHOD_PENALTY = 0.15
_DECLARED = CLASS_KINDS - {OBJECT_KIND}  # an object is a value: its name alone says nothing
BARE_KINDS = {
    "calls": frozenset({"function"}) | _DECLARED,
    "instantiates": _DECLARED,
    "extends": _DECLARED,
    "implements": _DECLARED,
    "type_of": TYPE_KINDS - {OBJECT_KIND},
    "returns": TYPE_KINDS - {OBJECT_KIND},
    "decorates": frozenset({"function"}) | _DECLARED,
    "references": frozenset({"function"}) | _DECLARED,
}
# `obj.attr` used as a value is far more often a field than a method: only calls guess
METHOD_KINDS = {"calls": FUNCTION_KINDS - {"function"}}
TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$|Tests?\.java$"
)


def is_test_path(path: str) -> bool:
    return TEST_PATH.search(path) is not None


def match(ctx: Context, ref: RefRow, spec: LanguageSpec, *, method: bool) -> Value:
    """The unique best-placed same-named candidate, or why there is none."""
    name = ref.name
    if method and (name in spec.builtin_methods or name in spec.builtins or name.startswith("__")):
        return Value("none", reason="builtin")
    kinds = (METHOD_KINDS if method else BARE_KINDS).get(ref.kind)
    if not kinds:
        return Value("none", reason="unknown")
    key = (ref.file_id, ref.kind, name, method)
    guess = ctx.guesses.get(key)
    if guess is None:
        placed = _placed(ctx, ref, spec, kinds, method)
        own = tuple(s.id for s, _, _ in placed if s.file_id == ref.file_id)
        value = _best(placed, method)
        keep = own or (method and value.reason == "ambiguous")
        guess = ctx.guesses[key] = Guess(value, own, placed if keep else [])
    value = guess.value
    if ref.source_id in guess.own:  # `self.sock.send()` inside `send` delegates elsewhere
        value = _best(guess.placed, method, ref.source_id)
    if method and value.reason == "ambiguous" and ref.receiver:
        named = _named_by(ctx, guess.placed, ref.receiver)
        return _best(named, method, ref.source_id) if named else value
    if method and value.sym is not None and _misnamed(ctx, value.sym, ref.receiver, spec):
        return Value("none", reason="unknown")
    return value


NAMED_RECEIVERS = frozenset({"ecmascript"})  # measured on JavaScript corpora only
PLAIN_RECEIVER = re.compile(r"[A-Za-z_$][\w$]*")


def _misnamed(ctx: Context, sym: Sym, receiver: str | None, spec: LanguageSpec) -> bool:
    """Whether a plain variable's name says it holds something other than the one class
    defining the method: ``textEncoder.encode()`` is no ``FormDataPart.encode``, nor
    ``ctx.onerror()`` ``Application.onerror`` (axios, koa); ``runner.invoke()`` still
    guesses ``CliRunner.invoke``. Short names (``r``, ``fn``) and ``this`` say nothing."""
    if spec.name not in NAMED_RECEIVERS or receiver is None or receiver in spec.self_names:
        return False
    if not PLAIN_RECEIVER.fullmatch(receiver):
        return False
    word = receiver.lower().strip("_$")
    owner = ctx.project.syms.get(sym.parent_id) if sym.parent_id is not None else None
    if len(word) < 3 or owner is None or owner.kind not in _DECLARED:
        return False  # an object's name (`methods`, `proto`) says nothing of its holders
    cls = owner.name.lower()
    return not (_names(word, cls) or word.startswith(cls))  # `helper` holds a `Help`


RECEIVER_WORD = re.compile(r"(\w+)\W*$")


def _named_by(ctx: Context, placed: list[Placed], receiver: str) -> list[Placed]:
    """The candidates whose class the receiver's last name names: ``option`` -> ``Option``,
    ``runner`` -> ``CliRunner``, ``cmd`` -> ``Command``, ``get_help_command()`` ->
    ``Command``."""
    found = RECEIVER_WORD.search(receiver)
    word = found.group(1).lower().strip("_") if found else ""
    if len(word) < 3:
        return []
    syms = ctx.project.syms
    named: list[Placed] = []
    exact: list[Placed] = []  # `command` names `Command` before `CommandCollection`
    for candidate in placed:
        owner = syms.get(candidate[0].parent_id) if candidate[0].parent_id is not None else None
        cls = owner.name.lower() if owner is not None and owner.kind in _DECLARED else ""
        if cls and _names(word, cls):
            named.append(candidate)
            if cls == word:
                exact.append(candidate)
    return exact or named


def _names(word: str, cls: str) -> bool:
    """Whether a variable called ``word`` plausibly holds a ``cls``: the same word, one
    ending the other, a prefix (``arg``), or an abbreviation (``cmd``, ``ctx``)."""
    if cls.endswith(word) or cls.startswith(word) or (len(cls) > 2 and word.endswith(cls)):
        return True
    if word[0] != cls[0]:
        return False
    rest = iter(cls)
    return all(letter in rest for letter in word)


def _best(placed: list[Placed], method: bool, exclude: int | None = None) -> Value:
    """The only candidate of the best tier (overloads and accessor pairs count once)."""
    tiers: dict[int, list[tuple[Sym, int]]] = {}
    seen: set[tuple[str, str]] = set()
    for sym, tier, home in placed:
        key = (home if method else str(sym.file_id), sym.qname)
        if sym.id != exclude and key not in seen:
            seen.add(key)
            tiers.setdefault(min(tier, 1) if method else tier, []).append((sym, tier))
    if not tiers:
        return Value("none", reason="unknown")
    best = tiers[max(tiers)]
    if len(best) > 1:
        return Value("none", reason="ambiguous")
    sym, tier = best[0]
    confidence = TIER_CONFIDENCE[tier] - (METHOD_PENALTY if method else 0.0)
    return members.symbol_value(sym, round(confidence, 3), "name-match")


def _placed(
    ctx: Context, ref: RefRow, spec: LanguageSpec, kinds: frozenset[str], method: bool
) -> list[Placed]:
    """Same-named symbols the reference could mean, each with its tier."""
    from_test = is_test_path(ctx.file(ref.file_id).path)
    found: list[Placed] = []
    for sym in ctx.project.by_name.get(ref.name, ()):
        if sym.kind not in kinds or ctx.spec_of.get(sym.file_id) is not spec:
            continue
        if sym.file_id != ref.file_id and not _visible(ctx, ref, sym, spec, method, from_test):
            continue
        if sym.kind in FUNCTION_KINDS and _is_nested(ctx, sym):
            continue
        home = ctx.file(sym.file_id).path.rsplit(".", 1)[0]  # `m.py` and its `m.pyi`
        found.append((sym, _tier(ctx, ref, sym), home))
    return found


def _visible(
    ctx: Context, ref: RefRow, sym: Sym, spec: LanguageSpec, method: bool, from_test: bool
) -> bool:
    """Whether code in another file could reach ``sym`` at all: not private (save script
    globals), not a test helper seen from non-test code. Whether a private method's file
    is a script is not asked: it decides nothing, and read from the index it cost the
    candidate's whole file."""
    if not sym.is_exported and (method or (spec.exported_only and not _scripts(ctx, ref, sym))):
        return False
    return from_test or not is_test_path(ctx.file(sym.file_id).path)


def _scripts(ctx: Context, ref: RefRow, sym: Sym) -> bool:
    return _is_script(ctx, sym.file_id) and _is_script(ctx, ref.file_id)


def _is_script(ctx: Context, file_id: int) -> bool:
    """A file that neither imports nor exports: its top-level names are globals shared
    with other scripts (browser JS loaded by ``<script>`` tags)."""
    if ctx.project.imports.get(file_id):
        return False
    file_symbol = ctx.file(file_id).symbol
    top = ctx.project.members.get(file_symbol, {})
    return not any(s.is_exported for syms in top.values() for s in syms)


def _is_nested(ctx: Context, sym: Sym) -> bool:
    """Functions local to another function are invisible outside it. A top-level one's
    parent is its file's symbol, known without looking it up (which, read from the
    index, is a query per candidate)."""
    if sym.parent_id is None or sym.parent_id == ctx.file(sym.file_id).symbol:
        return False
    parent = ctx.project.syms.get(sym.parent_id)
    return parent is not None and parent.kind in FUNCTION_KINDS


def _tier(ctx: Context, ref: RefRow, sym: Sym) -> int:
    if sym.file_id == ref.file_id:
        return 3
    ref_file, sym_file = ctx.file(ref.file_id), ctx.file(sym.file_id)
    if ref_file.dir == sym_file.dir:
        return 2
    return 1 if sym.file_id in imported_files(ctx, ref.file_id) else 0


def imported_files(ctx: Context, file_id: int) -> set[int]:
    """Files whose modules ``file_id`` imports (for scoring, not for edges)."""
    found = ctx.imported_files.get(file_id)
    if found is None:
        found = set()
        for imp in ctx.project.imports.get(file_id, ()):
            target = members.import_target(ctx, imp)
            if target.module is not None:
                found.update(target.module.files)
            value = members.import_value(ctx, imp)
            if value.sym is not None:
                found.add(value.sym.file_id)
            elif value.module is not None:
                found.update(value.module.files)
        ctx.imported_files[file_id] = found
    return found
