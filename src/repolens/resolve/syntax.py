"""The text shapes the resolver reads: receiver expressions and type annotations.

Pure string work, no project knowledge: ``self.repo.get()[0]`` becomes segments with
their calls and subscripts; ``Optional[Repo]``, ``*Server``, ``&mut T`` become the head
type name that is then looked up like any other name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

IDENT = re.compile(r"#?[A-Za-z_$][\w$]*")  # `#x`: an ECMAScript private member
STRING_PREFIX = re.compile(r"[rRbBuUfF]{0,2}['\"`]")
LIFETIME = re.compile(r"'\w+\s+")


@dataclass(frozen=True, slots=True)
class Segment:
    """One step of a receiver: a name, then its calls (``c``) and subscripts (``s``)."""

    name: str
    ops: str = ""
    sep: str = ""  # separator before it: "", "." or "::"
    literal: bool = False


def _close(text: str, i: int) -> int:
    """Index of the bracket closing the one at ``i``, or -1; skips quoted strings."""
    depth, quote = 0, ""
    for j in range(i, len(text)):
        ch = text[j]
        if quote:
            if ch == quote and text[j - 1] != "\\":
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{<" and (ch != "<" or text[i] == "<"):
            depth += 1
        elif ch in ")]}>" and (ch != ">" or text[i] == "<"):
            depth -= 1
            if depth == 0:
                return j
    return -1


def _literal(text: str) -> int:
    """End of a literal receiver head (string, list, dict, number), or -1."""
    m = STRING_PREFIX.match(text)
    if m:
        quote = text[m.end() - 1]
        end = text.find(quote, m.end())
        while end > 0 and text[end - 1] == "\\":
            end = text.find(quote, end + 1)
        return end + 1 if end > 0 else -1
    if text[:1] in "[{":
        end = _close(text, 0)
        return end + 1 if end > 0 else -1
    m = re.match(r"\d[\w.]*", text)
    return m.end() if m else -1


_PARSED: dict[str, tuple[Segment, ...] | None] = {}


def parse_receiver(text: str) -> tuple[Segment, ...] | None:
    """Split ``a.b(x)[0]::c`` into segments; None when it is not a plain access chain.
    Receivers repeat a lot (``self.db``), so results are kept (the cache is bounded)."""
    found = _PARSED.get(text, ())
    if found != ():
        return found
    if len(_PARSED) > 50_000:
        _PARSED.clear()
    found = _PARSED[text] = _parse_receiver(text)
    return found


def _parse_receiver(text: str) -> tuple[Segment, ...] | None:
    text = text.strip()
    if text.startswith("new "):
        text = text[4:].lstrip()
        if "(" not in text:
            text += "()"
    segments: list[Segment] = []
    i, sep = 0, ""
    while i < len(text):
        m = IDENT.match(text, i)
        literal = False
        if m is None or (not segments and STRING_PREFIX.match(text, i)):
            if segments:
                return None
            end = _literal(text)
            if end < 0:
                return None
            name, i, literal = "", end, True
        else:
            name, i = m.group(), m.end()
        if text.startswith("::<", i) or (text.startswith("<", i) and sep == "::"):
            i = _close(text, text.index("<", i)) + 1
            if i == 0:
                return None
        ops = ""
        while i < len(text) and text[i] in "([!?":
            if text[i] in "!?" and not text.startswith("?.", i):
                i += 1  # TS non-null `x!`, Rust `x?`, macro `vec!`
                continue
            if text[i] == "?":
                break
            end = _close(text, i)
            if end < 0:
                return None
            ops += "c" if text[i] == "(" else "s"
            i = end + 1
        segments.append(Segment(name, ops, sep, literal))
        for token, new_sep in (("?.", "."), ("::", "::"), ("->", "."), (".", ".")):
            if text.startswith(token, i):
                i, sep = i + len(token), new_sep
                break
        else:
            if i < len(text):
                return None
    return tuple(segments) or None


WRAPPERS = frozenset(
    {
        "Optional", "Final", "ClassVar", "Annotated", "Required", "NotRequired", "ReadOnly", "Box",
        "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Ref", "RefMut", "Pin", "Readonly",
        "Promise", "PromiseLike", "Awaitable", "Partial", "NonNullable",
    }
)  # fmt: skip
"""Types read as the one they hold. A promise is its value: what is called on one is
nearly always called on it awaited (``const order = await repo.find(id)``)."""
CLASS_WRAPPERS = frozenset({"type", "Type", "Class"})
ARRAY = "[]"  # arrays, slices and variadics: builtin containers in every language
NULLS = frozenset({"None", "null", "undefined", "nil", "NoneType"})


GENERATOR = re.compile(r"(?:[\w.]+\.)?(?:Async)?(?:Iterator|Generator)\[(.*)\]")


def yielded_type(text: str) -> str:
    """What ``Iterator[T]``/``Generator[T, None, None]`` yields: ``T``, else ''."""
    found = GENERATOR.fullmatch(text.strip())
    return _split_top(found.group(1), ",")[0].strip() if found else ""


_RESULT_KEYWORDS = frozenset({"chan", "func", "map", "struct", "interface"})


def result_at(text: str, index: int) -> str:
    """The type of result ``index`` of a Go result list: ``*Router`` of ``(*Route,
    *Router)`` or of ``(route *Route, router *Router)``; '' when there is none."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return ""
    parts = _split_top(text[1:-1], ",")
    if index >= len(parts):
        return ""
    words = parts[index].split()
    if len(words) > 1 and words[0].isidentifier() and words[0] not in _RESULT_KEYWORDS:
        words = words[1:]  # a named result
    return " ".join(words)


def normalize_type(text: str) -> tuple[str, bool]:
    """(dotted head, whether it names the class itself) of a type as written."""
    text = text.strip().strip("'\"").strip().rstrip("?")  # Kotlin, Swift, C# `T?`
    as_class = False
    while True:
        if text.startswith(("[", "...", "map[")) or text.endswith("[]"):
            return ARRAY, as_class
        if text.startswith("(") and text.endswith(")"):  # Go results: (*Server, error)
            text = _split_top(text[1:-1], ",")[0].strip()
            continue
        lifetime = LIFETIME.match(text)
        if lifetime:  # Rust `&'a T`
            text = text[lifetime.end() :]
            continue
        for prefix in ("&mut ", "&", "*", "mut ", "dyn ", "impl ", "?", "const "):
            if text.startswith(prefix):
                text = text[len(prefix) :].lstrip()
                break
        else:
            parts = _split_top(text, "|")
            if len(parts) > 1:
                kept = [p for p in parts if p.strip() not in NULLS]
                text = kept[0].strip() if len(kept) == 1 else ""
                continue
            m = re.match(r"([\w$.:]+)\s*([\[<].*[\]>])?$", text)
            if not m:
                return "", as_class
            head, args = m.group(1).replace("::", "."), (m.group(2) or "")[1:-1]
            inner = _split_top(args, ",")[0].strip() if args else ""
            if head.split(".")[-1] in WRAPPERS and inner:
                text = inner
                continue
            if head.split(".")[-1] in CLASS_WRAPPERS and inner:
                text, as_class = inner, True
                continue
            return head, as_class


def union_members(text: str) -> list[str]:
    """The types a union names, nulls aside (``A | B | None``, ``Union[A, B]``), or an
    intersection (``Named & Aged``: a member is that of the one that has it), when there
    are two or more; else none (one type is read by ``normalize_type``)."""
    if "|" not in text and "Union[" not in text and "&" not in text.lstrip("&"):
        return []
    text = text.strip().strip("'\"").strip()
    wrapped = re.fullmatch(r"(?:typing\.)?(Union|Optional)\[(.*)\]", text)
    parts = _split_top(wrapped.group(2), ",") if wrapped else _split_top(text, "|")
    if len(parts) == 1 and not wrapped:
        parts = _split_top(text, "&")
    kept = [part.strip() for part in parts if part.strip() and part.strip() not in NULLS]
    if len(kept) == 1 and kept[0] != text:  # `Union[A, B] | None`, `Optional[A | B]`
        return union_members(kept[0])
    return kept if len(kept) > 1 else []


SEQUENCES = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "tuple", "Tuple", "Array", "ReadonlyArray",
     "Vec", "VecDeque", "IList", "ArrayList", "MutableList"}
)  # fmt: skip
MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict",
     "Record", "HashMap", "BTreeMap", "IndexMap", "Dictionary", "IDictionary", "Map",
     "MutableMap"}
)  # fmt: skip
_GENERIC = re.compile(r"([\w$.]+)\s*[\[<](.*)[\]>]$")


def is_mapping(text: str) -> bool:
    """Whether ``text`` names a mapping type (``dict[str, Conn]``, ``map[string]T``)."""
    found = _GENERIC.match(text.strip())
    head = found.group(1).rsplit(".", 1)[-1] if found else ""
    return head in MAPPINGS or text.strip().startswith("map[")


def subscript_item(text: str) -> str:
    """What indexing a value of type ``text`` gives: a sequence's element (``list[Conn]``,
    ``Conn[]``, ``[]Conn``, ``Vec<Conn>``, Rust's slice ``[Conn]``, ``tuple[Conn, ...]``),
    a mapping's value (``dict[str, Conn]``, ``map[string]Conn``, ``Record<string, Conn>``);
    '' otherwise."""
    text = text.strip()
    if text.endswith("[]"):
        return text[:-2].strip()
    if text.startswith("[]"):
        return text[2:].strip()
    if text.startswith("[") and text.endswith("]") and len(_split_top(text[1:-1], ",")) == 1:
        return text[1:-1].strip()
    if text.startswith("map["):  # Go: the value type follows the key's closing bracket
        depth = 0
        for i, ch in enumerate(text[3:], start=3):
            depth += {"[": 1, "]": -1}.get(ch, 0)
            if depth == 0:
                return text[i + 1 :].strip()
        return ""
    found = _GENERIC.match(text)
    if found is None:
        return ""
    head, args = found.group(1).rsplit(".", 1)[-1], _split_top(found.group(2), ",")
    if head in SEQUENCES and (len(args) == 1 or (len(args) == 2 and args[1].strip() == "...")):
        return args[0].strip()
    if head in MAPPINGS and len(args) == 2:
        return args[1].strip()
    return ""


def aliased_type(signature: str) -> str:
    """What a type alias names: ``pub type UnGraph<N, Ix = u32> = Graph<N, u8, Ix>`` ->
    ``Graph<N, u8, Ix>``, the text after its first ``=`` outside brackets."""
    depth = 0
    for i, ch in enumerate(signature):
        if ch in "[(<{":
            depth += 1
        elif ch in "])}" or (ch == ">" and signature[i - 1 : i] != "-"):
            depth -= 1
        elif ch == "=" and depth == 0 and signature[i + 1 : i + 2] not in ("=", ">"):
            return signature[i + 1 :].strip().rstrip(";").strip()
    return ""


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(<{":
            depth += 1
        elif ch in "])>}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
