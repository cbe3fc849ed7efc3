"""Line-level extraction, the degraded mode for a language whose grammar cannot load.

These run without any grammar: a stub that returned nothing, or that claimed full
extraction, fails them.
"""

from __future__ import annotations

import pytest

from repolens.parse.languages import LINE_ONLY_LANGUAGES
from repolens.parse.languages.fallback import RULES, extract_lines, has_fallback
from repolens.parse.model import ParsedFile

BREADTH = ["c", "cpp", "csharp", "php", "ruby", "kotlin", "swift", "scala", "bash", "lua",
           "dart", "elixir", "vue", "svelte", "css", "scss", "less"]  # fmt: skip

SAMPLES = {
    "c": ('#include "util.h"\n#include <stdio.h>\nstruct Node {\n  int x;\n};\n'
          "static int add(int a, int b) {\n  return a + b;\n}\nint sub(int a);\n",
          {("struct", "Node"), ("function", "add")}, ["util.h", "<stdio.h>"]),
    "csharp": ("using Shop.Models;\nusing F = Shop.Util.Fmt;\nnamespace Shop.Services {\n"
               "public partial class OrderService {\n  public void Place(Order o) { }\n}\n}\n",
               {("namespace", "Shop.Services"), ("class", "OrderService"), ("method", "Place")},
               ["Shop.Models", "Shop.Util.Fmt"]),
    "php": ("<?php\nnamespace App;\nuse App\\Models\\Order as O;\nrequire_once 'x.php';\n"
            "final class Svc {\n  public function run() {}\n}\n",
            {("namespace", "App"), ("class", "Svc"), ("function", "run")},
            ["App\\Models\\Order", "x.php"]),
    "ruby": ('require "json"\nrequire_relative "order"\nmodule Shop\n  class Svc < Base\n'
             "    def self.build; end\n    def place(x)\n    end\n  end\nend\n",
             {("module", "Shop"), ("class", "Svc"), ("method", "build"), ("method", "place")},
             ["json", "order"]),
    "kotlin": ("package a\nimport a.b.C\nimport a.d.*\nclass Svc {\n  fun place(): Int = 1\n}\n",
               {("class", "Svc"), ("function", "place")}, ["a.b.C", "a.d"]),
    "swift": ("import Foundation\nstruct P {}\nextension P {\n  func f() {}\n}\n",
              {("struct", "P"), ("class", "P"), ("function", "f")}, ["Foundation"]),
    "scala": ("import a.b.C\nobject Main {\n  def main(): Unit = ()\n}\n",
              {("class", "Main"), ("function", "main")}, ["a.b.C"]),
    "bash": ('source ./lib.sh\n. "lib/log.sh"\ndeploy() {\n  x\n}\nfunction build {\n}\n',
             {("function", "deploy"), ("function", "build")}, ["./lib.sh", "lib/log.sh"]),
    "lua": ('local util = require("shop.util")\nlocal M = {}\nfunction M.place() end\n'
            "local function helper() end\n",
            {("function", "place"), ("function", "helper")}, ["shop.util"]),
    "dart": ("import 'package:a/b.dart' as b;\nabstract class Svc {}\nmixin Log {}\n",
             {("class", "Svc"), ("trait", "Log")}, ["package:a/b.dart"]),
    "elixir": ("defmodule Shop.Svc do\n  alias Shop.Order\n  def place(x), do: x\n"
               "  defp audit(x), do: x\nend\n",
               {("module", "Shop.Svc"), ("function", "place"), ("function", "audit")},
               ["Shop.Order"]),
    "vue": ("<script setup>\nimport X from './X.vue'\n</script>\n<style>\n@import 'a.css';\n"
            "</style>\n", set(), ["./X.vue", "a.css"]),
    "scss": ("@use 'theme' as t;\n@mixin card($p) {}\n", {("function", "card")}, ["theme"]),
    # languages without any grammar wheel: this is all they get
    "r": ('source("R/utils.R")\nlibrary(dplyr)\nclean <- function(df) df\n'
          'tidy = function(x) {\n}\nOrder <- setRefClass("Order")\n',
          {("function", "clean"), ("function", "tidy"), ("class", "Order")},
          ["R/utils.R", "dplyr"]),
    "protobuf": ('syntax = "proto3";\npackage shop.v1;\nimport "shop/money.proto";\n'
                 "message Order {\n  Money total = 1;\n}\nenum State {\n  NEW = 0;\n}\n"
                 "service Orders {\n  rpc Place(Order) returns (Order);\n}\n",
                 {("namespace", "shop.v1"), ("struct", "Order"), ("enum", "State"),
                  ("interface", "Orders"), ("method", "Place")}, ["shop/money.proto"]),
    "graphql": ('#import "./fragments.graphql"\ntype Order implements Node {\n  id: ID!\n}\n'
                "enum State { NEW }\ninput OrderInput {\n  id: ID\n}\n"
                "query OrdersPage($first: Int) {\n  orders { id }\n}\n",
                {("class", "Order"), ("enum", "State"), ("class", "OrderInput"),
                 ("function", "OrdersPage")}, ["./fragments.graphql"]),
    "godot": ('[gd_scene format=3]\n[ext_resource type="Script" path="res://p.gd" id="1"]\n'
              '[node name="Player" type="Node2D"]\n', {("variable", "Player")}, ["res://p.gd"]),
    "liquid": ("{% assign total = cart.total %}\n{% render 'price', value: total %}\n",
               {("variable", "total")}, ["price"]),
}  # fmt: skip


def test_every_breadth_language_has_rules() -> None:
    assert all(has_fallback(language) for language in BREADTH)
    assert not has_fallback("python")  # languages with core grammars have no fallback
    assert set(BREADTH) | LINE_ONLY_LANGUAGES == set(RULES)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_line_level_definitions_and_imports(language: str) -> None:
    source, symbols, modules = SAMPLES[language]
    parsed = extract_lines(f"f.{language}", language, source.encode(), "missing: test")
    assert isinstance(parsed, ParsedFile)
    assert {(s.kind, s.name) for s in parsed.symbols} == symbols
    assert [i.module for i in parsed.imports] == modules
    assert parsed.error == "line-level extraction (no call graph): missing: test"
    assert not parsed.references  # never pretends to have a call graph


def test_lines_and_aliases_are_kept() -> None:
    parsed = extract_lines("a.lua", "lua", b"\n\nlocal u = require('x.y')\n", "broken: abi")
    assert parsed is not None
    assert [(i.module, i.alias, i.line, i.is_wildcard) for i in parsed.imports] == [
        ("x.y", "u", 3, False)
    ]
    assert extract_lines("a.py", "python", b"def f(): pass\n", "missing") is None
