"""Extraction for the breadth languages with their real grammars: symbols, calls, imports.

One compact case per language, asserting what the resolver depends on: definition kinds and
qualified names, members attached to their types, calls with receivers, import shapes.
"""

from __future__ import annotations

import pytest

from repolens.parse import grammar_status, parse_source
from repolens.parse.model import ParsedFile


def _parse(language: str, path: str, code: str) -> ParsedFile:
    status = grammar_status().get(language, "no spec")
    if status != "ok":
        pytest.skip(f"{language}: {status}")
    parsed = parse_source(path, language, code.encode())
    assert not parsed.error
    return parsed


def _symbols(parsed: ParsedFile) -> set[tuple[str, str]]:
    return {(s.kind, s.qualified_name) for s in parsed.symbols}


def _calls(parsed: ParsedFile) -> set[tuple[str, str | None]]:
    return {(r.name, r.receiver) for r in parsed.references if r.kind == "calls"}


C_SOURCE = """\
#include "util.h"
#include <stdio.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef struct { int x; } Point;
struct Node { struct Node *next; };
enum Color { RED };
static int helper(const struct Node *n) { return add(1, 2); }
int *make(void) { ops->run(0); return 0; }
"""


def test_c_definitions_includes_and_calls() -> None:
    parsed = _parse("c", "src/a.c", C_SOURCE)
    assert _symbols(parsed) >= {
        ("macro", "MAX"), ("struct", "Point"), ("field", "Point.x"), ("struct", "Node"),
        ("enum", "Color"), ("enum_member", "Color.RED"), ("function", "helper"),
        ("function", "make"),
    }  # fmt: skip
    helper = next(s for s in parsed.symbols if s.name == "helper")
    assert (helper.visibility, helper.is_exported) == ("private", False)
    assert [(i.module, i.is_wildcard) for i in parsed.imports] == [
        ("util.h", True),
        ("<stdio.h>", True),
    ]
    assert _calls(parsed) == {("add", None), ("run", "ops")}
    assert ("n", "Node") in {(b.name, b.type_name) for b in parsed.bindings}


CPP_SOURCE = """\
namespace shop {
class Store : public Base {
 public:
  Store();
  int put(int x);
  virtual bool check() const;
  static Store* make() { return new Store(); }
 private:
  void log() {}
};
int Store::put(int x) { log(); other.run(); shop::price(x); return 0; }
}
int Store::size() const { return 0; }
"""


def test_cpp_classes_out_of_class_methods_and_namespaces() -> None:
    parsed = _parse("cpp", "src/store.cpp", CPP_SOURCE)
    symbols = _symbols(parsed)
    assert symbols >= {
        ("namespace", "shop"), ("class", "Store"), ("method", "Store.put"),
        ("method", "Store.check"), ("method", "Store.make"), ("method", "Store.log"),
        ("method", "Store.size"),
    }  # fmt: skip
    assert ("method", "Store.Store") not in symbols  # a bare prototype is not a symbol
    by_name = {s.qualified_name: s for s in parsed.symbols}
    store = parsed.symbols.index(by_name["Store"])
    assert by_name["Store.put"].parent == store  # defined out of class, same file
    assert by_name["Store.log"].visibility == "private"
    assert by_name["Store.make"].is_static
    assert by_name["Store"].bases == ("Base",)
    assert _calls(parsed) >= {("log", None), ("run", "other"), ("price", "shop")}
    assert ("instantiates", "Store") in {(r.kind, r.name) for r in parsed.references}


CSHARP_SOURCE = """\
using Shop.Models;
using Fmt = Shop.Util.Formatter;
namespace Shop.Services
{
    public partial class OrderService : ServiceBase, IService
    {
        private readonly Repo _repo;
        public int Count { get; set; }
        public OrderService(Repo repo) { _repo = repo; }
        public void Place(Order order) { var o = new Order(); _repo.Save(order); this.Log(); }
        [Fact]
        public void Works() { }
    }
}
"""


def test_csharp_namespace_members_and_usings() -> None:
    parsed = _parse("csharp", "src/OrderService.cs", CSHARP_SOURCE)
    assert _symbols(parsed) >= {
        ("namespace", "Shop.Services"), ("class", "OrderService"), ("field", "OrderService._repo"),
        ("property", "OrderService.Count"), ("constructor", "OrderService.OrderService"),
        ("method", "OrderService.Place"), ("test", "OrderService.Works"),
    }  # fmt: skip
    cls = next(s for s in parsed.symbols if s.name == "OrderService")
    assert cls.parent is None  # namespaces do not contain: types stay file-level names
    kinds = {(r.kind, r.name) for r in parsed.references}
    assert {("extends", "ServiceBase"), ("implements", "IService")} <= kinds
    assert ("instantiates", "Order") in kinds
    assert _calls(parsed) >= {("Save", "_repo"), ("Log", "this")}
    assert [(i.module, i.name, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("Shop.Models", None, None, True),
        ("Shop.Util", "Formatter", "Fmt", False),
    ]
    assert ("o", "Order") in {(b.name, b.type_name) for b in parsed.bindings}


PHP_SOURCE = """\
<?php
namespace App\\Services;
use App\\Models\\Order;
use App\\Util\\{Fmt, Money as M};
require_once __DIR__ . '/../bootstrap.php';
class OrderService extends Base implements Svc
{
    use Logs;
    private Repo $repo;
    public function __construct(Repo $repo) { $this->repo = $repo; }
    public function place(Order $order): string {
        $this->repo->save($order);
        Fmt::price(1);
        return self::make();
    }
    public static function make(): static { return new static(); }
}
"""


def test_php_classes_calls_uses_and_requires() -> None:
    parsed = _parse("php", "src/Services/OrderService.php", PHP_SOURCE)
    assert _symbols(parsed) >= {
        ("namespace", "App\\Services"), ("class", "OrderService"), ("field", "OrderService.repo"),
        ("constructor", "OrderService.__construct"), ("method", "OrderService.place"),
    }  # fmt: skip
    kinds = {(r.kind, r.name) for r in parsed.references}
    assert {("extends", "Base"), ("implements", "Svc"), ("extends", "Logs")} <= kinds
    assert ("instantiates", "static") not in kinds
    assert _calls(parsed) >= {("save", "$this->repo"), ("price", "Fmt"), ("make", "self")}
    assert [(i.module, i.name, i.alias) for i in parsed.imports] == [
        ("App\\Models", "Order", None),
        ("App\\Util", "Fmt", None),
        ("App\\Util", "Money", "M"),
        ("./../bootstrap.php", None, None),
    ]
    assert ("$this.repo", "Repo") in {(b.name, b.type_name) for b in parsed.bindings}


RUBY_SOURCE = """\
require "json"
require_relative "order"
module Shop
  module Logging
    def log(message); end
  end

  class OrderService < BaseService
    include Logging
    attr_reader :repo

    def initialize(repo)
      @repo = repo
    end

    def place(order)
      order.save
      Util.format(1)
      helper
      item = Order.new(1)
    end

    def self.build
      new
    end

    private

    def helper; end
  end
end
"""


def test_ruby_modules_mixins_and_requires() -> None:
    parsed = _parse("ruby", "lib/shop/order_service.rb", RUBY_SOURCE)
    assert _symbols(parsed) >= {
        ("module", "Shop"), ("trait", "Shop.Logging"), ("class", "Shop.OrderService"),
        ("constructor", "Shop.OrderService.initialize"), ("method", "Shop.OrderService.place"),
        ("method", "Shop.OrderService.build"), ("method", "Shop.OrderService.helper"),
        ("method", "Shop.OrderService.repo"),
    }  # fmt: skip
    by_name = {s.qualified_name: s for s in parsed.symbols}
    assert by_name["Shop.OrderService.build"].is_static
    assert by_name["Shop.OrderService.helper"].visibility == "private"
    assert by_name["Shop.OrderService"].bases == ("BaseService", "Logging")
    assert _calls(parsed) >= {("save", "order"), ("format", "Util"), ("helper", None)}
    assert ("instantiates", "Order") in {(r.kind, r.name) for r in parsed.references}
    assert [(i.module, i.is_wildcard) for i in parsed.imports] == [
        ("json", True),
        ("./order", True),
    ]
    assert ("item", "Order") in {(b.name, b.type_name) for b in parsed.bindings}


KOTLIN_SOURCE = """\
package com.shop.service

import com.shop.model.Order
import com.shop.util.*
import com.shop.util.Money as Cash

class OrderService(private val repo: Repo) : BaseService(), Auditable {
    fun place(order: Order): String {
        val fresh = Order(1)
        repo.store(order)
        return Cash.format(fresh.cents)
    }

    companion object {
        fun create(): OrderService = OrderService(Repo())
    }
}

object Registry {
    fun all(): Int = 1
}
"""


def test_kotlin_classes_objects_companions_and_imports() -> None:
    parsed = _parse("kotlin", "src/OrderService.kt", KOTLIN_SOURCE)
    assert _symbols(parsed) >= {
        ("namespace", "com.shop.service"), ("class", "OrderService"),
        ("field", "OrderService.repo"), ("method", "OrderService.place"),
        ("method", "OrderService.create"), ("class", "Registry"), ("method", "Registry.all"),
    }  # fmt: skip
    by_name = {s.qualified_name: s for s in parsed.symbols}
    assert by_name["OrderService.create"].is_static  # companion members belong to the class
    assert not by_name["OrderService.place"].is_static
    kinds = {(r.kind, r.name) for r in parsed.references}
    assert {("extends", "BaseService"), ("implements", "Auditable")} <= kinds
    assert _calls(parsed) >= {("Order", None), ("store", "repo"), ("format", "Cash")}
    assert [(i.module, i.name, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("com.shop.model", "Order", None, False),
        ("com.shop.util", None, None, True),
        ("com.shop.util", "Money", "Cash", False),
    ]
    assert ("this.repo", "Repo") in {(b.name, b.type_name) for b in parsed.bindings}


SWIFT_SOURCE = """\
import ShopCore

public final class OrderService: BaseService, Auditable {
    private let repo: Repo
    init(repo: Repo) { self.repo = repo }
    public func place(order: Order) -> String {
        repo.store(order)
        let fresh = Order(cents: 1)
        return Money.format(fresh.cents)
    }
    static func create() -> OrderService { return OrderService(repo: Repo()) }
}

extension OrderService: CustomStringConvertible {
    func extra() {}
}

struct Point { var x: Int }
"""


def test_swift_types_extensions_and_imports() -> None:
    parsed = _parse("swift", "Sources/Shop/OrderService.swift", SWIFT_SOURCE)
    assert _symbols(parsed) >= {
        ("class", "OrderService"), ("field", "OrderService.repo"),
        ("constructor", "OrderService.init"), ("method", "OrderService.place"),
        ("method", "OrderService.create"), ("method", "OrderService.extra"),
        ("struct", "Point"), ("field", "Point.x"),
    }  # fmt: skip
    by_name = {s.qualified_name: s for s in parsed.symbols}
    assert by_name["OrderService.create"].is_static
    assert by_name["OrderService.repo"].visibility == "private"
    kinds = {(r.kind, r.name) for r in parsed.references}
    assert {("extends", "BaseService"), ("implements", "Auditable")} <= kinds
    assert ("implements", "CustomStringConvertible") in kinds  # from the extension
    assert _calls(parsed) >= {("store", "repo"), ("Order", None), ("format", "Money")}
    assert [(i.module, i.is_wildcard) for i in parsed.imports] == [("ShopCore", True)]
    kinds_of = _symbols(_parse("swift", "k.swift", "enum Kind { case a, b }\n"))
    assert kinds_of == {("enum", "Kind"), ("enum_member", "Kind.a"), ("enum_member", "Kind.b")}


SCALA_SOURCE = """\
package com.shop.service

import com.shop.model.Order
import com.shop.util._
import com.shop.util.{Money => Cash, Fmt}

class OrderService(repo: Repo) extends BaseService with Auditable {
  val cache = new Cache()
  def place(order: Order): String = {
    repo.store(order)
    val fresh = Order(1)
    Cash.format(fresh.cents)
  }
}
object OrderService {
  def create(): OrderService = new OrderService(new Repo)
}
trait Auditable { def audit(): Unit }
"""


def test_scala_classes_objects_traits_and_selectors() -> None:
    parsed = _parse("scala", "src/OrderService.scala", SCALA_SOURCE)
    assert _symbols(parsed) >= {
        ("namespace", "com.shop.service"), ("class", "OrderService"),
        ("field", "OrderService.cache"), ("method", "OrderService.place"),
        ("method", "OrderService.create"), ("trait", "Auditable"), ("method", "Auditable.audit"),
    }  # fmt: skip
    create = next(s for s in parsed.symbols if s.name == "create")
    assert create.is_static  # members of an object
    cls = next(s for s in parsed.symbols if s.kind == "class")
    assert cls.bases == ("BaseService", "Auditable")
    assert _calls(parsed) >= {("store", "repo"), ("Order", None), ("format", "Cash")}
    assert ("instantiates", "Repo") in {(r.kind, r.name) for r in parsed.references}
    assert [(i.module, i.name, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("com.shop.model", "Order", None, False),
        ("com.shop.util", None, None, True),
        ("com.shop.util", "Money", "Cash", False),
        ("com.shop.util", "Fmt", None, False),
    ]


DART_SOURCE = """\
import 'package:shop/models/order.dart';
import 'src/util.dart' as util;
import 'src/repo.dart' show Repo;

class OrderService extends BaseService with Logging implements Auditable {
  final Repo repo;
  OrderService(this.repo);
  String place(Order order) {
    repo.store(order);
    final fresh = Order(1);
    return util.format(fresh.cents);
  }
  static int count() => 0;
}
mixin Logging { void log(String m) {} }
int top() => 1;
"""


def test_dart_bodies_own_their_calls() -> None:
    parsed = _parse("dart", "lib/service.dart", DART_SOURCE)
    assert _symbols(parsed) >= {
        ("class", "OrderService"), ("field", "OrderService.repo"),
        ("constructor", "OrderService.OrderService"), ("method", "OrderService.place"),
        ("method", "OrderService.count"), ("trait", "Logging"), ("method", "Logging.log"),
        ("function", "top"),
    }  # fmt: skip
    place = next(s for s in parsed.symbols if s.name == "place")
    assert (place.start_line, place.signature) == (8, "String place(Order order)")
    callers = {r.name: parsed.symbols[r.source].name for r in parsed.references
               if r.kind == "calls" and r.source is not None}  # fmt: skip
    assert callers == {"store": "place", "Order": "place", "format": "place"}
    assert next(s for s in parsed.symbols if s.name == "count").is_static
    kinds = {(r.kind, r.name) for r in parsed.references}
    assert {
        ("extends", "BaseService"),
        ("extends", "Logging"),
        ("implements", "Auditable"),
    } <= kinds
    assert [(i.module, i.name, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("package:shop/models/order.dart", None, None, True),
        ("src/util.dart", None, "util", False),
        ("src/repo.dart", "Repo", None, False),
    ]


BASH_SOURCE = """\
#!/usr/bin/env bash
source ./lib/common.sh
. "$(dirname "$0")/lib/log.sh"
. "$DYNAMIC_$NAME.sh"
deploy() {
  log_info "deploying"
  build_all "$1"
}
function helper {
  echo hi
}
deploy "$@"
"""


def test_bash_functions_commands_and_sources() -> None:
    parsed = _parse("bash", "bin/deploy.sh", BASH_SOURCE)
    assert _symbols(parsed) == {("function", "deploy"), ("function", "helper")}
    calls = {(r.name, r.source) for r in parsed.references if r.kind == "calls"}
    assert {("log_info", 0), ("build_all", 0), ("echo", 1), ("deploy", None)} <= calls
    assert "source" not in {name for name, _ in calls}
    assert [(i.module, i.is_wildcard) for i in parsed.imports] == [
        ("./lib/common.sh", True),
        ("./lib/log.sh", True),
    ]


LUA_SOURCE = """\
local util = require("shop.util")
require "shop.setup"
local M = {}
function M.place(order)
  order:save()
  util.format(1)
  helper()
end
function M:total() return self.n end
local function helper() end
return M
"""


def test_lua_module_functions_and_requires() -> None:
    parsed = _parse("lua", "lua/shop/init.lua", LUA_SOURCE)
    assert _symbols(parsed) == {
        ("method", "M.place"),
        ("method", "M.total"),
        ("function", "helper"),
    }
    helper = next(s for s in parsed.symbols if s.name == "helper")
    assert (helper.visibility, helper.is_exported) == ("private", False)
    assert _calls(parsed) == {("save", "order"), ("format", "util"), ("helper", None)}
    assert [(i.module, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("shop.util", "util", False),
        ("shop.setup", None, True),
    ]


ELIXIR_SOURCE = """\
defmodule Shop.OrderService do
  @moduledoc "Places orders."
  alias Shop.{Order, Repo}
  alias Shop.Util.Money, as: Cash
  import Shop.Logging
  require Logger

  @doc "Places one."
  def place(cents) do
    order = Order.new(cents)
    audit(order)
    cents |> Cash.format()
  end

  defp audit(order) when is_map(order), do: Repo.store(order)
end
"""


def test_elixir_modules_functions_aliases() -> None:
    parsed = _parse("elixir", "lib/shop/order_service.ex", ELIXIR_SOURCE)
    assert _symbols(parsed) == {
        ("module", "Shop.OrderService"),
        ("function", "OrderService.place"),
        ("function", "OrderService.audit"),
    }
    by_name = {s.name: s for s in parsed.symbols}
    assert by_name["Shop.OrderService"].docstring == "Places orders."
    assert by_name["place"].docstring == "Places one."
    assert by_name["audit"].visibility == "private"
    calls = _calls(parsed)
    assert calls >= {("new", "Order"), ("audit", None), ("format", "Cash"), ("store", "Repo")}
    assert ("place", None) not in calls and ("audit", None) in calls  # heads are not calls
    assert [(i.module, i.alias, i.is_wildcard) for i in parsed.imports] == [
        ("Shop.Order", "Order", False),
        ("Shop.Repo", "Repo", False),
        ("Shop.Util.Money", "Cash", False),
        ("Shop.Logging", None, True),
        ("Logger", None, False),
    ]


VUE_SOURCE = """\
<template>
  <OrderRow :order="order" />
</template>

<script setup lang="ts">
import { ref } from 'vue'
import OrderRow from './OrderRow.vue'
// import Old from './Old.vue'
export { helper } from '@/util'
</script>

<style lang="scss">
@use '@/styles/theme' as t;
@import 'a', 'b';
</style>
"""


def test_vue_script_and_style_imports_keep_their_lines() -> None:
    parsed = _parse("vue", "src/OrderList.vue", VUE_SOURCE)
    assert [(i.module, i.name, i.alias, i.line) for i in parsed.imports] == [
        ("./OrderList.vue", "OrderList", "default", 1),  # the component: its default export
        ("vue", "ref", None, 6),
        ("./OrderRow.vue", "default", "OrderRow", 7),
        ("@/util", "helper", None, 9),
        ("@/styles/theme", None, "t", 13),
        ("a", None, None, 14),
        ("b", None, None, 14),
    ]


def test_svelte_blocks() -> None:
    source = "<script>\n  import Badge from './Badge.svelte';\n</script>\n<Badge />\n"
    parsed = _parse("svelte", "src/Cart.svelte", source)
    assert [(i.module, i.line) for i in parsed.imports] == [
        ("./Cart.svelte", 1),
        ("./Badge.svelte", 2),
    ]


def test_stylesheet_imports_and_mixins() -> None:
    scss = _parse("scss", "a.scss", "@use 'sass:math';\n@use 'src/corners' as c;\n"
                  "@forward 'list';\n@mixin card($p) { padding: $p; }\n"
                  ".x { @include card(1px); }\n")  # fmt: skip
    assert [(i.module, i.alias, i.is_wildcard, i.is_reexport) for i in scss.imports] == [
        ("sass:math", "math", False, False),
        ("src/corners", "c", False, False),
        ("list", None, True, True),
    ]
    assert _symbols(scss) == {("function", "card")}
    assert _calls(scss) == {("card", None)}
    css = _parse("css", "a.css", '@import url("base.css");\n/* @import "old.css"; */\n')
    assert [(i.module, i.is_wildcard) for i in css.imports] == [("base.css", True)]
    less = _parse("less", "a.less", '@import (reference) "mixins";\n.r(@x) { a: @x; }\n')
    assert [i.module for i in less.imports] == ["mixins"]
    assert _symbols(less) == {("function", "r")}
