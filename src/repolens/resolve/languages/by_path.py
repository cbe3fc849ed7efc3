"""Languages outlined line by line whose imports name files: their resolvers, as data.

R's ``source("R/utils.R")`` is relative to the working directory, taken as the script's
folder and then the project root (``library(dplyr)`` names a package: external);
protobuf's ``import "shop/order.proto"`` is relative to an include root (the project root,
``proto/``, ``protos/``, ``src/``; as ``protoc -I`` would be given); GraphQL's
``#import "./fragments.graphql"`` is relative; Liquid's ``{% render 'price' %}`` names a
snippet of a Shopify or Jekyll theme (``snippets/``, ``sections/``, ``_includes/``...).
Every such file's definitions are its top-level names, and what a file imports it sees.
"""

from __future__ import annotations

from repolens.resolve.base import LanguageSpec
from repolens.resolve.lookup import Lookup, lookup_layout


def _spec(name: str, lookup: Lookup, builtins: frozenset[str] = frozenset()) -> LanguageSpec:
    return LanguageSpec(
        name=name,
        languages=frozenset({name}),
        build_layout=lookup_layout(lookup),
        builtins=builtins,
        builtin_types=frozenset(),
        builtin_methods=frozenset(),
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
