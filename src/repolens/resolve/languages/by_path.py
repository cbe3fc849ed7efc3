"""Languages whose imports name files or declared modules: their resolvers, as data.

Haskell's ``import Shop.Order`` is the file whose ``module Shop.Order`` header says so,
else ``Shop/Order.hs`` under the root, ``src/``, ``lib/``, ``app/`` or ``test/``; Zig's
``@import("util.zig")`` is relative to the importing file (``std`` and packages are
external); Julia's ``include("util.jl")`` too, and ``using .Util`` names a project
``module Util``. PowerShell dot-sources scripts and imports modules by path or name
(a module's ``Shop.psm1`` anywhere), and its functions are global, so names a script
cannot see are guessed by name (as Bash's). Perl's ``use Shop::Util`` is the file whose
``package Shop::Util;`` says so, else ``lib/Shop/Util.pm``. Solidity's ``import
"./Ownable.sol"`` is relative, else under the root, ``contracts/`` or ``src/``
(``@openzeppelin/...`` packages are external). Luau requires are relative paths (a
folder's ``init.luau``); Nix's ``import ./x`` a file or a folder's ``default.nix``; an
OCaml file is the global module named after it; an F# ``open A.B`` the file whose
``module A.B`` says so; a Pascal ``uses ShopUtil`` the file declaring ``unit ShopUtil``,
else ``ShopUtil.pas``. The rest are languages outlined line by
line (no grammar wheel):

R's ``source("R/utils.R")`` is relative to the working directory, taken as the script's
folder and then the project root (``library(dplyr)`` names a package: external);
protobuf's ``import "shop/order.proto"`` is relative to an include root (the project root,
``proto/``, ``protos/``, ``src/``; as ``protoc -I`` would be given); GraphQL's
``#import "./fragments.graphql"`` is relative; Liquid's ``{% render 'price' %}`` names a
snippet of a Shopify or Jekyll theme (``snippets/``, ``sections/``, ``_includes/``...).
Every such file's definitions are its top-level names, and what a file imports it sees.
"""

from __future__ import annotations

from dataclasses import replace

from repolens.resolve.base import LanguageSpec
from repolens.resolve.languages import shell_lua
from repolens.resolve.lookup import Lookup, lookup_layout
from repolens.resolve.project import Sym


def _spec(
    name: str,
    lookup: Lookup,
    builtins: frozenset[str] = frozenset(),
    builtin_methods: frozenset[str] = frozenset(),
    self_names: frozenset[str] = frozenset(),
    bare_name_match: bool = False,
) -> LanguageSpec:
    return LanguageSpec(
        name=name,
        languages=frozenset({name}),
        build_layout=lookup_layout(lookup),
        builtins=builtins,
        builtin_types=frozenset(),
        builtin_methods=builtin_methods,
        self_names=self_names,
        bare_name_match=bare_name_match,
    )


def _is_module(sym: Sym) -> bool:
    return sym.kind == "module"


HASKELL_PRELUDE = frozenset(
    {
        "map", "filter", "foldr", "foldl", "sum", "product", "length", "null", "head", "tail",
        "reverse", "concat", "concatMap", "zip", "zipWith", "lookup", "elem", "show", "read",
        "print", "putStrLn", "putStr", "getLine", "return", "pure", "fmap", "mapM", "mapM_",
        "forM", "forM_", "sequence", "when", "unless", "maybe", "either", "fst", "snd", "id",
        "const", "flip", "error", "undefined", "not", "max", "min", "fromIntegral",
        "toInteger", "div", "mod", "negate", "abs", "succ", "pred", "take", "drop",
        "splitAt", "lines", "unlines", "words", "seq",
    }
)  # fmt: skip
JULIA_BASE = frozenset(
    {
        "println", "print", "push!", "pop!", "append!", "length", "sum", "map", "filter",
        "collect", "string", "error", "throw", "isempty", "haskey", "get", "keys", "values",
        "zeros", "ones", "size", "typeof", "convert", "round", "floor",
    }
)  # fmt: skip
ZIG_METHODS = frozenset({"print", "init", "deinit", "append", "items", "alloc", "free"})

HASKELL = _spec(
    "haskell",
    Lookup(
        extensions=(".hs", ".lhs"),
        roots=("", "src", "lib", "app", "test", "tests"),
        relative=False,
        separator=".",
        declares=_is_module,
    ),
    HASKELL_PRELUDE,
)
ZIG = _spec(
    "zig",
    Lookup(extensions=(".zig",), roots=("", "src")),
    builtin_methods=ZIG_METHODS,
    self_names=frozenset({"self"}),
)
JULIA = _spec(
    "julia", Lookup(extensions=(".jl",), roots=("", "src"), declares=_is_module), JULIA_BASE
)
POWERSHELL_CMDLETS = frozenset(
    {
        "Write-Output", "Write-Host", "Write-Error", "Write-Warning", "Write-Verbose",
        "Get-ChildItem", "Get-Content", "Set-Content", "Get-Item", "Test-Path", "Join-Path",
        "New-Item", "Remove-Item", "Copy-Item", "Move-Item", "Import-Module", "ForEach-Object",
        "Where-Object", "Select-Object", "Sort-Object", "Measure-Object", "Invoke-Command",
        "Invoke-WebRequest", "Invoke-RestMethod", "ConvertTo-Json", "ConvertFrom-Json",
        "Get-Date", "Start-Process", "Set-Location", "Get-Location", "Out-File", "Out-Null",
        "Read-Host", "Start-Sleep", "Get-Process", "New-Object", "Add-Type", "Export-ModuleMember",
    }
)  # fmt: skip
PERL_BUILTINS = frozenset(
    {
        "print", "printf", "say", "die", "warn", "bless", "ref", "defined", "exists", "delete",
        "push", "pop", "shift", "unshift", "splice", "join", "split", "map", "grep", "sort",
        "keys", "values", "each", "scalar", "length", "substr", "index", "sprintf", "lc", "uc",
        "open", "close", "chomp", "local", "return", "wantarray", "eval", "exit", "sub",
        # Test::More, which every test file uses
        "ok", "is", "isnt", "like", "unlike", "is_deeply", "cmp_ok", "can_ok", "isa_ok",
        "subtest", "done_testing", "plan", "diag", "note", "pass", "fail", "skip",
    }
)  # fmt: skip

POWERSHELL = _spec(
    "powershell",
    Lookup(extensions=(".ps1", ".psm1"), roots=("", "src", "Modules")),
    POWERSHELL_CMDLETS,
    self_names=frozenset({"$this"}),
    bare_name_match=True,  # dot-sourced scripts' functions are global
)
PERL = _spec(
    "perl",
    Lookup(extensions=(".pm", ".pl"), roots=("", "lib"), separator="::", declares=_is_module),
    PERL_BUILTINS,
    builtin_methods=frozenset({"new", "isa", "can", "DOES", "VERSION"}),
)
SOLIDITY_BUILTINS = frozenset(
    {"require", "assert", "revert", "keccak256", "abi", "msg", "block", "tx", "address",
     "payable", "type", "selfdestruct"}
)  # fmt: skip
SOLIDITY_METHODS = frozenset(
    {"transfer", "send", "call", "push", "pop", "encode", "encodePacked", "decode", "length"}
)
SOLIDITY = LanguageSpec(
    name="solidity",
    languages=frozenset({"solidity"}),
    build_layout=lookup_layout(Lookup(extensions=(".sol",), roots=("", "contracts", "src"))),
    builtins=SOLIDITY_BUILTINS,
    builtin_types=frozenset({"address", "uint256", "string", "bytes"}),
    builtin_methods=SOLIDITY_METHODS,
    self_names=frozenset({"this"}),
    constructor_names=frozenset({"constructor"}),
    implicit_members=True,  # a contract's functions, and its bases', are in scope
    class_scope_visible=True,
)
NIX_BUILTINS = frozenset(
    {"import", "callPackage", "builtins", "lib", "pkgs", "toString", "map", "throw", "abort",
     "derivation", "fetchTarball", "baseNameOf"}
)  # fmt: skip
OCAML_STDLIB = frozenset(
    {"print_string", "print_endline", "print_int", "print_newline", "printf", "failwith",
     "invalid_arg", "raise", "ignore", "fst", "snd", "not", "ref", "string_of_int",
     "int_of_string", "List", "Array", "String", "Printf", "Hashtbl", "Option", "Result",
     "Fun", "Seq", "Map", "Set"}
)  # fmt: skip
LUAU_LOOKUP = Lookup(
    extensions=(".luau", ".lua"), roots=("", "src"), index_names=("init.luau", "init.lua")
)
OCAML_LOOKUP = Lookup(
    extensions=(".ml", ".mli"), roots=(), relative=False, suffix_search=False, stem_modules=True
)

LUAU = replace(
    shell_lua.LUA,
    name="luau",
    languages=frozenset({"luau"}),
    build_layout=lookup_layout(LUAU_LOOKUP),
    builtins=shell_lua.LUA_BUILTINS | {"script", "game", "workspace", "typeof", "task"},
)
NIX = _spec("nix", Lookup(index_names=("default.nix",), suffix_search=False), NIX_BUILTINS)
OCAML = _spec("ocaml", OCAML_LOOKUP, OCAML_STDLIB)
FSHARP_CORE = frozenset(
    {"printfn", "printf", "sprintf", "failwith", "ignore", "id", "fst", "snd", "List", "Seq",
     "Array", "Map", "Set", "Option", "String", "raise"}
)  # fmt: skip
PASCAL_SYSTEM = frozenset(
    {"WriteLn", "Write", "ReadLn", "Inc", "Dec", "Length", "SetLength", "High", "Low",
     "IntToStr", "StrToInt", "Format", "Assigned", "FreeAndNil", "Exit", "Ord", "Chr",
     "Trunc", "Round", "Copy", "Pos", "Trim"}
)  # fmt: skip
FSHARP_LOOKUP = Lookup(
    roots=(), relative=False, suffix_search=False, separator=".", declares=_is_module
)
PASCAL_LOOKUP = Lookup(
    extensions=(".pas", ".pp"),
    roots=(),
    relative=False,
    suffix_search=False,
    declares=_is_module,
    stem_modules=True,
)
FSHARP = _spec("fsharp", FSHARP_LOOKUP, FSHARP_CORE, self_names=frozenset({"this"}))
PASCAL = replace(
    _spec("pascal", PASCAL_LOOKUP, PASCAL_SYSTEM, self_names=frozenset({"Self"})),
    implicit_members=True,  # a method sees its class's (and bases') members unqualified
    class_scope_visible=True,
)

R = _spec("r", Lookup(extensions=(".R", ".r"), roots=("", "R")))
PROTOBUF = _spec("protobuf", Lookup(roots=("", "proto", "protos", "src")))
GRAPHQL = _spec("graphql", Lookup(extensions=(".graphql", ".gql")))
LIQUID = _spec(
    "liquid",
    Lookup(
        extensions=(".liquid", ".html"),
        roots=("snippets", "sections", "templates", "layout", "_includes", "_layouts", ""),
        relative=False,
    ),
)
