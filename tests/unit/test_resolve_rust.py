"""Rust layout: crates, the module tree from files, and `use` paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

from conftest import IndexTree, indexed_edges, ref_reasons


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["engine", "cli"]\n',
            "engine/Cargo.toml": '[package]\nname = "game-engine"\n[dependencies]\nrand = "0.8"\n',
            "engine/src/lib.rs": "pub mod physics;\npub mod render;\n",
            "engine/src/physics.rs": "pub mod collide;\n",  # children in physics/
            "engine/src/physics/collide.rs": "pub fn hit() {}\n",
            "engine/src/render/mod.rs": "pub mod shader;\n",  # the mod.rs style
            "engine/src/render/shader.rs": "pub struct Shader;\n",
            "engine/tests/smoke.rs": "",
            "cli/Cargo.toml": '[package]\nname = "cli"\n',
            "cli/src/main.rs": "mod args;\n",  # a binary-only crate
            "cli/src/args.rs": "",
            "cli/src/bin/tool.rs": "",
        },
        "rust",
    )


def test_module_tree_follows_files_and_mod_rs(tree: Tree) -> None:
    assert tree.module("engine/src/lib.rs") == "game_engine"
    assert tree.module("engine/src/physics.rs") == "game_engine::physics"
    assert tree.module("engine/src/physics/collide.rs") == "game_engine::physics::collide"
    assert tree.module("engine/src/render/mod.rs") == "game_engine::render"
    assert tree.module("engine/src/render/shader.rs") == "game_engine::render::shader"
    assert tree.module("cli/src/args.rs") == "cli::args"  # main.rs roots a binary-only crate
    assert tree.module("engine/tests/smoke.rs") != "game_engine"  # its own crate
    assert tree.module("cli/src/bin/tool.rs") != "cli"


def test_use_paths_from_crate_self_super_and_crate_names(tree: Tree) -> None:
    collide = "engine/src/physics/collide.rs"
    shader = "engine/src/render/shader.rs"
    assert tree.target(collide, "crate::render::shader", "Shader") == shader
    assert tree.target(collide, "super::super::render", "shader") == shader
    assert tree.target("engine/src/physics.rs", "self", "collide") == collide  # `mod collide;`
    assert tree.target("cli/src/main.rs", "self", "args") == "cli/src/args.rs"
    assert tree.target("engine/tests/smoke.rs", "game_engine::physics", "collide") == collide
    result = tree.resolve(shader, "crate::physics::collide", "hit")
    assert result.module is not None and result.path == ("hit",)
    assert tree.target(collide, "std::collections", "HashMap") == "external"
    assert tree.target(collide, "rand", "Rng") == "external"
    assert tree.target(collide, "some_crate::x", "Y") == "external"


def test_use_of_a_child_module_without_crate_prefix(tree: Tree) -> None:
    """Rust 2018 paths may start at a name in the current module (`use physics::...`)."""
    assert tree.target("engine/src/lib.rs", "physics::collide", "hit") == (
        "engine/src/physics/collide.rs"
    )


def edges(root: Path, files: dict[str, str], index_tree: IndexTree) -> set[tuple[str, ...]]:
    """Every call and reference edge of a tiny crate (see ``indexed_edges``)."""
    crate = {"Cargo.toml": '[package]\nname = "app"\n', **files}
    return indexed_edges(root, crate, index_tree, ("calls", "instantiates", "references"))


HIR = """pub struct Hir { kind: u8 }

impl Hir {
    pub fn kind(&self) -> u8 { self.kind }
    pub fn find(&self) -> Option<Hir> { None }
    pub fn parse() -> Result<Hir, String> { Err(String::new()) }
}

pub struct Other;

impl Other {
    pub fn kind(&self) -> u8 { 0 }
}

pub struct Group { pub hir: Box<Hir>, pub next: Option<Rc<Hir>> }
"""


def test_wrapped_types_are_read_as_what_they_hold(tmp_path: Path, index_tree: IndexTree) -> None:
    """``Box<Hir>`` fields, ``?`` on a ``Result<Hir, _>``, ``.unwrap()`` of an ``Option<Hir>``
    and ``if let Some(h) = ...`` all reach ``Hir``'s methods (regex-syntax, toml_edit)."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub mod hir;\npub mod walk;\n",
            "src/hir.rs": HIR,
            "src/walk.rs": "use crate::hir::{Group, Hir};\n\n"
            "pub fn boxed(group: Group) -> u8 { group.hir.kind() }\n\n"
            "pub fn tried() -> Result<u8, String> {\n    let h = Hir::parse()?;\n"
            "    Ok(h.kind())\n}\n\n"
            "pub fn unwrapped(g: &Group) -> u8 {\n    let h = g.hir.find().unwrap();\n"
            "    h.kind()\n}\n\n"
            "pub fn matched(g: &Group) {\n    if let Some(h) = g.hir.find() {\n"
            "        h.kind();\n    }\n    g.next.as_ref();\n}\n",
        },
        index_tree,
    )
    for fn in ("boxed", "tried", "unwrapped", "matched"):
        assert (fn, "calls", "Hir.kind", "src/hir.rs") in found
    assert not {edge for edge in found if edge[2] == "Other.kind"}


def test_variants_test_modules_and_private_globs(tmp_path: Path, index_tree: IndexTree) -> None:
    """``Ast::Empty(span)`` builds an enum variant: a reference to it, not an unresolved
    call. ``use super::X`` in ``mod tests { }`` is the file's own ``X`` (not its parent's),
    and ``crate::de::Access`` names what ``de`` brings in with a private ``use access::*``."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub mod ast;\npub mod de;\n",
            "src/ast.rs": "pub enum Ast { Empty(u32), Lit(char) }\n\n"
            "fn make() -> Ast { Ast::Empty(0) }\n\n"
            "impl Ast {\n    fn lit() -> Self { Self::Lit('a') }\n}\n\n"
            "#[cfg(test)]\nmod tests {\n    use super::{make, Ast};\n\n"
            "    fn t() -> Ast { make() }\n}\n",
            "src/de/mod.rs": "mod access;\nmod other;\nmod value;\n\nuse access::*;\n",
            "src/de/access.rs": "pub struct Access;\n\nimpl Access {\n"
            "    pub fn new() -> Self { Access }\n}\n",
            "src/de/value.rs": "pub fn open() { crate::de::Access::new(); }\n",
            "src/de/other.rs": "pub struct Other;\n\nimpl Other {\n"
            "    pub fn new() -> Self { Other }\n}\n",
        },
        index_tree,
    )
    assert ("make", "references", "Ast.Empty", "src/ast.rs") in found
    assert ("Ast.lit", "references", "Ast.Lit", "src/ast.rs") in found
    assert ("tests.t", "calls", "make", "src/ast.rs") in found
    assert ("open", "calls", "Access.new", "src/de/access.rs") in found
    assert not {
        edge for edge in found if edge[2] in ("Ast.Empty", "Ast.Lit") and edge[1] == "calls"
    }


def test_a_macro_invocation_calls_the_macro(tmp_path: Path, index_tree: IndexTree) -> None:
    """``syntax!(...)`` in a test module calls the ``macro_rules! syntax`` beside it (glob's
    and regex-syntax's tests are mostly such macros); ``vec![]`` stays the builtin."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "#[cfg(test)]\nmod tests {\n    macro_rules! syntax {\n"
            "        ($name:ident) => { fn $name() {} };\n    }\n\n"
            "    syntax!(lit1);\n\n    fn t() { let v: Vec<u8> = vec![]; syntax!(lit2); }\n}\n",
        },
        index_tree,
    )
    assert ("tests", "calls", "tests.syntax", "src/lib.rs") in found
    assert ("tests.t", "calls", "tests.syntax", "src/lib.rs") in found
    assert {edge[2] for edge in found} == {"tests.syntax"}


def test_self_typed_parameters_and_clones(tmp_path: Path, index_tree: IndexTree) -> None:
    """``other: &Self`` in a trait's default method is the trait (regex-syntax's
    ``Interval``), in an ``impl`` block the type; ``let c = x.clone()`` holds what ``x``
    holds."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub trait Interval {\n    fn upper(&self) -> u32;\n"
            "    fn overlaps(&self, other: &Self) -> bool { other.upper() > self.upper() }\n}\n\n"
            "pub struct Range;\n\nimpl Range {\n    fn upper(&self) -> u32 { 0 }\n"
            "    fn merge(&self, other: &Self) -> u32 { let c = other.clone(); c.upper() }\n}\n\n"
            "pub struct Other;\n\nimpl Other {\n    fn upper(&self) -> u32 { 1 }\n}\n",
        },
        index_tree,
    )
    assert ("Interval.overlaps", "calls", "Interval.upper", "src/lib.rs") in found
    assert ("Range.merge", "calls", "Range.upper", "src/lib.rs") in found
    assert not {edge for edge in found if edge[2] == "Other.upper"}


def test_match_arms_bind_a_variants_payload(tmp_path: Path, index_tree: IndexTree) -> None:
    """``Item::Table(ref t) => t.len()`` calls ``Table.len``: a one-field tuple variant's
    payload types what the pattern binds (toml_edit's ``Item``, regex-syntax's ``HirKind``);
    a two-field variant binds nothing."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub struct Table;\n"
            "impl Table {\n    pub fn len(&self) -> usize { 0 }\n}\n"
            "pub struct Array;\nimpl Array {\n    pub fn len(&self) -> usize { 1 }\n}\n\n"
            "pub enum Item {\n    Table(Table),\n    Array(Box<Array>),\n"
            "    Pair(Table, Array),\n}\n\n"
            "pub fn size(item: &Item) -> usize {\n    match item {\n"
            "        Item::Table(ref t) => t.len(),\n"
            "        Item::Array(a) => a.len(),\n"
            "        Item::Pair(p, _) => p.len(),\n    }\n}\n",
        },
        index_tree,
    )
    assert ("size", "calls", "Table.len", "src/lib.rs") in found
    assert ("size", "calls", "Array.len", "src/lib.rs") in found
    assert len({edge for edge in found if edge[0] == "size" and edge[1] == "calls"}) == 2


def test_one_line_match_arms_bind_their_own_payload(tmp_path: Path, index_tree: IndexTree) -> None:
    """Arms on one line each (toml_edit's ``Item::Table(v) => v.fmt(f),``) read their own
    binding, not the arm's above; ``let t = t.get()`` still reads the ``t`` above."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub struct Table;\nimpl Table {\n    pub fn fmt(&self) {}\n"
            "    pub fn get(&self) -> Array { Array }\n}\n"
            "pub struct Array;\nimpl Array {\n    pub fn fmt(&self) {}\n}\n\n"
            "pub enum Item {\n    Table(Table),\n    Array(Array),\n}\n\n"
            "pub fn show(item: &Item) {\n    match item {\n"
            "        Item::Table(ref mut v) => v.fmt(),\n"
            "        Item::Array(v) => v.fmt(),\n    }\n}\n\n"
            "pub fn shadow(t: Table) {\n    let t = t.get();\n    t.fmt();\n}\n",
        },
        index_tree,
    )
    assert ("show", "calls", "Table.fmt", "src/lib.rs") in found
    assert ("show", "calls", "Array.fmt", "src/lib.rs") in found
    assert ("shadow", "calls", "Table.get", "src/lib.rs") in found
    assert ("shadow", "calls", "Array.fmt", "src/lib.rs") in found
    assert ("shadow", "calls", "Table.fmt", "src/lib.rs") not in found


def test_a_variant_named_like_a_builtin_type(tmp_path: Path, index_tree: IndexTree) -> None:
    """``Value::String(ref mut f) =>`` binds ``f`` to the payload ``Formatted<String>``
    (toml_edit): a variant named ``String`` is not the builtin ``String``."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "pub struct Formatted<T> { v: T }\n"
            "impl<T> Formatted<T> {\n    pub fn set_repr(&mut self) {}\n}\n\n"
            "pub enum Value {\n    String(Formatted<String>),\n    Integer(Formatted<i64>),\n}\n\n"
            "pub fn apply(mut val: Value) {\n    match val {\n"
            "        Value::String(ref mut f) => {\n            f.set_repr();\n        }\n"
            "        _ => {}\n    }\n}\n",
        },
        index_tree,
    )
    assert ("apply", "calls", "Formatted.set_repr", "src/lib.rs") in found


GRAPH = """pub struct Graph;

impl Graph {
    pub fn new() -> Graph { Graph }
    pub fn add_node(&self) {}
}

pub struct Other;

impl Other {
    pub fn new() -> Other { Other }
    pub fn add_node(&self) {}
}
"""


def test_uses_through_an_inline_module(tmp_path: Path, index_tree: IndexTree) -> None:
    """``pub mod graph { pub use crate::imp::Graph; }`` and ``pub mod facade { pub use
    crate::imp::*; }`` in ``lib.rs``: a test's ``use app::graph::Graph`` (or a glob of a
    prelude re-exporting it) names ``imp``'s ``Graph``, so its methods are exact, never
    ``Other``'s."""
    found = edges(
        tmp_path,
        {
            "src/lib.rs": "mod imp;\npub mod prelude;\n\n"
            "pub mod graph {\n    pub use crate::imp::Graph;\n}\n\n"
            "pub mod facade {\n    pub use crate::imp::*;\n}\n",
            "src/imp.rs": GRAPH,
            "src/prelude.rs": "pub use crate::graph::Graph;\n",
            "tests/facade.rs": "use app::facade::Graph;\n\n"
            "fn facade(g: &Graph) {\n    g.add_node();\n}\n",
            "tests/named.rs": "use app::graph::Graph;\n\n"
            "fn named() {\n    let g = Graph::new();\n    g.add_node();\n}\n",
            "tests/glob.rs": "use app::prelude::*;\n\n"
            "fn glob() {\n    let g: Graph = Graph::new();\n    g.add_node();\n}\n",
        },
        index_tree,
    )
    for caller, path in (("named", "src/imp.rs"), ("glob", "src/imp.rs")):
        assert (caller, "calls", "Graph.new", path) in found
        assert (caller, "calls", "Graph.add_node", path) in found
    assert ("facade", "calls", "Graph.add_node", "src/imp.rs") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}


def test_built_in_attributes_and_prelude_traits_are_builtin(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``#[inline]``, ``#[derive(Debug)]``, ``#[cfg(test)]``, ``impl ExactSizeIterator`` and
    ``Vec<_>`` (petgraph, serde_json) are the language's own, not unknown or dynamic."""
    reasons = ref_reasons(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "app"\n',
            "src/lib.rs": "#[derive(Debug)]\npub struct Walk { n: usize }\n\n"
            "impl Iterator for Walk {\n    type Item = usize;\n"
            "    #[inline]\n    fn next(&mut self) -> Option<usize> { None }\n}\n\n"
            "impl ExactSizeIterator for Walk {}\n\n"
            "pub fn all(w: Walk) -> Vec<usize> { let v: Vec<_> = w.collect(); v }\n\n"
            "#[cfg(test)]\nmod tests {}\n",
        },
        index_tree,
    )
    names = ("inline", "derive", "cfg", "ExactSizeIterator", "_")
    assert {name: reasons[name] for name in names} == dict.fromkeys(names, "builtin")
