"""Go module layout: go.mod module paths, nested modules, replace, package names."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

from conftest import IndexTree, indexed_edges
from repolens.resolve.languages.go import default_package_name


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(
        tmp_path,
        {
            "go.mod": "// root module\nmodule github.com/acme/app\n\ngo 1.22\n\n"
            "replace (\n\tgithub.com/acme/shared v1.2.0 => ./libs/shared\n)\n",
            "cmd/app/main.go": "package main\n",
            "internal/db/db.go": "// Package db talks to the database.\npackage db\n",
            "internal/db/db_test.go": "package db_test\n",
            "api/handlers.go": "/* handlers */\npackage httpapi\n",
            "plugins/go.mod": 'module "github.com/acme/plugins"\n',
            "plugins/auth/auth.go": "package auth\n",
            "libs/shared/go.mod": "module github.com/acme/shared\n",
            "libs/shared/log/log.go": "package log\n",
        },
        "go",
    )


def test_packages_are_directories_under_their_nearest_module(tree: Tree) -> None:
    assert tree.module("internal/db/db.go") == "github.com/acme/app/internal/db"
    assert tree.module("internal/db/db_test.go") == "github.com/acme/app/internal/db"
    assert tree.module("plugins/auth/auth.go") == "github.com/acme/plugins/auth"
    assert tree.module("cmd/app/main.go") == "github.com/acme/app/cmd/app"


def test_imports_across_nested_modules_and_replace_directives(tree: Tree) -> None:
    main = "cmd/app/main.go"
    assert tree.target(main, "github.com/acme/app/internal/db") == (
        "github.com/acme/app/internal/db"  # a package of two files
    )
    assert tree.target(main, "github.com/acme/plugins/auth") == "plugins/auth/auth.go"
    assert tree.target(main, "github.com/acme/shared/log") == "libs/shared/log/log.go"
    assert tree.target(main, "github.com/acme/app/missing") == ""
    assert tree.target(main, "net/http") == "external"
    assert tree.target(main, "github.com/other/lib") == "external"


def test_an_import_binds_the_declared_package_name(tree: Tree) -> None:
    def bound(module: str, alias: str | None = None, **extra: object) -> str | None:
        from repolens.resolve.project import ImportRow

        row = ImportRow(0, tree.files["cmd/app/main.go"].id, module, None, alias, 0, 1,
                        bool(extra.get("wildcard")), False, None, None)  # fmt: skip
        return tree.layout.local_name(row)

    assert bound("github.com/acme/app/api") == "httpapi"  # not the directory name
    assert bound("github.com/acme/app/internal/db") == "db"  # not db_test
    assert bound("github.com/acme/app/api", "h") == "h"
    assert bound("github.com/acme/app/api", "_") is None
    assert bound("github.com/acme/app/api", wildcard=True) is None


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("net/http", "http"),
        ("github.com/go-yaml/yaml/v3", "yaml"),
        ("gopkg.in/yaml.v2", "yaml"),
        ("github.com/mattn/go-sqlite3", "sqlite3"),
        ("github.com/x/thing-go", "thing"),
    ],
)
def test_external_packages_bind_their_conventional_name(path: str, name: str) -> None:
    assert default_package_name(path) == name


GO_MOD = "module example.com/app\n\ngo 1.22\n"


def edges(root: Path, files: dict[str, str], index_tree: IndexTree) -> set[tuple[str, ...]]:
    """Every call edge of a tiny Go module (see ``indexed_edges``)."""
    return indexed_edges(root, {"go.mod": GO_MOD, **files}, index_tree)


def test_unnamed_results_do_not_hide_packages(tmp_path: Path, index_tree: IndexTree) -> None:
    """``func parse() (ast.Node, error)`` names the package ``ast`` in its results only:
    ``ast.Mapping()`` in its body is the package's function (go-yaml's parser); so do the
    parameters of a function type returned (chi's middlewares return
    ``func(http.Handler) http.Handler``)."""
    found = edges(
        tmp_path,
        {
            "ast/ast.go": "package ast\n\ntype Node interface{}\n\n"
            "func Mapping() Node { return nil }\n",
            "parser/parser.go": 'package parser\n\nimport "example.com/app/ast"\n\n'
            "func parse() (ast.Node, error) {\n\treturn ast.Mapping(), nil\n}\n\n"
            "func named(n int) (ast int, err error) {\n\tast.Mapping()\n\treturn\n}\n\n"
            "func wrap() func(ast.Node) error {\n\tast.Mapping()\n\treturn nil\n}\n",
        },
        index_tree,
    )
    assert ("parse", "calls", "Mapping", "ast/ast.go") in found
    assert ("wrap", "calls", "Mapping", "ast/ast.go") in found  # a function type's parameters
    assert ("named", "calls", "Mapping", "ast/ast.go") not in found  # a named result


ROUTER = """package router

type Mux struct{ subs []*Mux }

func NewMux() *Mux { return &Mux{} }

func (m *Mux) Get(path string) {}

func (m *Mux) Parent() *Mux { return nil }

type Other struct{}

func (o *Other) Get(path string) {}

func (o *Other) Parent() *Other { return nil }

// Middlewares is a defined type with its own methods.
type Middlewares []func()

func (ms Middlewares) Handler() {}

func (ms Middlewares) tail() {}
"""


def test_variables_typed_by_var_alias_assertion_and_type_switch(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``var r = &Mux{}``, ``p := r``, ``m, ok := v.(*Mux)`` and a type switch's one-type
    case all type their variable (chi, cobra, go-yaml); a defined non-struct type has its
    methods (chi's ``Middlewares``) and a named result list returns its first type."""
    found = edges(
        tmp_path,
        {
            "router/router.go": ROUTER,
            "router/use.go": "package router\n\n"
            "var root = &Mux{}\n\n"
            "func build() (m *Mux, err error) { return NewMux(), nil }\n\n"
            "func use(v interface{}) {\n"
            '\troot.Get("/")\n'
            "\tp := root\n\tp.Parent()\n"
            '\tm, ok := v.(*Mux)\n\tm.Get("/m")\n'
            "\tswitch x := v.(type) {\n\tcase *Other:\n\t\tx.Parent()\n\t}\n"
            '\tb, _ := build()\n\tb.Get("/b")\n'
            "\tMiddlewares{}.Handler()\n"
            "}\n\n"
            "func (ms Middlewares) Chain() { ms.tail() }\n",
        },
        index_tree,
    )
    for target in ("Mux.Get", "Mux.Parent", "Other.Parent", "Middlewares.Handler"):
        assert ("use", "calls", target, "router/router.go") in found
    assert ("use", "calls", "Other.Get", "router/router.go") not in found
    assert ("use", "calls", "Mux.Parent", "router/router.go") in found
    assert ("Middlewares.Chain", "calls", "Middlewares.tail", "router/router.go") in found
    assert ("use", "instantiates", "Middlewares", "router/router.go") in found


def test_a_local_is_not_in_scope_above_its_declaration(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``token.Alias()`` above ``token := s.scan()`` in the same function is the package
    ``token`` (go-yaml's scanner); below it, the local."""
    found = edges(
        tmp_path,
        {
            "token/token.go": "package token\n\ntype Token struct{}\n\n"
            "func Alias() *Token { return nil }\n\nfunc (t *Token) Clone() *Token { return t }\n",
            "scanner/scanner.go": 'package scanner\n\nimport "example.com/app/token"\n\n'
            "type Scanner struct{}\n\nfunc (s *Scanner) next() *token.Token { return nil }\n\n"
            "func (s *Scanner) scan() {\n\ttoken.Alias()\n\ttoken := s.next()\n"
            "\ttoken.Clone()\n}\n",
        },
        index_tree,
    )
    assert ("Scanner.scan", "calls", "Alias", "token/token.go") in found
    assert ("Scanner.scan", "calls", "Token.Clone", "token/token.go") in found


def test_a_func_literals_parameter_holds_in_its_body_only(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``r := NewRouter(); r.Route("/", func(r Router) { r.Get() }); r.Mount()`` (chi):
    the literal's ``r`` is the interface inside its body; on the line it starts and after
    it, ``r`` is the function's own ``*Mux`` again."""
    found = edges(
        tmp_path,
        {
            "go.mod": "module example.com/app\n",
            "router.go": "package app\n\ntype Router interface {\n\tGet()\n\tMount()\n"
            "\tRoute(p string, fn func(r Router))\n}\n\ntype Mux struct{}\n\n"
            "func NewRouter() *Mux { return &Mux{} }\n\nfunc (m *Mux) Get() {}\n\n"
            "func (m *Mux) Mount() {}\n\nfunc (m *Mux) Route(p string, fn func(r Router)) {}\n\n"
            'func routes() {\n\tr := NewRouter()\n\tr.Route("/v1", func(r Router) {\n'
            "\t\tr.Get()\n\t})\n\tr.Mount()\n}\n",
        },
        index_tree,
    )
    assert ("routes", "calls", "Mux.Route", "router.go") in found
    assert ("routes", "calls", "Router.Get", "router.go") in found
    assert ("routes", "calls", "Mux.Mount", "router.go") in found
    assert ("routes", "calls", "Router.Mount", "router.go") not in found
    assert ("routes", "calls", "Router.Route", "router.go") not in found


def test_a_second_result_has_the_type_its_function_states(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``first, second := split(p)`` with ``func split(p string) (*Route, *Router)``:
    ``second.Handle()`` is ``Router``'s, not the first result's namesake method."""
    found = edges(
        tmp_path,
        {
            "go.mod": "module example.com/app\n",
            "route.go": "package app\n\ntype Route struct{}\n\nfunc (r *Route) Handle() {}\n\n"
            "type Router struct{}\n\nfunc (r *Router) Handle() {}\n\n"
            "func split(p string) (*Route, *Router) { return nil, nil }\n\n"
            'func serve() {\n\tfirst, second := split("/")\n\tsecond.Handle()\n'
            "\t_ = first\n}\n",
        },
        index_tree,
    )
    assert ("serve", "calls", "Router.Handle", "route.go") in found
    assert ("serve", "calls", "Route.Handle", "route.go") not in found


def test_range_binds_the_element_of_a_typed_slice_or_map(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``for _, c := range cmds`` with ``cmds []*Command`` makes ``c`` a ``Command``; over
    ``map[string]Item`` the value is an ``Item``; one variable is the index (no type)."""
    found = edges(
        tmp_path,
        {
            "cmd/cmd.go": "package cmd\n\ntype Command struct{}\n\nfunc (c *Command) Run() {}\n\n"
            "type Item struct{}\n\nfunc (i Item) Run() {}\n\n"
            "func RunAll(cmds []*Command, byName map[string]Item) {\n"
            "\tfor _, c := range cmds {\n\t\tc.Run()\n\t}\n"
            "\tfor _, it := range byName {\n\t\tit.Run()\n\t}\n}\n\n"
            "func Indexes(items []Item) {\n\tfor i := range items {\n\t\ti.Run()\n\t}\n}\n",
        },
        index_tree,
    )
    assert ("RunAll", "calls", "Command.Run", "cmd/cmd.go") in found
    assert ("RunAll", "calls", "Item.Run", "cmd/cmd.go") in found
    assert not {edge for edge in found if edge[0] == "Indexes"}


def test_range_over_a_calls_result_binds_its_element(tmp_path: Path, index_tree: IndexTree) -> None:
    """``for _, c := range All()`` with ``func All() []*Command`` in the package file."""
    found = edges(
        tmp_path,
        {
            "cmd/cmd.go": "package cmd\n\ntype Command struct{}\n\nfunc (c *Command) Run() {}\n\n"
            "type Item struct{}\n\nfunc (i Item) Run() {}\n\n"
            "func All() []*Command { return nil }\n\n"
            "func RunAll() {\n\tfor _, c := range All() {\n\t\tc.Run()\n\t}\n}\n",
        },
        index_tree,
    )
    assert ("RunAll", "calls", "Command.Run", "cmd/cmd.go") in found
    assert ("RunAll", "calls", "Item.Run", "cmd/cmd.go") not in found


def test_a_type_defined_as_a_slice_gives_its_elements(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``type Errors []FieldError``: indexing or ranging over one, also as a method's
    receiver (``c[i].Name()`` in a sort's ``Less``), gives a ``FieldError``; another
    type's method of that name is never the answer."""
    found = edges(
        tmp_path,
        {
            "errors.go": "package app\n\ntype FieldError interface {\n\tTag() string\n}\n\n"
            'type Other struct{}\n\nfunc (o Other) Tag() string { return "" }\n\n'
            "type Errors []FieldError\n\n"
            "func (e Errors) Less(i, j int) bool { return e[i].Tag() < e[j].Tag() }\n\n"
            "func first(err error) {\n\terrs := err.(Errors)\n\tone := errs[0]\n"
            "\tone.Tag()\n}\n\n"
            "func each(errs Errors) {\n\tfor _, fe := range errs {\n\t\tfe.Tag()\n\t}\n}\n",
        },
        index_tree,
    )
    assert ("Errors.Less", "calls", "FieldError.Tag", "errors.go") in found
    assert ("first", "calls", "FieldError.Tag", "errors.go") in found
    assert ("each", "calls", "FieldError.Tag", "errors.go") in found
    assert not {edge for edge in found if edge[2] == "Other.Tag"}
