"""A receiver typed as a union of project types calls the method of each that has it."""

from __future__ import annotations

from pathlib import Path

from conftest import IndexTree, indexed_edges

STREAMS = (
    "from typing import TypeAlias, Union\n\n"
    "class ObjectStream:\n    def send(self, item): ...\n    def close(self): ...\n\n"
    "class ByteStream:\n    def send(self, data): ...\n\n"
    "AnyStream: TypeAlias = ObjectStream | ByteStream\n"
    "OldStream = Union[ObjectStream, ByteStream]\n"
)


def test_python_unions_written_inline_and_through_aliases(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/streams.py": STREAMS,
            "app/text.py": "from typing import Optional\n"
            "from app.streams import AnyStream, ByteStream, ObjectStream, OldStream\n\n"
            "class TextSend:\n    transport: AnyStream\n\n"
            "    def inline(self, s: ObjectStream | ByteStream | None):\n        s.send(1)\n\n"
            "    def field(self):\n        self.transport.send(1)\n\n"
            "    def assigned(self, s: OldStream):\n        s.send(1)\n\n"
            "    def only_one_has_it(self, s: Optional[AnyStream]):\n        s.close()\n\n"
            "    def with_a_builtin(self, s: str | ObjectStream):\n        s.close()\n",
        },
        index_tree,
    )
    for method in ("TextSend.inline", "TextSend.field", "TextSend.assigned"):
        assert (method, "calls", "ObjectStream.send", "app/streams.py") in found
        assert (method, "calls", "ByteStream.send", "app/streams.py") in found
    assert ("TextSend.only_one_has_it", "calls", "ObjectStream.close", "app/streams.py") in found
    assert ("TextSend.with_a_builtin", "calls", "ObjectStream.close", "app/streams.py") in found


def test_an_intersection_has_the_members_of_each(tmp_path: Path, index_tree: IndexTree) -> None:
    """Each call is an exact answer through the stated type, not a guess by name."""
    found = _calls(
        tmp_path,
        "export interface Named { name(): string }\n"
        "export interface Aged { age(): number }\n"
        "export class Clock { age(): number { return 0 } }\n"
        "export function greet(p: Named & Aged) { p.name(); p.age() }\n",
        index_tree,
    )
    assert {edge: provenance for edge, (provenance, _) in found.items()} == {
        ("greet", "Named.name"): "resolved-type",
        ("greet", "Aged.age"): "resolved-type",
    }


def test_a_union_with_a_type_not_the_projects_gives_a_less_sure_edge(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``ObservableSet | Set``: ``forEach`` may be the builtin's, so the project's method
    is only maybe the one called, where a union of project types alone is sure."""
    found = _calls(
        tmp_path,
        "export class ObservableSet { forEach(f: any) {} }\n"
        "export class FrozenSet { forEach(f: any) {} }\n"
        "export function mixed(other: ObservableSet | Set<number>) { other.forEach(1) }\n"
        "export function own(other: ObservableSet | FrozenSet) { other.forEach(1) }\n",
        index_tree,
    )
    sure = {edge: confidence for edge, (_, confidence) in found.items()}
    assert set(sure) == {
        ("mixed", "ObservableSet.forEach"),
        ("own", "ObservableSet.forEach"),
        ("own", "FrozenSet.forEach"),
    }
    assert sure[("mixed", "ObservableSet.forEach")] < sure[("own", "ObservableSet.forEach")]


def _calls(
    root: Path, source: str, index_tree: IndexTree
) -> dict[tuple[str, str], tuple[str, float]]:
    """Index ``source`` as ``src/main.ts``; (caller, callee) -> (provenance, confidence)
    of every call edge."""
    (root / "src").mkdir()
    (root / "src/main.ts").write_text(source, encoding="utf-8")
    conn = index_tree(root)
    try:
        rows = conn.execute(
            "SELECT s.name, t.qualified_name, e.provenance, e.confidence FROM edges e"
            " JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id"
            " WHERE e.kind = 'calls'"
        )
        return {(row[0], row[1]): (row[2], row[3]) for row in rows}
    finally:
        conn.close()
