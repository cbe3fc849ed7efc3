"""Context artifacts end to end on a small shop project (tests/fixtures/artifacts/shop):
its SQL schema, OpenAPI spec, protobuf and GraphQL schemas and a Markdown doc are indexed
beside the code (really parsed, chunked, stored, embedded), kept fresh by content hash,
linked to the code that uses them, and served by the CLI as a user runs it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

import repolens
from conftest import open_indexed, run_repolens, write_files
from repolens.embed.base import EmbeddingProvider
from repolens.index.artifacts import ArtifactError, Refresh, fresh_artifacts
from repolens.index.providers import provider_for
from repolens.parse.artifacts import NOT_OPENAPI
from repolens.project import Project, open_project
from repolens.query.artifact_links import hit_links, links_of, named_artifacts
from repolens.query.artifacts import (
    ArtifactSymbolRef,
    list_artifacts,
    search_artifacts,
    symbols_named,
)

FIXTURE = Path(__file__).parents[1] / "fixtures" / "artifacts" / "shop"


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(FIXTURE, root)
    open_indexed(root).close()
    return root


def refresh(root: Path, provider: EmbeddingProvider | bool = False) -> tuple[Project, Refresh]:
    project = open_project(root)
    with fresh_artifacts(project, provider=provider) as (_conn, result, note):
        assert note == ""
    assert result is not None
    return project, result


def reads(result: Refresh) -> dict[str, tuple[list[str], int]]:
    return {r.name: (r.parsed, r.unchanged) for r in result.reports}


def reader(project: Project) -> sqlite3.Connection:
    from repolens.store.db import connect

    return connect(project.db_path, readonly=True)


def test_each_kind_is_indexed_with_what_it_defines(shop: Path) -> None:
    project, result = refresh(shop)
    assert reads(result) == {
        "db": (["db/schema.sql"], 0),
        "api": (["api/openapi.yaml", "api/schema.graphql", "api/shop.proto"], 0),
        "docs": (["docs/architecture.md"], 0),
    }
    assert result.reports[1].skipped == ["api/labels.yaml"]  # YAML that is no spec
    with reader(project) as conn:
        infos = {info.name: info for info in list_artifacts(conn)}
    assert infos["db"].symbols == {"table": 4, "column": 13, "foreign_key": 3}
    assert infos["api"].symbols == {
        "operation": 4, "schema": 1, "field": 13, "type": 4, "query": 2, "mutation": 1,
        "message": 4, "service": 1, "rpc": 2,
    }  # fmt: skip
    assert infos["docs"].symbols == {"section": 3}
    assert infos["db"].description == "The shop's database tables"


def test_foreign_keys_in_all_three_spellings(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        keys = {(s.qualified_name, s.detail) for s in symbols_named_kind(conn, "foreign_key")}
    assert keys == {
        ("orders.customer_id", "customers(id)"),  # inline REFERENCES
        ("order_lines.order_id", "orders(id)"),  # FOREIGN KEY table constraint
        ("refunds.order_id", "orders(id)"),  # ALTER TABLE ... ADD CONSTRAINT
    }


def symbols_named_kind(conn: sqlite3.Connection, kind: str) -> list[ArtifactSymbolRef]:
    names = [
        r[0] for r in conn.execute("SELECT name FROM artifact_symbols WHERE kind = ?", (kind,))
    ]
    return [s for name in set(names) for s in symbols_named(conn, name, kinds=(kind,))]


def test_an_edit_reindexes_only_the_changed_file_of_the_changed_artifact(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        before = dict(conn.execute("SELECT path, id FROM artifact_files").fetchall())
    _, again = refresh(shop)
    assert reads(again) == {"db": ([], 1), "api": ([], 3), "docs": ([], 1)}

    proto = shop / "api" / "shop.proto"
    proto.write_text(
        proto.read_text() + "\nservice Billing {\n  rpc Charge (Order) returns (Order);\n}\n"
    )
    _, edited = refresh(shop)
    assert reads(edited) == {"db": ([], 1), "api": (["api/shop.proto"], 2), "docs": ([], 1)}
    with reader(project) as conn:
        after = dict(conn.execute("SELECT path, id FROM artifact_files").fetchall())
        assert [s.qualified_name for s in symbols_named(conn, "Billing.Charge")] == [
            "Billing.Charge"
        ]
    assert {p: after[p] == before[p] for p in before} == {
        "db/schema.sql": True, "api/openapi.yaml": True, "api/schema.graphql": True,
        "api/shop.proto": False, "docs/architecture.md": True,
    }  # fmt: skip

    (shop / "api" / "schema.graphql").unlink()
    _, removed = refresh(shop)
    assert [(r.name, r.removed) for r in removed.reports] == [("db", 0), ("api", 1), ("docs", 0)]
    with reader(project) as conn:
        assert symbols_named(conn, "Mutation.cancelOrder") == []


def test_a_changed_description_reads_the_artifact_again(shop: Path) -> None:
    refresh(shop)
    config = shop / ".repolens.toml"
    config.write_text(config.read_text().replace("How the shop is put together", "Design"))
    _, result = refresh(shop)
    assert reads(result)["docs"] == (["docs/architecture.md"], 0)
    assert reads(result)["db"] == ([], 1)


@pytest.mark.parametrize("path", ["../outside.sql", "/etc", "escape/leak.sql"])
def test_a_path_outside_the_root_is_refused_and_the_rest_is_indexed(
    shop: Path, tmp_path: Path, path: str
) -> None:
    (tmp_path / "outside.sql").write_text("CREATE TABLE secret (x INT);\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "leak.sql").write_text("CREATE TABLE leak (x INT);\n")
    (shop / "escape").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    config = shop / ".repolens.toml"
    config.write_text(config.read_text() + f'\n[[artifacts]]\nname = "bad"\npath = "{path}"\n')
    project, result = refresh(shop)
    bad = result.reports[-1]
    assert bad.name == "bad"
    assert f"artifact 'bad': path '{path}' is not inside the project root" in bad.error
    assert reads(result)["db"] == (["db/schema.sql"], 0)
    with reader(project) as conn:
        assert symbols_named(conn, "secret") == [] and symbols_named(conn, "leak") == []
        assert {i.name: i.error != "" for i in list_artifacts(conn)}["bad"]


def test_a_file_in_a_folder_artifact_linking_outside_is_not_read(
    shop: Path, tmp_path: Path
) -> None:
    (tmp_path / "leak.sql").write_text("CREATE TABLE leak (x INT);\n")
    (shop / "api" / "leak.sql").symlink_to(tmp_path / "leak.sql")
    project, result = refresh(shop)
    api = result.reports[1]
    assert api.notes == ["api/leak.sql: not read (leads outside the project root)"]
    assert len(api.parsed) == 3
    with reader(project) as conn:
        assert symbols_named(conn, "leak") == []


def test_unknown_artifact_and_none_configured_are_clear_errors(shop: Path, tmp_path: Path) -> None:
    project = open_project(shop)
    with (
        pytest.raises(
            ArtifactError, match=r"no artifact named 'nope' \(configured: db, api, docs\)"
        ),
        fresh_artifacts(project, ["nope"], provider=False),
    ):
        pass
    bare = tmp_path / "bare"
    bare.mkdir()
    with (
        pytest.raises(ArtifactError, match=r"no artifacts are configured"),
        fresh_artifacts(open_project(bare), provider=False),
    ):
        pass


def link_rows(conn: sqlite3.Connection, name: str, kind: str) -> set[tuple[str, str, int]]:
    (symbol,) = symbols_named(conn, name, kinds=(kind,))
    return {(link.relation, link.symbol.full_name, link.line) for link in links_of(conn, symbol)}


def test_links_put_the_projects_own_code_before_tests_and_generated_stubs(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        (orders,) = symbols_named(conn, "orders", kinds=("table",))
        (service,) = symbols_named(conn, "OrderService", kinds=("service",))
        table_links = [(link.symbol.name, link.role) for link in links_of(conn, orders)]
        service_links = [
            (link.symbol.name, link.role, link.confidence) for link in links_of(conn, service)
        ]
    assert table_links[-1] == ("test_load_order", "test")
    assert service_links == [
        ("Server", "", 0.9),
        ("OrderServicer", "", 0.9),
        ("OrderServiceServicer", "generated", 0.6),
    ]


def test_artifacts_link_into_the_code_graph(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        assert link_rows(conn, "orders", "table") == {
            ("used by", "shop.repo.load_order", 8),
            ("used by", "shop.repo.mark_shipped", 20),
            ("used by", "shop.repo.order_report", 26),  # the string after the SELECT one
            ("used by", "tests.test_repo.test_load_order", 5),
        }  # neither `from shop.repo import`, nor describe()'s prose "data from orders"
        assert link_rows(conn, "order_lines", "table") == {
            ("used by", "shop.repo.add_line", 14),
            ("used by", "shop.repo.order_report", 26),
        }
        assert link_rows(conn, "refunds", "table") == set()
        assert link_rows(conn, "GET /orders/{id}", "operation") == {
            ("handled by", "shop.api.read_order", 10),  # served under /api: the spec's server
        }
        assert link_rows(conn, "POST /orders", "operation") == {
            ("handled by", "shop.api.create_order", 15),
        }
        assert link_rows(conn, "DELETE /orders/{id}", "operation") == {
            ("handled by", "shop.handlers.cancel_order", 4),  # no route: its operationId
        }
        assert link_rows(conn, "GET /invoices/{id}", "operation") == set()
        assert link_rows(conn, "Query.order", "query") == {
            ("resolved by", "shop.graphql_api.Query.resolve_order", 11),  # Graphene's name
        }
        assert link_rows(conn, "Mutation.cancelOrder", "mutation") == {
            ("resolved by", "shop.graphql_api.cancel", 15),  # Ariadne's @mutation.field(...)
        }
        assert link_rows(conn, "Query.orders", "query") == set()
        assert link_rows(conn, "OrderService", "service") == {
            ("implemented by", "shop.grpc_server.OrderServicer", 6),
            ("implemented by", "go/ordersvc.Server", 3),  # Go methods on a struct
            ("implemented by", "shop.shop_pb2_grpc.OrderServiceServicer", 5),  # generated
        }  # not Unrelated, which has a GetOrder only


def test_keyword_search_with_an_artifact_filter(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        hits = search_artifacts(conn, "orders table customer_id foreign key")
        assert (hits[0].artifact, hits[0].file) == ("db", "db/schema.sql")
        links = hit_links(conn, hits[:1])
        assert {link.symbol.name for link in links[0]} >= {"load_order", "add_line"}
        only_docs = search_artifacts(conn, "refund never exceeds its total", artifact="docs")
        assert only_docs and {h.artifact for h in only_docs} == {"docs"}
        refunds = (shop / "docs" / "architecture.md").read_text().split("\n").index("## Refunds")
        assert only_docs[0].start_line <= refunds + 1 <= only_docs[0].end_line


def test_dense_search_with_the_packaged_model(shop: Path) -> None:
    project = open_project(shop)
    provider = provider_for(project.settings)
    assert provider is not None
    _, result = refresh(shop, provider)
    assert result.embedded > 0 and result.embed_error == ""
    with reader(project) as conn:
        embedded = {
            i.name: (i.embedded, i.chunks) for i in list_artifacts(conn, provider.profile.key())
        }
        assert all(done == total and total > 0 for done, total in embedded.values()), embedded
        hits = search_artifacts(conn, "warehouse watching a stream", provider=provider)
        assert hits[0].file in ("api/shop.proto", "docs/architecture.md")
        assert "cosine" in hits[0].signals
    _, again = refresh(shop, provider)
    assert again.embedded == 0  # nothing changed, nothing embedded


def test_context_names_the_orders_table_with_the_code_that_touches_it(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        named = named_artifacts(conn, "what touches the orders table?")
    first = named[0]
    assert (first.symbol.kind, first.symbol.name) == ("table", "orders")
    assert first.lines[0] == "CREATE TABLE orders ("
    assert {link.symbol.name for link in first.links} == {
        "load_order",
        "mark_shipped",
        "order_report",
        "test_load_order",
    }


def test_context_names_an_operation_written_out(shop: Path) -> None:
    project, _ = refresh(shop)
    with reader(project) as conn:
        (named,) = named_artifacts(conn, "who serves GET /orders/{id}?", limit=1)
    assert (named.symbol.kind, named.symbol.name) == ("operation", "GET /orders/{id}")
    assert named.lines[0] == "    get:"
    assert [(link.relation, link.symbol.name) for link in named.links] == [
        ("handled by", "read_order")
    ]


def test_cli_commands_as_a_user_runs_them(shop: Path) -> None:
    env = {"REPOLENS_EMBED_PROVIDER": "none"}
    before = run_repolens(shop, "status", **env).stdout
    assert "Artifacts: db (not indexed yet: the first artifact call indexes it);" in before
    done = run_repolens(shop, "artifacts", "index", "--json", **env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [(a["name"], len(a["parsed"])) for a in data["artifacts"]] == [
        ("db", 1),
        ("api", 3),
        ("docs", 1),
    ]
    status = run_repolens(shop, "status", **env).stdout
    assert (
        "Artifacts: db (1 file, 1 chunk); api (3 files, 6 chunks); docs (1 file, 1 chunk)" in status
    )
    listed = json.loads(run_repolens(shop, "artifacts", "list", "--json", **env).stdout)
    assert [a["name"] for a in listed["artifacts"]] == ["api", "db", "docs"]
    found = run_repolens(shop, "artifacts", "search", "orders table", "--artifact", "db", **env)
    assert found.returncode == 0, found.stderr
    assert "[db] db/schema.sql" in found.stdout
    assert "orders: used by load_order (shop/repo.py:6, line 8) — " in found.stdout
    removed = json.loads(run_repolens(shop, "artifacts", "remove", "db", "--json", **env).stdout)
    assert removed == {"removed": "db", "still_configured": True}
    again = json.loads(run_repolens(shop, "artifacts", "index", "db", "--json", **env).stdout)
    assert again["artifacts"][0]["parsed"] == ["db/schema.sql"]  # removed, so read again
    unknown = run_repolens(shop, "artifacts", "search", "x", "--artifact", "nope", "--json", **env)
    assert unknown.returncode == 1
    assert "no artifact named 'nope'" in json.loads(unknown.stdout)["error"]


def test_python_api(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPOLENS_EMBED_PROVIDER", "none")
    code = repolens.open(shop)
    assert [info.name for info in code.artifacts()] == ["api", "db", "docs"]
    assert code.artifact_search("place a new order", artifact="api")[0].file == ("api/openapi.yaml")
    users = {(link.relation, link.symbol.name) for link in code.artifact_links("order_lines")}
    assert users == {("used by", "add_line"), ("used by", "order_report")}


def test_an_embed_limit_embeds_a_batch_per_call_until_all_are_done(shop: Path) -> None:
    project = open_project(shop)
    provider = provider_for(project.settings)
    assert provider is not None
    left, notes = [], []
    for _ in range(20):
        with fresh_artifacts(project, provider=provider, embed_limit=2) as (_c, result, note):
            assert result is not None
            left.append(result.unembedded)
            notes.append(note)
        if not result.unembedded:
            break
    assert left[0] > 0 and left[-1] == 0
    assert left == sorted(left, reverse=True)  # each call got further
    assert "artifact chunks are not embedded yet" in notes[0] and notes[-1] == ""
    with reader(project) as conn:
        infos = list_artifacts(conn, provider.profile.key())
    assert all(info.embedded == info.chunks for info in infos)


SPEC = """\
openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /secret:
    get:
      operationId: app.get_secret
"""


def test_an_operation_id_binds_the_handler_of_the_spec_s_own_service(tmp_path: Path) -> None:
    root = tmp_path / "services"
    write_files(root, {
        ".repolens.toml": '[[artifacts]]\nname = "specs"\npath = "."\n',
        "billing/spec/openapi.yaml": SPEC,
        "billing/app.py": "def get_secret():\n    return 1\n",
        "orders/spec/openapi.yaml": SPEC,
        "orders/app.py": "def get_secret():\n    return 2\n",
        "orders/other.py": "def get_secret():\n    return 3\n",  # not app.get_secret
    })  # fmt: skip
    open_indexed(root).close()
    project, _ = refresh(root)
    with reader(project) as conn:
        found = {
            symbol.file: [
                (link.symbol.full_name, link.confidence) for link in links_of(conn, symbol)
            ]
            for symbol in symbols_named(conn, "GET /secret")
        }
    assert found == {
        "billing/spec/openapi.yaml": [("billing.app.get_secret", 0.9)],
        "orders/spec/openapi.yaml": [("orders.app.get_secret", 0.9)],
    }


def test_force_reads_every_file_again_and_drops_what_is_gone(shop: Path) -> None:
    project = open_project(shop)
    refresh(shop)
    (shop / "api" / "schema.graphql").unlink()
    with fresh_artifacts(project, provider=False, force=True) as (_conn, result, _note):
        assert result is not None
    assert reads(result) == {
        "db": (["db/schema.sql"], 0),
        "api": (["api/openapi.yaml", "api/shop.proto"], 0),
        "docs": (["docs/architecture.md"], 0),
    }
    assert [r.removed for r in result.reports] == [0, 1, 0]


def test_a_folder_of_one_yaml_that_is_no_spec_is_skipped_not_an_error(tmp_path: Path) -> None:
    root = tmp_path / "cfg"
    write_files(root, {
        ".repolens.toml": '[[artifacts]]\nname = "conf"\npath = "conf"\n'
                          '[[artifacts]]\nname = "one"\npath = "conf/labels.yaml"\n',
        "conf/labels.yaml": "labels: [bug]\n",
    })  # fmt: skip
    _, result = refresh(root)
    folder, single = result.reports
    assert (folder.skipped, folder.notes, folder.error) == (["conf/labels.yaml"], [], "")
    assert single.notes == ["conf/labels.yaml: " + NOT_OPENAPI]  # named alone: said
