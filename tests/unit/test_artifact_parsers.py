"""Each artifact parser on small documents with known answers: what it defines, on which
lines, and what bad input gives (an error, never an exception)."""

from __future__ import annotations

import json

from repolens.parse.artifacts import NOT_OPENAPI, kind_of, parse_artifact


def table(kind: str, text: str) -> list[tuple[str, str, int, int, str]]:
    parsed = parse_artifact(kind, text)
    assert parsed.error == ""
    return [(s.kind, s.qualified_name, s.start_line, s.end_line, s.detail) for s in parsed.symbols]


SQL = """\
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL
);
CREATE TABLE shop.orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    FOREIGN KEY (id) REFERENCES invoices (order_id)
);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE id > 10;
ALTER TABLE order_lines ADD CONSTRAINT fk_order FOREIGN KEY (order_id) REFERENCES orders (id);
"""


def test_sql_tables_columns_and_foreign_keys_in_three_spellings() -> None:
    assert table("sql", SQL) == [
        ("table", "customers", 1, 4, ""),
        ("column", "customers.id", 2, 2, "INTEGER PRIMARY KEY"),
        ("column", "customers.email", 3, 3, "TEXT NOT NULL"),
        ("table", "orders", 5, 9, ""),  # the schema is dropped, as the code graph does
        ("column", "orders.id", 6, 6, "INTEGER PRIMARY KEY"),
        ("column", "orders.customer_id", 7, 7, "INTEGER NOT NULL REFERENCES customers(id)"),
        ("foreign_key", "orders.customer_id", 7, 7, "customers(id)"),
        ("foreign_key", "orders.id", 8, 8, "invoices(order_id)"),
        ("view", "big_orders", 10, 10, ""),
        ("table", "order_lines", 11, 11, "altered only"),
        ("foreign_key", "order_lines.order_id", 11, 11, "orders(id)"),
    ]


OPENAPI = """\
openapi: 3.0.3
info: {title: Shop, version: "1"}
servers:
  - url: https://api.example.com/api/v1/
paths:
  /orders/{id}:
    parameters:
      - {name: id, in: path}
    get:
      operationId: getOrder
      summary: One order
    delete:
      operationId: cancelOrder
components:
  schemas:
    Order:
      type: object
      properties:
        id:
          type: integer
        customer:
          $ref: '#/components/schemas/Customer'
"""


def test_openapi_operations_and_schemas_with_their_lines() -> None:
    assert table("openapi", OPENAPI) == [
        ("operation", "GET /orders/{id}", 9, 11,
         "operationId getOrder; One order; served under /api/v1"),
        ("operation", "DELETE /orders/{id}", 12, 13,
         "operationId cancelOrder; served under /api/v1"),
        ("schema", "Order", 16, 22, "object"),
        ("field", "Order.id", 19, 20, "integer"),
        ("field", "Order.customer", 21, 22, "Customer"),
    ]  # fmt: skip


def test_swagger_two_in_json_with_its_base_path() -> None:
    spec = {
        "swagger": "2.0",
        "basePath": "/v2",
        "paths": {"/pets": {"post": {"operationId": "addPet"}}},
        "definitions": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}},
    }
    compact = table("openapi", json.dumps(spec))  # one line: the key is not at a line start
    assert [name for _, name, _, _, _ in compact] == ["POST /pets", "Pet", "Pet.name"]
    rows = table("openapi", json.dumps(spec, indent=2))
    assert [(kind, name, detail) for kind, name, _, _, detail in rows] == [
        ("operation", "POST /pets", "operationId addPet; served under /v2"),
        ("schema", "Pet", "object"),
        ("field", "Pet.name", "string"),
    ]


def test_yaml_that_is_no_spec_and_broken_yaml_are_errors() -> None:
    assert parse_artifact("openapi", "labels: [bug]\n").error == NOT_OPENAPI
    broken = parse_artifact("openapi", "openapi: 3.0.0\npaths: [unclosed\n")
    assert broken.error.startswith("not valid YAML or JSON (line 3)")
    assert broken.symbols == []


GRAPHQL = """\
schema { query: RootQuery }
"An order."
type Order implements Node {
  id: ID!
  lines(first: Int = 10): [Line!]!
}
type RootQuery {
  order(id: ID!): Order
}
extend type Mutation { cancel(id: ID!): Order }
enum Status { OPEN CLOSED }
query GetOrder($id: ID!) { order(id: $id) { id } }
"""


def test_graphql_types_fields_and_root_operations() -> None:
    assert table("graphql", GRAPHQL) == [
        ("type", "Order", 2, 6, "type"),
        ("field", "Order.id", 4, 4, ": ID!"),
        ("field", "Order.lines", 5, 5, "(first: Int): [Line!]!"),
        ("type", "RootQuery", 7, 9, "type"),
        ("query", "RootQuery.order", 8, 8, "(id: ID!): Order"),  # renamed by `schema {}`
        ("type", "Mutation", 10, 10, "extend type"),
        ("mutation", "Mutation.cancel", 10, 10, "(id: ID!): Order"),
        ("type", "Status", 11, 11, "enum"),
        ("field", "Status.OPEN", 11, 11, ""),
        ("field", "Status.CLOSED", 11, 11, ""),
        ("query", "GetOrder", 12, 12, "query operation"),
    ]


def test_graphql_syntax_error_names_its_line() -> None:
    parsed = parse_artifact("graphql", "type Order {\n  id: ID!\n")
    assert parsed.error.startswith("not valid GraphQL:") and "(line 3)" in parsed.error


PROTO = """\
syntax = "proto3";
package shop.v1;
/* A comment with { braces } and rpc Fake (A) returns (B); */
message Order {
  string id = 1; // trailing } brace in a comment
  repeated Line lines = 2;
  map<string, int32> tags = 3;
  message Line { string sku = 1; }
  oneof payment { string card = 4; }
  reserved 9;
}
enum Status { OPEN = 0; }
service OrderService {
  option (google.api.default_host) = "x";
  rpc GetOrder (GetOrderRequest) returns (Order);
  rpc WatchOrders (stream WatchRequest) returns (stream Order) {
    option (http) = { get: "/v1/orders" };
  }
}
"""


def test_protobuf_messages_services_and_rpcs() -> None:
    assert table("protobuf", PROTO) == [
        ("message", "Order", 4, 11, ""),
        ("field", "Order.id", 5, 5, "string"),
        ("field", "Order.lines", 6, 6, "repeated Line"),
        ("field", "Order.tags", 7, 7, "map<string, int32>"),
        ("message", "Order.Line", 8, 8, ""),
        ("field", "Order.Line.sku", 8, 8, "string"),
        ("field", "Order.card", 9, 9, "string"),  # a oneof's fields are the message's
        ("enum", "Status", 12, 12, ""),
        ("service", "OrderService", 13, 19, ""),
        ("rpc", "OrderService.GetOrder", 15, 15, "(GetOrderRequest) returns (Order)"),
        ("rpc", "OrderService.WatchOrders", 16, 18,
         "(stream WatchRequest) returns (stream Order)"),
    ]  # fmt: skip


def test_protobuf_unclosed_block_is_an_error_with_what_came_before() -> None:
    parsed = parse_artifact("protobuf", "message A { string x = 1; }\nmessage B {\n")
    assert parsed.error == "not valid protobuf: the block opened on line 2 is never closed"
    assert [s.name for s in parsed.symbols] == ["A", "x"]


MARKDOWN = """\
# Shop

Intro.

## Orders

```sh
# not a heading: inside a fence
```

Refunds
-------

# Operations
"""


def test_markdown_headings_are_nested_sections() -> None:
    assert table("markdown", MARKDOWN) == [
        ("section", "Shop", 1, 13, "h1"),
        ("section", "Shop > Orders", 5, 10, "h2"),
        ("section", "Shop > Refunds", 11, 13, "h2"),  # a setext heading
        ("section", "Operations", 14, 14, "h1"),
    ]


def test_kinds_by_extension() -> None:
    assert [kind_of(p) for p in ("a.sql", "b.YAML", "c.json", "d.gql", "e.proto", "f.md")] == [
        "sql", "openapi", "openapi", "graphql", "protobuf", "markdown",
    ]  # fmt: skip
    assert kind_of("g.txt") is None
