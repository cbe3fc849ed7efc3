"""Call-graph accuracy on patterns found missing or wrong in real projects (click, httpx,
rich, commander): each test indexes a tiny project with the real pipeline and asserts an
edge that must be there and one that must not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import IndexTree
from conftest import indexed_edges as edges


def test_commonjs_exports_by_assignment_reach_destructured_requires(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``exports.Argument = Argument`` exports the class that
    ``const { Argument } = require('./argument.js')`` then names (commander)."""
    found = edges(
        tmp_path,
        {
            "lib/argument.js": "class Argument {\n  constructor(n) { this.n = n; }\n}\n"
            "function helper() {}\n"
            "exports.Argument = Argument;\n"
            "module.exports.helper = helper;\n",
            "lib/command.js": "const { Argument, helper } = require('./argument.js');\n"
            "function make(n) {\n  helper();\n  return new Argument(n);\n}\n"
            "exports.make = make;\n",
            "lib/stale.js": "class Argument {}\nfunction helper() {}\n",
        },
        index_tree,
    )
    assert ("make", "instantiates", "Argument", "lib/argument.js") in found
    assert ("make", "calls", "helper", "lib/argument.js") in found
    assert not {edge for edge in found if edge[3] == "lib/stale.js"}


def test_with_as_binds_the_context_managers_instance(tmp_path: Path, index_tree: IndexTree) -> None:
    """``with Client() as client: client.post()`` is ``Client.post`` (httpx, rich), not
    another class's ``post`` that the name alone would suggest."""
    found = edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/client.py": "class Client:\n    def post(self): ...\n"
            "    def __enter__(self): return self\n    def __exit__(self, *a): ...\n",
            "app/other.py": "class Other:\n    def post(self): ...\n",
            "app/use.py": "from app.client import Client\n\n"
            "async def send():\n    async with Client() as client:\n        client.post()\n"
            "    with open('f') as fh:\n        fh.post()\n",
        },
        index_tree,
    )
    assert ("send", "calls", "Client.post", "app/client.py") in found
    assert ("send", "calls", "Other.post", "app/other.py") not in found


def test_closures_see_the_enclosing_methods_self(tmp_path: Path, index_tree: IndexTree) -> None:
    """``self.add`` in a decorator defined inside a method (click's ``Group.command``) and
    ``this.value`` in an arrow callback (commander) are the method's class."""
    found = edges(
        tmp_path,
        {
            "group.py": "class Group:\n    def add(self, f): ...\n"
            "    def command(self):\n        def decorator(f):\n            self.add(f)\n"
            "            return f\n        return decorator\n\n"
            "class Other:\n    def add(self, f): ...\n",
            "opts.js": "class Opts {\n  value(k) { return k; }\n"
            "  all(keys) {\n    const get = (k) => this.value(k);\n    return keys.map(get);\n"
            "  }\n}\nclass Other {\n  value(k) { return k; }\n}\n"
            "module.exports = { Opts, Other };\n",
        },
        index_tree,
    )
    assert ("Group.command.decorator", "calls", "Group.add", "group.py") in found
    assert ("Group.command.decorator", "calls", "Other.add", "group.py") not in found
    assert ("Opts.all.get", "calls", "Opts.value", "opts.js") in found
    assert ("Opts.all.get", "calls", "Other.value", "opts.js") not in found


def test_a_rebinding_reads_the_previous_binding(tmp_path: Path, index_tree: IndexTree) -> None:
    """``url = url.copy_with()`` calls ``URL.copy_with`` on the ``url`` bound above (httpx);
    the rebinding itself is not in force on its own line."""
    found = edges(
        tmp_path,
        {
            "urls.py": "class URL:\n    def copy_with(self) -> 'URL': ...\n"
            "    def join(self) -> 'URL': ...\n\n"
            "class Parsed:\n    def copy_with(self) -> 'Parsed': ...\n"
            "    def join(self) -> 'Parsed': ...\n",
            "use.py": "from urls import URL\n\n"
            "def run():\n    url = URL()\n    url = url.copy_with()\n    url.join()\n",
        },
        index_tree,
    )
    assert ("run", "calls", "URL.copy_with", "urls.py") in found
    assert ("run", "calls", "URL.join", "urls.py") in found
    assert not {edge for edge in found if edge[2].startswith("Parsed")}


def test_a_method_guess_is_not_decided_by_the_callers_file(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``other.name()`` on an untyped parameter in ``command.js`` is no likelier the
    local ``Command.name`` than the imported ``Option.name`` (commander): no guess; but
    ``option.name()`` names its class. A name only one class has is still guessed, and a
    class with its stub counts once."""
    found = edges(
        tmp_path,
        {
            "lib/option.js": "class Option {\n  name() {}\n  attributeName() {}\n}\n"
            "exports.Option = Option;\n",
            "lib/command.js": "const { Option } = require('./option.js');\n"
            "class Command {\n  name() {}\n  register(option, other) {\n    option.name();\n"
            "    option.attributeName();\n    other.name();\n  }\n}\n"
            "exports.Command = Command;\n",
            "pkg/__init__.py": "",
            "pkg/model.py": "class Attr:\n    def evolve(self): ...\n",
            "pkg/model.pyi": "class Attr:\n    def evolve(self): ...\n",
            "pkg/use.py": "def run(a):\n    a.evolve()\n",
        },
        index_tree,
    )
    assert ("Command.register", "calls", "Option.attributeName", "lib/option.js") in found
    assert {edge for edge in found if edge[2].endswith(".name")} == {
        ("Command.register", "calls", "Option.name", "lib/option.js")
    }
    assert ("run", "calls", "Attr.evolve", "pkg/model.py") in found


def test_a_field_set_from_a_typed_parameter_has_its_type(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``self.out = out`` with ``out: Console`` (rich), and JavaScript's
    ``this.backend = made`` after ``const made = new Store()``, type the field (an
    untyped ``self.err`` stays unknown: ``show`` is two classes' method)."""
    found = edges(
        tmp_path,
        {
            "live.py": "class Console:\n    def show(self): ...\n\n"
            "class Other:\n    def show(self): ...\n\n"
            "class Live:\n    def __init__(self, out: Console, err) -> None:\n"
            "        self.out = out\n        self.err = err\n\n"
            "    def start(self):\n        self.out.show()\n        self.err.show()\n",
            "app.js": "class Store {\n  put() {}\n}\nclass Cache {\n  put() {}\n}\n"
            "class Service {\n  constructor() {\n    const made = new Store();\n"
            "    this.backend = made;\n  }\n  save() {\n    this.backend.put();\n  }\n}\n"
            "module.exports = { Store, Cache, Service };\n",
        },
        index_tree,
    )
    assert ("Live.start", "calls", "Console.show", "live.py") in found
    assert ("Live.start", "calls", "Other.show", "live.py") not in found
    assert ("Service.save", "calls", "Store.put", "app.js") in found
    assert ("Service.save", "calls", "Cache.put", "app.js") not in found


def test_a_call_of_a_module_level_name_bound_to_a_made_function(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``attr.ib()`` with ``ib = attr = attrib`` and ``parse.parseAsync()`` with
    ``export const parseAsync = make(...)`` (attrs, zod) call that variable; a same-named
    variable nothing imports is not guessed."""
    found = edges(
        tmp_path,
        {
            "attr/__init__.py": "from attr._make import attrib\n\nib = attr = attrib\n",
            "attr/_make.py": "def attrib(): ...\n",
            "use.py": "import attr\n\ndef run():\n    attr.ib()\n    handler()\n",
            "other.py": "handler = print\n",
            "parse.ts": "const make = () => (x: number) => x;\nexport const parseAsync = make();\n",
            "main.ts": "import * as parse from './parse';\n"
            "export function go() {\n  parse.parseAsync(1);\n}\n",
        },
        index_tree,
    )
    assert ("run", "calls", "ib", "attr/__init__.py") in found
    assert ("go", "calls", "parseAsync", "parse.ts") in found
    assert not {edge for edge in found if edge[3] == "other.py"}


def test_calls_through_local_aliases(tmp_path: Path, index_tree: IndexTree) -> None:
    """rich's ``_Segment = Segment`` and ``get_style = console.get_style`` before a loop,
    ``console = self.console``, and JavaScript's ``const self = this``: the call is of
    what the alias names. ``node = node.parent`` is no alias of itself, and binding the
    name to something else ends the alias."""
    found = edges(
        tmp_path,
        {
            "render.py": "class Segment:\n    def line(self): ...\n\n"
            "class Console:\n    def get_style(self): ...\n    def print(self): ...\n\n"
            "class Other:\n    def get_style(self): ...\n    def print(self): ...\n\n"
            "class Table:\n    def __init__(self, console: Console) -> None:\n"
            "        self.console = console\n\n"
            "    def render(self, target: Console):\n        _Segment = Segment\n"
            "        get_style = target.get_style\n        _Segment()\n        get_style()\n"
            "        console = self.console\n        console.print()\n\n"
            "    def walk(self, node):\n        node = node.parent\n        node.print()\n\n"
            "    def pick(self, flag):\n        if flag:\n            out = self.console\n"
            "        else:\n            out = make_other()\n        out.print()\n\n"
            "def make_other() -> Other: ...\n",
            "app.js": "class Shop {\n  pay() {}\n  run() {\n    const self = this;\n"
            "    self.pay();\n  }\n}\nclass Bank {\n  pay() {}\n}\n"
            "module.exports = { Shop, Bank };\n",
        },
        index_tree,
    )
    render = {edge[2] for edge in found if edge[0] == "Table.render"}
    assert render == {"Segment", "Console.get_style", "Console.print"}
    assert not {edge for edge in found if edge[0] == "Table.walk"}
    pick = {edge[2] for edge in found if edge[0] == "Table.pick"}
    assert pick == {"make_other", "Other.print"}  # the later binding ends the alias
    assert ("Shop.run", "calls", "Shop.pay", "app.js") in found
    assert ("Shop.run", "calls", "Bank.pay", "app.js") not in found


def test_private_fields_and_function_valued_fields(tmp_path: Path, index_tree: IndexTree) -> None:
    """TanStack Query's ``#cache: QueryCache`` types ``this.#cache.notify()``, and
    ``config.onFail?.()`` with ``onFail: () => void`` in an interface calls that field."""
    found = edges(
        tmp_path,
        {
            "query.ts": "export class QueryCache {\n  notify(): void {}\n}\n"
            "export class MutationCache {\n  notify(): void {}\n}\n"
            "export interface RetryerConfig {\n  onFail: () => void;\n}\n"
            "export class Query {\n  #cache: QueryCache;\n"
            "  constructor(cache: QueryCache) {\n    this.#cache = cache;\n  }\n"
            "  run(config: RetryerConfig): void {\n    this.#cache.notify();\n"
            "    config.onFail();\n  }\n}\n",
        },
        index_tree,
    )
    run = {(edge[1], edge[2]) for edge in found if edge[0] == "Query.run"}
    assert run == {("calls", "QueryCache.notify"), ("calls", "RetryerConfig.onFail")}


def test_jsdoc_types_untyped_javascript(tmp_path: Path, index_tree: IndexTree) -> None:
    """commander documents types in JSDoc: ``@param {Option} x`` types ``x`` and
    ``@returns {Option}`` a call's result; a nested ``@param {string} x.name`` types
    nothing."""
    found = edges(
        tmp_path,
        {
            "lib.js": "class Option {\n  flag() {}\n}\nclass Command {\n  flag() {}\n"
            "  /**\n   * @param {Option} x\n   * @param {string} x.name\n   */\n"
            "  register(x) {\n    x.flag();\n  }\n}\n"
            "/** @returns {Option} */\nfunction make() {\n  return new Option();\n}\n"
            "function use() {\n  make().flag();\n}\n"
            "module.exports = { Option, Command, make, use };\n",
        },
        index_tree,
    )
    assert ("Command.register", "calls", "Option.flag", "lib.js") in found
    assert ("Command.register", "calls", "Command.flag", "lib.js") not in found
    assert ("use", "calls", "Option.flag", "lib.js") in found


def test_with_a_contextmanager_binds_what_it_yields(tmp_path: Path, index_tree: IndexTree) -> None:
    """httpx's ``@contextmanager def stream() -> Iterator[Response]``: ``with stream() as
    response`` binds a ``Response``; a plain function's ``Iterator[...]`` stays a builtin."""
    found = edges(
        tmp_path,
        {
            "api.py": "from contextlib import contextmanager\nfrom typing import Iterator\n\n"
            "class Response:\n    def json(self): ...\n\n"
            "class Other:\n    def json(self): ...\n\n"
            "@contextmanager\ndef stream() -> Iterator[Response]:\n    yield Response()\n\n"
            "def lines() -> Iterator[Response]: ...\n\n"
            "def run():\n    with stream() as response:\n        response.json()\n"
            "    chunks = lines()\n    chunks.json()\n",
        },
        index_tree,
    )
    run = {edge[2] for edge in found if edge[0] == "run"}
    assert run == {"stream", "lines", "Response.json"}


def test_an_unknown_type_in_a_method_is_not_called_a_runtime_value(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """graph-stats explains what stays unresolved: "dynamic" must mean a value known only
    at run time (a parameter, a local), never a type name that merely sits in a method
    (``void setRy(Dynamic ry)`` with ``Dynamic`` from a library; react-native-svg)."""
    (tmp_path / "src").mkdir()
    # a project package beside the missing one: `com.acme.missing` is not called external
    (tmp_path / "src/Other.java").write_text("package com.acme.other;\nclass Other {}\n")
    (tmp_path / "src/View.java").write_text(
        "package app;\n"
        "import com.acme.missing.Dynamic;\n"
        "class View {\n"
        "  void setRy(Dynamic ry, Runnable done) {\n"
        "    Dynamic copy = ry;\n"
        "    done.run();\n"
        "    handler(copy);\n"
        "  }\n"
        "}\n",
        encoding="utf-8",
    )
    conn = index_tree(tmp_path)
    try:
        reasons = dict(
            conn.execute("SELECT kind || ' ' || name, reason FROM refs WHERE resolved = 0")
        )
    finally:
        conn.close()
    assert reasons["type_of Dynamic"] != "dynamic"
    assert reasons["calls handler"] == "dynamic"  # a bare name in a method: maybe a local


def test_a_for_loop_variable_has_its_collections_element_type(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``for child in self.children`` with ``children: list[Node]`` makes ``child`` a
    ``Node`` (rich, click: loops over typed lists); a mapping gives its keys and a
    fixed-length tuple no one type, so neither binds a project class."""
    found = edges(
        tmp_path,
        {
            "app/nodes.py": "from typing import Sequence\n\n\n"
            "class Node:\n    def render(self):\n        pass\n\n\n"
            "class Leaf:\n    def render(self):\n        pass\n\n\n"
            "class Tree:\n    def __init__(self, children: list[Node]):\n"
            "        self.children: list[Node] = children\n"
            "        self.by_name: dict[str, Leaf] = {}\n\n"
            "    def draw(self, more: Sequence[Leaf], pair: tuple[Leaf, Node]):\n"
            "        for child in self.children:\n            child.render()\n"
            "        for leaf in more:\n            leaf.render()\n"
            "        for key in self.by_name:\n            key.render()\n"
            "        for item in pair:\n            item.render()\n",
        },
        index_tree,
    )
    draws = {(edge[2], edge[3]) for edge in found if edge[0] == "Tree.draw"}
    assert draws == {("Node.render", "app/nodes.py"), ("Leaf.render", "app/nodes.py")}


def test_typescript_for_of_and_a_project_class_named_like_a_dom_type(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``for (const n of this.nodes)`` with ``nodes: Node[]`` calls the project's own
    ``Node``, imported from its module: a DOM type's name does not hide a project class."""
    found = edges(
        tmp_path,
        {
            "src/ast.ts": "export class Node {\n  visit(): void {}\n}\n"
            "export class Token {\n  visit(): void {}\n}\n"
            "export class Leaf {\n  visit(): void {}\n}\n",
            "src/walk.ts": "import { Leaf, Node, Token } from './ast';\n"
            "export class Walker {\n  nodes: Node[] = [];\n  tokens: Array<Token> = [];\n"
            "  walk(extra: readonly Leaf[]): void {\n"
            "    for (const n of this.nodes) {\n      n.visit();\n    }\n"
            "    for (const t of this.tokens) {\n      t.visit();\n    }\n"
            "    for (const e of extra) {\n      e.visit();\n    }\n  }\n}\n",
        },
        index_tree,
    )
    walks = {edge[2] for edge in found if edge[0] == "Walker.walk"}
    assert walks == {"Node.visit", "Token.visit", "Leaf.visit"}


def test_a_loop_over_a_call_uses_the_annotated_return_type(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``for n in self.nodes()`` with ``def nodes(self) -> list[Node]`` in the class, and
    ``for (const l of leaves())`` with ``leaves(): Leaf[]`` in the module, bind elements."""
    found = edges(
        tmp_path,
        {
            "app/tree.py": "class Node:\n    def render(self):\n        pass\n\n\n"
            "class Leaf:\n    def render(self):\n        pass\n\n\n"
            "def leaves() -> list[Leaf]:\n    return []\n\n\n"
            "class Tree:\n    def nodes(self) -> 'list[Node]':\n        return []\n\n"
            "    def draw(self):\n        for n in self.nodes():\n            n.render()\n"
            "        for leaf in leaves():\n            leaf.render()\n"
            "        for i in range(3):\n            i.render()\n",
            "src/tree.ts": "export class Node { visit(): void {} }\n"
            "export class Leaf { visit(): void {} }\n"
            "function leaves(): Leaf[] { return []; }\n"
            "export class Tree {\n  nodes(): Array<Node> { return []; }\n"
            "  walk(): void {\n    for (const n of this.nodes()) {\n      n.visit();\n    }\n"
            "    for (const l of leaves()) {\n      l.visit();\n    }\n  }\n}\n",
        },
        index_tree,
    )
    draws = {edge[2] for edge in found if edge[0] == "Tree.draw" and edge[3] == "app/tree.py"}
    assert draws == {"Tree.nodes", "leaves", "Node.render", "Leaf.render"}
    walks = {edge[2] for edge in found if edge[0] == "Tree.walk"}
    assert walks == {"Tree.nodes", "leaves", "Node.visit", "Leaf.visit"}


def test_a_binding_read_in_its_own_value_is_the_outer_name(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``assert := assert.New(t)`` (logrus's tests), ``let p = p.normalized()``, a module's
    ``client = client.Client()``: the right-hand side reads the package, parameter or
    import of that name, and only the lines after it see the new binding."""
    found = edges(
        tmp_path,
        {
            "go.mod": "module example.com/app\n\ngo 1.22\n",
            "assert/assert.go": "package assert\n\ntype Assertions struct{}\n\n"
            "func New(t int) *Assertions { return &Assertions{} }\n\n"
            "func (a *Assertions) Equal(x, y int) {}\n",
            "app_test.go": 'package app\n\nimport "example.com/app/assert"\n\n'
            "func TestSum(t int) {\n\tassert := assert.New(t)\n\tassert.Equal(1, 2)\n}\n",
            "Cargo.toml": '[package]\nname = "geo"\n',
            "src/lib.rs": "pub struct Path;\n\nimpl Path {\n"
            "    pub fn normalized(&self) -> Path { Path }\n"
            "    pub fn len(&self) -> usize { 0 }\n}\n\n"
            "pub fn measure(p: Path) -> usize {\n    let p = p.normalized();\n    p.len()\n}\n",
            "pkg/__init__.py": "",
            "pkg/client.py": "class Client:\n    def send(self) -> None: ...\n",
            "pkg/app.py": "from pkg import client\n\nclient = client.Client()\nclient.send()\n",
        },
        index_tree,
    )
    assert ("TestSum", "calls", "New", "assert/assert.go") in found
    assert ("TestSum", "calls", "Assertions.Equal", "assert/assert.go") in found
    assert ("measure", "calls", "Path.normalized", "src/lib.rs") in found
    assert ("measure", "calls", "Path.len", "src/lib.rs") in found
    assert ("pkg/app.py", "instantiates", "Client", "pkg/client.py") in found
    assert ("pkg/app.py", "calls", "Client.send", "pkg/client.py") in found


def test_a_type_alias_stands_for_the_class_it_names(tmp_path: Path, index_tree: IndexTree) -> None:
    """petgraph's ``type UnGraph<N, Ix = u32> = Graph<N, u8, Ix>``: ``UnGraph::new()`` and
    a value typed ``UnGraph`` reach ``Graph``'s methods, as TypeScript's ``type G = Graph``
    does; an alias of a builtin type reaches nothing."""
    root = tmp_path
    found = edges(
        root,
        {
            "Cargo.toml": '[package]\nname = "graphs"\n',
            "src/lib.rs": "pub struct Graph<N, Ix = u32> { n: N, i: Ix }\n"
            "impl<N, Ix> Graph<N, Ix> {\n    pub fn new() -> Self { todo!() }\n"
            "    pub fn add_node(&mut self, w: N) {}\n}\n"
            "pub struct Other;\nimpl Other {\n    pub fn add_node(&self) {}\n"
            "    pub fn new() -> Self { Other }\n}\n"
            "pub type UnGraph<N, Ix = u32> = Graph<N, Ix>;\npub type Index = u32;\n\n"
            "pub fn build() {\n    let mut g = UnGraph::<i32>::new();\n    g.add_node(1);\n}\n",
            "web/graph.ts": "export class Graph {\n  addNode(): void {}\n}\n"
            "export class Other {\n  addNode(): void {}\n}\n"
            "export type AnyGraph = Graph;\n"
            "export function grow(g: AnyGraph) {\n  g.addNode();\n}\n",
        },
        index_tree,
    )
    assert ("build", "calls", "Graph.new", "src/lib.rs") in found
    assert ("build", "calls", "Graph.add_node", "src/lib.rs") in found
    assert ("grow", "calls", "Graph.addNode", "web/graph.ts") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}
    conn = sqlite3.connect(root / ".repolens" / "index.db")
    guessed = conn.execute("SELECT count(*) FROM edges WHERE provenance = 'name-match'")
    assert guessed.fetchone()[0] == 0  # found through the alias, not by name


def test_a_loop_over_a_call_into_another_file_binds_its_elements(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``for n in tree.nodes()`` with ``def nodes(self) -> list[Node]`` in another file,
    also through ``items = tree.nodes()``; Go's ``range root.Commands()``; TypeScript's
    ``for (const n of tree.nodes())``. The loop variable is an element, not the list."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tree.py": "class Node:\n    def walk(self) -> None: ...\n\n"
            "class Tree:\n    def nodes(self) -> list[Node]:\n        return []\n"
            "    def walk(self) -> None: ...\n",
            "pkg/use.py": "from pkg.tree import Tree\n\n"
            "def visit(tree: Tree) -> None:\n    for n in tree.nodes():\n        n.walk()\n"
            "    items = tree.nodes()\n    for m in items:\n        m.walk()\n",
            "go.mod": "module example.com/c\n\ngo 1.22\n",
            "cmd/command.go": "package cmd\n\ntype Command struct{ subs []*Command }\n\n"
            "func (c *Command) Commands() []*Command { return c.subs }\n\n"
            "func (c *Command) Run() {}\n",
            "main.go": 'package main\n\nimport "example.com/c/cmd"\n\n'
            "func runAll(root *cmd.Command) {\n\tfor _, c := range root.Commands() {\n"
            "\t\tc.Run()\n\t}\n}\n",
            "web/tree.ts": "export class Leaf {\n  grow(): void {}\n}\n"
            "export class Bush {\n  leaves(): Leaf[] {\n    return [];\n  }\n"
            "  grow(): void {}\n}\n",
            "web/use.ts": "import { Bush } from './tree';\n"
            "export function tend(b: Bush) {\n  for (const l of b.leaves()) {\n"
            "    l.grow();\n  }\n}\n",
        },
        index_tree,
    )
    assert ("visit", "calls", "Node.walk", "pkg/tree.py") in found
    assert ("visit", "calls", "Tree.walk", "pkg/tree.py") not in found
    assert ("runAll", "calls", "Command.Run", "cmd/command.go") in found
    assert ("tend", "calls", "Leaf.grow", "web/tree.ts") in found
    assert ("tend", "calls", "Bush.grow", "web/tree.ts") not in found


def test_a_call_on_a_fresh_instance_is_its_class_method(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``new Parser(src).parse()`` (TypeScript, Java): the receiver is an instance of the
    class just made, not an unknown name, and its same-named rival is not called."""
    found = edges(
        tmp_path,
        {
            "p.ts": "export class Parser {\n  parse(): number { return 1; }\n}\n"
            "export class Other {\n  parse(): number { return 2; }\n}\n"
            "export function run(src: string) {\n  return new Parser(src).parse();\n}\n",
            "src/main/java/com/acme/Builder.java": "package com.acme;\n\npublic class Builder {\n"
            '  public Builder add() { return this; }\n  public String build() { return ""; }\n}\n',
            "src/main/java/com/acme/Other.java": "package com.acme;\n\npublic class Other {\n"
            "  public Other add() { return this; }\n}\n",
            "src/main/java/com/acme/Use.java": "package com.acme;\n\npublic class Use {\n"
            "  public String go() {\n    return new Builder().add().build();\n  }\n}\n",
        },
        index_tree,
    )
    assert ("run", "calls", "Parser.parse", "p.ts") in found
    assert ("Use.go", "calls", "Builder.add", "src/main/java/com/acme/Builder.java") in found
    assert ("Use.go", "calls", "Builder.build", "src/main/java/com/acme/Builder.java") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}


def test_a_value_of_a_bounded_type_variable_has_its_bounds_methods(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """petgraph's ``impl<Ix> Graph<Ix> where Ix: IndexType`` and ``fn f<Ix: IndexType>``,
    TypeScript's ``<T extends Node>``, Java's ``<T extends Node>``: ``a.index()`` and
    ``x.visit()`` are the bound's methods, not a same-named method of another class."""
    found = edges(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "gb"\n',
            "src/lib.rs": "pub trait IndexType { fn index(&self) -> usize; }\n"
            "pub struct Other;\nimpl Other { pub fn index(&self) -> usize { 0 } }\n"
            "pub struct Graph<Ix> { i: Ix }\n"
            "impl<Ix> Graph<Ix> where Ix: IndexType {\n"
            "    pub fn at(&self, a: Ix) -> usize { a.index() }\n}\n"
            "pub fn first<Ix: IndexType>(a: Ix) -> usize { a.index() }\n",
            "web/g.ts": "export class Node {\n  visit(): void {}\n}\n"
            "export class Other {\n  visit(): void {}\n}\n"
            "export function walk<T extends Node>(x: T) {\n  x.visit();\n}\n",
            "j/src/main/java/com/acme/Node.java": "package com.acme;\n\npublic class Node {\n"
            "  public void visit() {}\n}\n",
            "j/src/main/java/com/acme/Other.java": "package com.acme;\n\npublic class Other {\n"
            "  public void visit() {}\n}\n",
            "j/src/main/java/com/acme/Walk.java": "package com.acme;\n\npublic class Walk {\n"
            "  public <T extends Node> void walk(T x) {\n    x.visit();\n  }\n}\n",
        },
        index_tree,
    )
    assert ("Graph.at", "calls", "IndexType.index", "src/lib.rs") in found
    assert ("first", "calls", "IndexType.index", "src/lib.rs") in found
    assert ("walk", "calls", "Node.visit", "web/g.ts") in found
    assert ("Walk.walk", "calls", "Node.visit", "j/src/main/java/com/acme/Node.java") in found
    assert not {edge for edge in found if edge[2].startswith("Other.")}


def test_a_crates_macros_reach_its_every_module(tmp_path: Path, index_tree: IndexTree) -> None:
    """indexmap's ``#[macro_use] mod macros;``: ``double!(x)`` in any module of the crate
    is the crate's ``macro_rules! double``, and never another crate's."""
    found = edges(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["mu", "other"]\n',
            "mu/Cargo.toml": '[package]\nname = "mu"\n',
            "mu/src/lib.rs": "#[macro_use]\nmod macros;\npub mod util;\n\n"
            "pub fn top() -> u32 { double!(2) }\n",
            "mu/src/macros.rs": "macro_rules! double {\n    ($x:expr) => { $x * 2 };\n}\n",
            "mu/src/util/mod.rs": "pub mod inner;\n",
            "mu/src/util/inner.rs": "pub fn deep() -> u32 { double!(3) }\n",
            "other/Cargo.toml": '[package]\nname = "other"\n',
            "other/src/lib.rs": "macro_rules! triple {\n    ($x:expr) => { $x * 3 };\n}\n"
            "pub fn here() -> u32 { double!(1) }\n",
        },
        index_tree,
    )
    assert ("top", "calls", "double", "mu/src/macros.rs") in found
    assert ("deep", "calls", "double", "mu/src/macros.rs") in found
    assert ("here", "calls", "double", "mu/src/macros.rs") not in found
