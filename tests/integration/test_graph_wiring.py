"""Framework wiring on ``tests/fixtures/wiring``: dependency injection (Spring beans,
NestJS and Angular providers, FastAPI ``Depends``) and UI channels (React event props,
``setState`` and hook setters, Vue and Svelte template handlers, Flutter ``setState``).
Each channel's must-have and must-not-have edges, how each says it was wired, paths
across each bridged hop, and an incremental index equal to a full one after edits.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import IndexTree, assert_channels, index_copy, replace_in, synthesized_edges
from repolens.present.symbols import edge_line
from repolens.query.graph import call_path, callees, find_symbol

FIXTURE = Path(__file__).parents[1] / "fixtures" / "wiring"

MUST_HAVE = {
    # Spring: the @Primary bean, the @Qualifier'd one, a @Bean method's class
    ("OwnerController.show", "JpaOwnerService.find", "injection"),
    ("OwnerController.quick", "CachedOwnerService.find", "injection"),
    ("OwnerController.show", "InMemoryPets.name", "injection"),
    ("OwnerController.fallback", "CachedOwnerService.find", "injection"),  # constructor
    ("InvoiceController.show", "SqlInvoiceStore.total", "injection"),  # Kotlin
    # NestJS: a string token and a class token; Angular: inject(Logger)
    ("CatsController.list", "MemStore.all", "injection"),
    ("CatsController.time", "FixedClock.now", "injection"),
    ("HeroComponent.save", "BetterLogger.log", "injection"),
    # FastAPI: parameters, Annotated, a decorator's dependencies=[...], nested
    ("read_items", "get_user", "depends"),
    ("read_items", "get_db", "depends"),
    ("read_items", "verify_key", "depends"),
    ("get_user", "get_db", "depends"),
    ("read_me", "get_user", "depends"),  # user: UserDep, an Annotated alias
    ("get_profile", "get_user", "depends"),
    ("purge", "verify_key", "depends"),  # APIRouter(dependencies=[...]) of its route
    # UI: state changes render again, handlers named in markup run on events
    ("Counter.bump", "Counter.render", "render"),
    ("List.add", "List", "render"),
    ("_CounterState.bump", "_CounterState.build", "render"),
    ("_LoggedState.bump", "_LoggedState.build", "render"),  # through its own setState
    ("List", "List.add", "handler"),
    ("Counter.render", "Counter.bump", "handler"),
    ("Todo", "Todo.archive", "handler"),  # Vue @click
    ("Todo", "Todo.remove", "handler"),  # v-on:click.stop="remove(1)": the one call
    ("Inbox", "Inbox.archive", "handler"),  # Svelte on:click
    ("Inbox", "Inbox.save", "handler"),  # Svelte on:submit|preventDefault
    ("Inbox", "Inbox.clear", "handler"),  # on:click={() => clear(true)}, read from text
    ("Inbox", "Inbox.toggle", "handler"),  # Svelte 5: onchange={toggle}
    ("HeroComponent", "HeroComponent.save", "handler"),  # Angular inline template
    ("VillainComponent", "VillainComponent.reload", "handler"),  # its templateUrl file
}
MUST_NOT_HAVE = {
    # Spring: not the bean the field asks for; never a bean at all
    ("OwnerController.show", "CachedOwnerService.find"),
    ("OwnerController.show", "FakeOwnerService.find"),
    ("OwnerController.quick", "JpaOwnerService.find"),
    ("OwnerController.quick", "FakeOwnerService.find"),
    ("OwnerController.fallback", "JpaOwnerService.find"),
    ("InvoiceController.show", "MemoryInvoiceStore.total"),  # no bean
    # NestJS: another Store nobody provides; a factory names no class
    ("CatsController.list", "DiskStore.all"),
    ("CatsController.settings", "MemStore.all"),
    ("CatsController.settings", "DiskStore.all"),
    ("report", "audit"),  # the project's own Depends, not FastAPI's
    ("helper", "verify_key"),  # no route of the router
    ("useToggle.flip", "useToggle"),  # a custom hook's setter: which component renders?
    ("List", "shout"),  # format={shout}: a prop, not an event
    ("Counter.constructor", "Counter.render"),  # its setState is in an arrow it stores
    ("Plain.touch", "Plain.build"),  # setState of a class that is no Flutter State
    ("Todo", "Todo.reset"),
    (
        "VillainComponent",
        "VillainComponent.hide",
    ),  # no binding calls it  # @click="reset(); archive()": an expression
    ("Todo", "Todo.label"),  # :title="label": no event; onclick="label()": page scope
    ("Inbox", "Inbox.title"),  # Svelte title={title}: no event
}


@pytest.fixture(scope="module")
def wiring(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    conn = index_copy(tmp_path_factory, index_tree, FIXTURE)
    yield conn
    conn.close()


def test_each_channel_bridges_its_calls(wiring: sqlite3.Connection) -> None:
    assert_channels(wiring, MUST_HAVE, MUST_NOT_HAVE)


def test_an_injected_call_replaces_the_guess_over_every_implementation(
    wiring: sqlite3.Connection,
) -> None:
    found = synthesized_edges(wiring)
    # Report's field is filled by its caller, not the container: every implementation
    assert found[("Report.line", "FakeOwnerService.find")]["channel"] == "interface"
    assert found[("Report.line", "JpaOwnerService.find")]["channel"] == "interface"
    # the injected field's call names its bean only
    show = {target for (source, target) in found if source == "OwnerController.show"}
    assert show == {"JpaOwnerService.find", "InMemoryPets.name"}


def test_an_overloaded_call_reaches_the_overload_of_its_arity(wiring: sqlite3.Connection) -> None:
    rows = wiring.execute(
        "SELECT t.start_line FROM edges e JOIN symbols s ON s.id = e.source_id"
        " JOIN symbols t ON t.id = e.target_id WHERE e.provenance = 'synthesized'"
        " AND s.qualified_name = ? AND t.qualified_name = ?",
        ("OwnerController.deep", "JpaOwnerService.find"),
    ).fetchall()
    assert [tuple(row) for row in rows] == [(14,)]  # @Override find(int id, boolean deep)


def test_each_edge_names_its_channel_and_wiring_site(wiring: sqlite3.Connection) -> None:
    found = synthesized_edges(wiring)
    primary = found[("OwnerController.show", "JpaOwnerService.find")]
    assert primary["via"] == "OwnerController.owners"
    assert primary["site"] == "spring/src/main/java/shop/JpaOwnerService.java:6"
    assert (primary["path"], primary["line"]) == (
        "spring/src/main/java/shop/OwnerController.java",
        26,
    )
    assert found[("OwnerController.show", "InMemoryPets.name")]["site"] == (
        "spring/src/main/java/shop/PetConfig.java:8"  # the @Bean method
    )
    assert found[("CatsController.list", "MemStore.all")]["site"] == "nest/src/cats.module.ts:8"
    depends = found[("read_items", "verify_key")]
    assert (depends["via"], depends["site"]) == ("Depends", "pyapi/app/main.py:12")
    alias = found[("read_me", "get_user")]
    assert (alias["via"], alias["site"], alias["path"]) == (
        "UserDep", "pyapi/app/deps.py:18", "pyapi/app/main.py"
    )  # fmt: skip
    hook = found[("List.add", "List")]
    assert (hook["via"], hook["site"], hook["line"]) == ("setItems", "react/src/App.tsx:20", 22)
    assert found[("List", "List.add")]["via"] == "onClick"
    assert found[("Inbox", "Inbox.save")]["via"] == "on:submit|preventDefault"
    villain = found[("VillainComponent", "VillainComponent.reload")]
    assert (villain["via"], villain["path"], villain["line"]) == (
        "(click)", "angular/src/villain.component.html", 4
    )  # fmt: skip
    vue = found[("Todo", "Todo.archive")]
    assert (vue["via"], vue["site"]) == ("@click", "vue/Todo.vue:3")
    assert all(0 < float(str(meta["confidence"])) < 0.9 for meta in found.values())


def test_callees_say_which_bean_and_where_it_is_registered(wiring: sqlite3.Connection) -> None:
    lines = [edge_line(hit) for hit in callees(wiring, find_symbol(wiring, "OwnerController.show"))]
    bean = [line for line in lines if line.startswith("JpaOwnerService.find")]
    assert bean and bean[0].endswith(
        "via `OwnerController.owners` (injection), registered at"
        " spring/src/main/java/shop/JpaOwnerService.java:6"
    )
    handler = [edge_line(hit) for hit in callees(wiring, find_symbol(wiring, "List"))]
    assert any("via `onClick` (handler), bound at react/src/App.tsx:25" in line for line in handler)


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ("OwnerController.show", "InMemoryPets.name"),  # a @Bean method's class
        ("CatsController.time", "FixedClock.now"),
        ("HeroComponent.save", "BetterLogger.log"),
        ("read_items", "verify_key"),
        ("read_me", "get_db"),  # the alias's dependency, then its own Depends
        ("Counter.bump", "Counter.render"),
        ("List.add", "Row"),  # setItems(...) renders List, which renders <Row/>
        ("_CounterState.bump", "_CounterState.build"),
        ("Counter.bump", "Row"),  # setState -> render -> <List/> -> <Row/>
        ("Inbox", "Inbox.save"),
        ("Inbox", "Inbox.clear"),  # an arrow read from the markup's text
        ("VillainComponent", "VillainComponent.reload"),  # its templateUrl file
        ("purge", "verify_key"),  # its router's dependencies
        ("InvoiceController.show", "SqlInvoiceStore.total"),  # Kotlin
    ],
)
def test_path_crosses_each_bridged_hop(wiring: sqlite3.Connection, src: str, dst: str) -> None:
    chain = call_path(wiring, find_symbol(wiring, src), find_symbol(wiring, dst))
    assert chain is not None
    assert chain[-1].symbol.qualified_name == dst
    assert any(hop.provenance == "synthesized" for hop in chain)


def test_incremental_equals_full_after_editing_wiring_sites(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    root = tmp_path / "edited"
    shutil.copytree(FIXTURE, root)
    index_tree(root).close()
    java = "spring/src/main/java/shop"
    replace_in(root, f"{java}/JpaOwnerService.java", "@Primary\n", "")  # two beans, none primary
    replace_in(
        root,
        f"{java}/OwnerController.java",
        '@Qualifier("cached")',
        '@Qualifier("jpaOwnerService")',
    )
    replace_in(root, "nest/src/cats.module.ts", "useClass: MemStore", "useClass: DiskStore")
    replace_in(root, "pyapi/app/main.py", ", dependencies=[Depends(verify_key)]", "")
    replace_in(root, "vue/Todo.vue", '<button @click="archive">', '<button @click="label">')
    replace_in(root, "react/src/App.tsx", "<ul onClick={add}>", "<ul>")
    incremental = index_tree(root)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".repolens"))
    full = index_tree(fresh)
    try:
        edges = synthesized_edges(incremental)
        assert edges == synthesized_edges(full)
        several = edges[("OwnerController.show", "CachedOwnerService.find")]
        assert several["channel"] == "injection" and float(str(several["confidence"])) == 0.5
        assert ("OwnerController.show", "FakeOwnerService.find") not in edges
        assert ("OwnerController.quick", "JpaOwnerService.find") in edges
        assert ("OwnerController.quick", "CachedOwnerService.find") not in edges
        assert ("CatsController.list", "DiskStore.all") in edges
        assert ("CatsController.list", "MemStore.all") not in edges
        assert ("read_items", "verify_key") not in edges
        assert ("read_items", "get_user") in edges
        assert ("Todo", "Todo.label") in edges
        assert ("Todo", "Todo.archive") not in edges
        assert ("List", "List.add") not in edges
    finally:
        incremental.close()
        full.close()
