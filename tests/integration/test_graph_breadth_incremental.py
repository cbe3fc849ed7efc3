"""Incremental resolution equals full resolution for the breadth languages' layouts.

Each case renames one definition that other files use (so edges must change), re-stores
only that file, resolves incrementally, and compares everything resolution wrote with a
fresh full index of the changed tree (``snapshot`` from the Python/TypeScript test).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, index_tree, store_tree
from test_graph_accuracy_incremental import snapshot
from test_graph_breadth import BREADTH

from repolens.parse import grammar_status
from repolens.parse.registry import LINE_ONLY
from repolens.resolve import resolve

# fixture -> (file, text, replacement)
RENAMES = {
    "c": ("src/util.c", "int add(int a, int b) {", "int add2(int a, int b) {"),
    "cpp": ("src/store.cpp", "void Store::log(", "void Store::note("),
    "csharp": ("src/Shop/Services/OrderService.Audit.cs", "void Audit(", "void Review("),
    "php": ("src/Services/Repo.php", "function store(", "function keep("),
    "ruby": ("lib/shop/order.rb", "def save", "def persist"),
    "kotlin": ("src/main/kotlin/com/shop/service/BaseService.kt", "fun log(", "fun note("),
    "swift": ("Sources/ShopCore/Repo.swift", "func store(", "func keep("),
    "scala": ("src/main/scala/com/shop/service/BaseService.scala", "def log(", "def note("),
    "dart": ("lib/src/logging.dart", "void log(", "void note("),
    "bash": ("lib/log.sh", "log_info() {", "log_note() {"),
    "lua": ("lua/shop/util.lua", "function M.format_price", "function M.fmt_price"),
    "elixir": ("lib/shop/logging.ex", "def log(", "def note("),
    "web": ("src/styles/_colors.scss", "@mixin tint(", "@mixin shade("),
    "godot": ("actors/actor.gd", "func heal(", "func mend("),
    "terraform": ("variables.tf", 'variable "region"', 'variable "zone"'),
    "r": ("R/plots.R", 'source("R/utils.R")', 'source("R/missing.R")'),
    "sql": ("db/schema.sql", "CREATE TABLE customers (", "CREATE TABLE clients ("),
    "objc": ("Shop/Cart.m", "- (double)subtotal {", "- (double)base {"),
    "haskell": ("src/Shop/Util.hs", "formatPrice n =", "formatCost n ="),
    "zig": ("src/util.zig", "pub fn double(", "pub fn twice("),
    "julia": ("src/util.jl", "tax(n) = n * 2", "levy(n) = n * 2"),
    "powershell": ("lib/Util.ps1", "function Get-Tax {", "function Get-Levy {"),
    "perl": ("lib/Shop/Base.pm", "sub audit {", "sub check {"),
    "groovy": ("src/main/groovy/com/shop/Base.groovy", "int subtotal()", "int base()"),
    "solidity": ("contracts/Ownable.sol", "modifier onlyOwner()", "modifier onlyAdmin()"),
    "luau": ("src/Fee.luau", "function Fee.fee()", "function Fee.charge()"),
    "nix": ("lib/util.nix", "describe = name:", "label = name:"),
    "ocaml": ("lib/shop_util.ml", "let tax n", "let levy n"),
    "dotnet": ("src/Shop/ServiceBase.vb", "Function Audit()", "Function Check()"),
    "outlines": ("proto/shop/order.proto", 'import "shop/money.proto";', 'import "cash.proto";'),
}
# edits whose effect crosses files through a class rather than a name in scope
MEMBER_EDITS = [
    # an inherited member defined in another source: `describe()` in `Counter::add`
    ("cpp", "src/base.cpp", "Base::describe(", "Base::explain("),
    # a member named like a free function: `helper()` in `Counter::add` falls back to it
    ("cpp", "src/counter.cpp", "int Counter::helper(", "int Counter::twice("),
    # one part of a partial class drops its base: the other part's inherited calls go
    ("csharp", "src/Shop/Services/OrderService.cs", "OrderService : ServiceBase", "OrderService"),
    # a base method called through `parent::` from a class in another namespace
    ("php", "src/Services/BaseService.php", "function audit(", "function check("),
    # an extension function imported from another package
    ("kotlin", "src/main/kotlin/com/shop/util/Format.kt", "fun Order.label(", "fun Order.tag("),
    # a method an extension in another file adds to a type
    ("swift", "Sources/ShopCore/Order+Pricing.swift", "func total(", "func sum("),
    # a companion object's factory, called on the class's name from another package
    ("scala", "src/main/scala/com/shop/model/Order.scala", "def free(", "def none("),
    # an F# module and a Pascal unit renamed: their importers' edges go
    ("dotnet", "fs/Util.fs", "let formatPrice n", "let formatCost n"),
    ("dotnet", "pascal/ShopUtil.pas", "unit ShopUtil;", "unit ShopUtils;"),
]
CASES = [(fixture, *edit) for fixture, edit in sorted(RENAMES.items())] + MEMBER_EDITS


@pytest.mark.parametrize(("fixture", "path", "old", "new"), CASES)
def test_incremental_equals_full(
    fixture: str, path: str, old: str, new: str, tmp_path: Path
) -> None:
    status = grammar_status()
    if any(status.get(lang) not in ("ok", LINE_ONLY) for lang in BREADTH[fixture]):
        pytest.skip(f"grammars not loadable here for {fixture}")
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / fixture, root)
    (root / "expected.toml").unlink()
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    before = snapshot(conn)
    text = (root / path).read_text(encoding="utf-8")
    assert old in text
    (root / path).write_text(text.replace(old, new), encoding="utf-8")
    ids = store_tree(conn, root, [path])
    resolve(conn, root, ids)
    fresh, _ = index_tree(root, tmp_path / "full.db")
    after = snapshot(conn)
    assert after["edges"] != before["edges"]
    assert after == snapshot(fresh)
