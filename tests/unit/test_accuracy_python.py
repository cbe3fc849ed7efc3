"""Python call-graph accuracy on patterns found missing or wrong in real projects (flask,
jinja2, werkzeug): each test indexes a tiny project with the real pipeline and asserts an
edge that must be there and one that must not."""

from __future__ import annotations

from pathlib import Path

from conftest import IndexTree, ref_reasons
from conftest import indexed_edges as edges


def test_unannotated_factory_returns_what_its_last_statement_returns(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``def create_app(): app = Flask(__name__); ...; return app`` then
    ``app = create_app(); app.route(...)``: the factory's result is a ``Flask``, though
    nothing annotates it (flask's examples and test apps)."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app.py": "class Flask:\n    def route(self, rule): ...\n"
            "    def test_client(self): return Client()\n\n"
            "class Client:\n    def get(self, url): ...\n",
            "pkg/other.py": "class Blueprint:\n    def route(self, rule): ...\n"
            "    def get(self, url): ...\n",
            "pkg/factory.py": "from pkg.app import Flask\n\n"
            "def create_app():\n    app = Flask()\n    app.route('/')\n    return app\n\n"
            "def make_client():\n    return create_app().test_client()\n",
            "pkg/use.py": "from pkg.factory import create_app, make_client\n\n"
            "app = create_app()\n\n@app.route('/x')\ndef index(): ...\n\n"
            "def check():\n    make_client().get('/x')\n",
        },
        index_tree,
    )
    assert ("pkg/use.py", "calls", "Flask.route", "pkg/app.py") in found
    assert ("check", "calls", "Client.get", "pkg/app.py") in found
    assert not {edge for edge in found if edge[3] == "pkg/other.py"}


def test_pytest_fixture_parameters_hold_what_the_fixture_returns(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``def test_x(client): client.get()`` with ``@pytest.fixture def client(app): return
    app.test_client()`` in a ``conftest.py`` above (flask, jinja2): ``client`` is what the
    fixture returns, not any class with a ``get`` method; outside tests a parameter of
    the same name is not a fixture."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app.py": "class Flask:\n    def test_client(self): return Client()\n\n"
            "class Client:\n    def get(self, url): ...\n",
            "pkg/other.py": "class Session:\n    def get(self, url): ...\n"
            "    def post(self, url): ...\n",
            "tests/conftest.py": "import pytest\nfrom pkg.app import Flask\n\n"
            "@pytest.fixture\ndef app():\n    app = Flask()\n    return app\n\n"
            "@pytest.fixture\ndef client(app):\n    return app.test_client()\n",
            "tests/web/test_views.py": "def test_index(client):\n    client.get('/')\n",
            "pkg/views.py": "def index(client):\n    client.post('/')\n",
        },
        index_tree,
    )
    assert ("test_index", "calls", "Client.get", "pkg/app.py") in found
    assert ("client", "calls", "Flask.test_client", "pkg/app.py") in found
    assert ("test_index", "calls", "Session.get", "pkg/other.py") not in found
    assert ("index", "calls", "Client.post", "pkg/app.py") not in found


def test_a_fixture_of_the_test_class_or_its_base_comes_first(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """A fixture method of the test's class, or of a base test class, is what the test's
    parameter holds, before a module-level fixture of the same name (pytest's order)."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/kinds.py": "class Conn:\n    def ping(self): ...\n\n"
            "class Pool:\n    def ping(self): ...\n",
            "tests/test_conns.py": "import pytest\nfrom pkg.kinds import Conn, Pool\n\n"
            "@pytest.fixture\ndef conn():\n    return Pool()\n\n"
            "class Base:\n    @pytest.fixture\n    def conn(self):\n        return Conn()\n\n"
            "class TestConn(Base):\n    def test_ping(self, conn):\n        conn.ping()\n\n"
            "def test_module(conn):\n    conn.ping()\n",
        },
        index_tree,
    )
    assert ("TestConn.test_ping", "calls", "Conn.ping", "pkg/kinds.py") in found
    assert ("TestConn.test_ping", "calls", "Pool.ping", "pkg/kinds.py") not in found
    assert ("test_module", "calls", "Pool.ping", "pkg/kinds.py") in found


def test_a_yield_fixture_gives_what_it_yields(tmp_path: Path, index_tree: IndexTree) -> None:
    """``@pytest.fixture def app(): app = create_app(); yield app`` (flask's tutorial
    conftest): a test's ``app`` parameter is that app, so ``app.app_context()`` is the
    project's method, not a same-named one of another class."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app.py": "class App:\n    def app_context(self):\n        return 1\n\n\n"
            "def create_app():\n    return App()\n",
            "pkg/other.py": "class Other:\n    def app_context(self):\n        return 2\n",
            "tests/conftest.py": "import pytest\nfrom pkg.app import create_app\n\n\n"
            "@pytest.fixture\ndef server():\n    app = create_app()\n    yield app\n",
            "tests/test_app.py": "def test_ctx(server):\n    server.app_context()\n",
        },
        index_tree,
    )
    assert ("test_ctx", "calls", "App.app_context", "pkg/app.py") in found
    assert not {edge for edge in found if edge[3] == "pkg/other.py"}


def test_an_annotated_yield_fixture_gives_the_generator_s_item(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``@pytest.fixture def server() -> Iterator[TestServer]`` (httpx's conftest): a
    test's ``server`` is a ``TestServer``, so ``server.url`` is its property's ``URL``."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/url.py": "class URL:\n    def copy_with(self):\n        return self\n",
            "tests/other.py": "class Other:\n    def copy_with(self):\n        return 2\n",
            "tests/conftest.py": "import typing\nimport pytest\nfrom pkg.url import URL\n\n\n"
            "class TestServer:\n    @property\n    def url(self) -> URL:\n"
            "        return URL()\n\n\n"
            "@pytest.fixture\ndef server() -> typing.Iterator[TestServer]:\n"
            "    yield make()\n",
            "tests/test_url.py": "def test_url(server):\n    server.url.copy_with()\n",
        },
        index_tree,
    )
    assert ("test_url", "calls", "URL.copy_with", "pkg/url.py") in found
    assert not {edge for edge in found if edge[3] == "tests/other.py"}  # a guess nearby


def test_a_type_alias_under_type_checking_is_what_annotations_name(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``if TYPE_CHECKING: from . import _types as _t`` and ``UriType: TypeAlias = ...``
    in ``_types.py`` under ``if TYPE_CHECKING:`` (requests, packaging): an annotation
    ``url: _t.UriType`` names that alias, which was no symbol at all."""
    found = edges(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_types.py": "from typing import TYPE_CHECKING, TypeAlias\n\n"
            "if TYPE_CHECKING:\n    UriType: TypeAlias = str | bytes\n",
            "pkg/sessions.py": "from typing import TYPE_CHECKING\n\n"
            "if TYPE_CHECKING:\n    from . import _types as _t\n"
            "    Interval = tuple[int, int]\n\n"
            "def request(url: '_t.UriType', span: Interval) -> None: ...\n",
        },
        index_tree,
        kinds=("type_of",),
    )
    assert ("request", "type_of", "UriType", "pkg/_types.py") in found
    assert ("request", "type_of", "Interval", "pkg/sessions.py") in found


def test_a_dunder_no_project_class_defines_is_builtin(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``cls.__new__(cls)``, ``super().__init__()`` in a class with no bases (pip,
    pkg_resources) are the object model's own, not unknown, while ``self.__class__`` is
    the instance's class; a plain member the class lacks stays unknown, and one a base
    outside the project may hold, external."""
    reasons = ref_reasons(
        tmp_path,
        {
            "pkg/a.py": "import json\n\n"
            "class Base:\n    def __init__(self):\n        super().__init__()\n"
            "        keep(self.__class__, self.missing)\n\n"
            "    @classmethod\n    def build(cls):\n        return cls.__new__(cls)\n\n"
            "class Coder(json.JSONEncoder):\n    def run(self):\n        keep(self.indent)\n\n"
            "def keep(*values): ...\n",
        },
        index_tree,
    )
    assert reasons["super().__init__"] == "builtin"
    assert reasons["self.__class__"] == ""  # resolved: a reference to Base
    assert reasons["cls.__new__"] == "builtin"
    assert reasons["self.missing"] == "unknown"
    assert reasons["self.indent"] == "external"


def test_a_property_read_gives_its_getter_type_not_its_setter(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``@property def files(self) -> Files`` then ``@files.setter def files(self, v) ->
    None`` (werkzeug's ``EnvironBuilder``): ``self.files.add()`` reads the getter, though
    the setter is defined last; a namesake ``add`` elsewhere is not the one meant."""
    found = edges(
        tmp_path,
        {
            "pkg/files.py": "class Files:\n    def add(self, f): ...\n",
            "pkg/other.py": "class Bag:\n    def add(self, f): ...\n",
            "pkg/builder.py": "from pkg.files import Files\n\n"
            "class Builder:\n    @property\n    def files(self) -> Files:\n"
            "        return Files()\n\n"
            "    @files.setter\n    def files(self, value: Files) -> None: ...\n\n"
            "    def attach(self, f):\n        self.files.add(f)\n",
        },
        index_tree,
    )
    assert ("Builder.attach", "calls", "Files.add", "pkg/files.py") in found
    assert not {edge for edge in found if edge[3] == "pkg/other.py"}


def test_a_nested_functions_loop_over_the_enclosing_functions_list(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``jobs: list[Job] = []`` in a function, ``for item in jobs: item.run()`` in a
    function nested in it: the loop variable is a ``Job``, not a guess among ``run``
    methods."""
    found = edges(
        tmp_path,
        {
            "pkg/jobs.py": "class Job:\n    def run(self): ...\n\n"
            "class Task:\n    def run(self): ...\n",
            "pkg/main.py": "from pkg.jobs import Job, Task\n\n"
            "def schedule(task: Task):\n    jobs: list[Job] = []\n\n"
            "    def drain():\n        for item in jobs:\n            item.run()\n\n"
            "    return drain\n",
        },
        index_tree,
    )
    assert ("schedule.drain", "calls", "Job.run", "pkg/jobs.py") in found
    assert ("schedule.drain", "calls", "Task.run", "pkg/jobs.py") not in found


def test_a_conditional_value_is_what_its_call_branch_gives(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``self.console = console if console is not None else get_console()`` (rich's
    ``Live``): the field holds what ``get_console()`` returns, whichever branch is a name."""
    found = edges(
        tmp_path,
        {
            "pkg/console.py": "class Console:\n    def line(self): ...\n\n"
            "class Printer:\n    def line(self): ...\n\n"
            "def get_console() -> Console:\n    return Console()\n",
            "pkg/live.py": "from pkg.console import get_console\n\n"
            "class Live:\n    def __init__(self, out=None):\n"
            "        self.out = out if out is not None else get_console()\n\n"
            "    def stop(self):\n        self.out.line()\n",
        },
        index_tree,
    )
    assert ("Live.stop", "calls", "Console.line", "pkg/console.py") in found
    assert ("Live.stop", "calls", "Printer.line", "pkg/console.py") not in found
