"""JavaScript/TypeScript call-graph accuracy on patterns found missing or wrong in real
projects (superagent, send, koa, axios, ws): each test indexes a tiny project with the
real pipeline and asserts an edge that must be there and one that must not."""

from __future__ import annotations

from pathlib import Path

from conftest import IndexTree, ref_reasons
from conftest import indexed_edges as edges


def test_prototype_methods_belong_to_their_constructor_function(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``Request.prototype.end = function () { this.callback() }`` (superagent, send): the
    method is ``Request.end``, its calls are its own (not the module's), ``this`` is a
    ``Request``, and a caller holding ``new Request()`` reaches it."""
    found = edges(
        tmp_path,
        {
            "lib/request.js": "function Request(url) {\n  this.url = url;\n}\n"
            "Request.prototype.callback = function (err) {\n  return err;\n};\n"
            "Request.prototype.end = function () {\n  this.callback(null);\n};\n"
            "module.exports = Request;\n",
            "lib/other.js": "function Other() {}\n"
            "Other.prototype.callback = function () {};\n"
            "Other.prototype.end = function () {};\n"
            "module.exports = Other;\n",
            "lib/use.js": "const Request = require('./request');\n"
            "function send(url) {\n  const req = new Request(url);\n  req.end();\n}\n"
            "module.exports = send;\n",
        },
        index_tree,
    )
    assert ("Request.end", "calls", "Request.callback", "lib/request.js") in found
    assert ("send", "calls", "Request.end", "lib/request.js") in found
    assert ("send", "instantiates", "Request", "lib/request.js") in found
    assert not {edge for edge in found if edge[3] == "lib/other.js"}


def test_default_exported_object_is_the_module_of_its_members(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``export default { isArray, hasOwnProp: hasOwnProperty }`` (axios ``utils``):
    ``utils.isArray()`` after ``import utils from './utils.js'`` is the function listed,
    under its key when renamed, and not another file's function of that name."""
    found = edges(
        tmp_path,
        {
            "lib/utils.js": "function isArray(x) { return false; }\n"
            "function hasOwnProperty(o, k) { return true; }\n"
            "export default { isArray, hasOwnProp: hasOwnProperty };\n",
            "lib/other.js": "export function isArray() {}\nexport function hasOwnProp() {}\n",
            "lib/use.js": "import utils from './utils.js';\n"
            "export function check(x) {\n  utils.isArray(x);\n  utils.hasOwnProp(x, 'a');\n}\n",
        },
        index_tree,
    )
    assert ("check", "calls", "isArray", "lib/utils.js") in found
    assert ("check", "calls", "hasOwnProperty", "lib/utils.js") in found
    assert not {edge for edge in found if edge[3] == "lib/other.js"}


def test_class_expression_assigned_to_module_exports_is_what_require_gives(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``module.exports = class Application { ... }`` (koa) is a class with its methods,
    and both ``require('./application')`` and a default import of the file give it."""
    found = edges(
        tmp_path,
        {
            "lib/application.js": "module.exports = class Application {\n"
            "  use(fn) { this.compose(fn); return this; }\n  compose(fn) {}\n};\n",
            "lib/other.js": "class Other {\n  use() {}\n  compose() {}\n}\n"
            "module.exports = Other;\n",
            "lib/main.js": "const Application = require('./application');\n"
            "function main() {\n  const app = new Application();\n  app.use(null);\n}\n"
            "module.exports = main;\n",
            "lib/esm.mjs": "import Application from './application.js';\n"
            "export function boot() {\n  const app = new Application();\n  app.use(null);\n}\n",
        },
        index_tree,
    )
    assert ("Application.use", "calls", "Application.compose", "lib/application.js") in found
    assert ("main", "calls", "Application.use", "lib/application.js") in found
    assert ("boot", "calls", "Application.use", "lib/application.js") in found
    assert not {edge for edge in found if edge[3] == "lib/other.js"}


def test_node_object_methods_on_unknown_receivers_are_not_guessed(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``req.destroy()`` / ``res.setHeader()`` on an untyped parameter is Node's request or
    response, not the project's one class with a method of that name (send, superagent);
    on a receiver of known type the method still resolves."""
    found = edges(
        tmp_path,
        {
            "lib/response.js": "class Response {\n  destroy() {}\n  setHeader(k, v) {}\n}\n"
            "module.exports = Response;\n",
            "lib/server.js": "const Response = require('./response');\n"
            "function handle(req, res) {\n  res.setHeader('a', 1);\n  req.destroy();\n}\n"
            "function own() {\n  const r = new Response();\n  r.destroy();\n}\n"
            "module.exports = { handle, own };\n",
        },
        index_tree,
    )
    assert ("own", "calls", "Response.destroy", "lib/response.js") in found
    assert not {edge for edge in found if edge[0] == "handle"}


def test_prototype_objects_aliases_and_inherits_make_classes(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``Base.prototype = { greet() {}, wave: function () {} }``, ``const proto =
    Child.prototype; proto.run = function`` (axios) and ``util.inherits(Child, Base)`` /
    ``mixin(Child.prototype, Base.prototype)`` (send, superagent): ``this.wave()`` in a
    ``Child`` method reaches the base's method, not another class's."""
    found = edges(
        tmp_path,
        {
            "lib/base.js": "function Base() {}\nBase.prototype = {\n"
            "  greet() { return 1; },\n  wave: function () { this.greet(); },\n};\n"
            "module.exports = Base;\n",
            "lib/child.js": "const util = require('util');\nconst Base = require('./base');\n"
            "function Child() {}\nutil.inherits(Child, Base);\n"
            "const proto = Child.prototype;\nproto.run = function () { this.wave(); };\n"
            "function Mixed() {}\nmixin(Mixed.prototype, Base.prototype);\n"
            "Mixed.prototype.go = function () { this.greet(); };\n"
            "const obj = {};\nobj.run = function () {};\n"
            "module.exports = { Child, Mixed };\n",
            "lib/other.js": "class Other {\n  wave() {}\n  greet() {}\n  other() {}\n}\n"
            "module.exports = Other;\n",
        },
        index_tree,
    )
    assert ("Base.wave", "calls", "Base.greet", "lib/base.js") in found
    assert ("Child.run", "calls", "Base.wave", "lib/base.js") in found
    assert ("Mixed.go", "calls", "Base.greet", "lib/base.js") in found
    assert not {edge for edge in found if edge[3] == "lib/other.js"}


def test_methods_of_an_exported_object_literal_call_each_other_through_this(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``module.exports = { get(k) { ... }, is() { return this.get(k) } }`` (koa's
    request, response and context): ``this`` is the object, so ``this.get`` is its own
    ``get``, not another class's."""
    found = edges(
        tmp_path,
        {
            "lib/request.js": "module.exports = {\n  get(field) { return field; },\n"
            "  is(type) { return this.get(type); },\n"
            "  accepts: function () { return this.is('a'); },\n};\n",
            "lib/other.js": "class Other {\n  get() {}\n  is() {}\n}\nmodule.exports = Other;\n",
        },
        index_tree,
    )
    assert ("exports.is", "calls", "exports.get", "lib/request.js") in found
    assert ("exports.accepts", "calls", "exports.is", "lib/request.js") in found
    assert not {edge for edge in found if edge[3] == "lib/other.js"}


def test_a_receiver_named_for_another_class_is_not_guessed(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``textEncoder.encode()`` (axios) is no call of the project's one ``encode``
    method, of ``FormDataPart``; ``helper.formatHelp()`` still guesses ``Help``'s."""
    found = edges(
        tmp_path,
        {
            "lib/part.js": "class FormDataPart {\n  encode(v) { return v; }\n}\n"
            "class Help {\n  formatHelp() {}\n}\nmodule.exports = { FormDataPart, Help };\n",
            "lib/use.js": "function write(textEncoder, helper) {\n"
            "  textEncoder.encode('a');\n  helper.formatHelp();\n}\nmodule.exports = write;\n",
        },
        index_tree,
    )
    assert ("write", "calls", "Help.formatHelp", "lib/part.js") in found
    assert ("write", "calls", "FormDataPart.encode", "lib/part.js") not in found


def test_instanceof_narrows_a_name_in_its_block(tmp_path: Path, index_tree: IndexTree) -> None:
    """``if (v instanceof Engine) { v.start() }`` calls ``Engine.start`` (two classes
    define ``start``, so a guess has no one answer); after the block ``v`` is what it was:
    its annotation in TypeScript, nothing in JavaScript."""
    kinds = "class Engine {\n  start() {}\n}\nclass Bike {\n  start() {}\n}\n"
    found = edges(
        tmp_path,
        {
            "src/kinds.ts": kinds.replace("class", "export class"),
            "src/use.ts": 'import { Bike, Engine } from "./kinds";\n'
            "export function guard(v: Bike): void {\n  if (v instanceof Engine) {\n"
            "    v.start();\n    return;\n  }\n  v.start();\n}\n",
            "lib/kinds.js": kinds + "module.exports = { Engine, Bike };\n",
            "lib/use.js": "const { Engine } = require('./kinds');\n"
            "function check(v) {\n  if (v instanceof Engine) {\n    v.start();\n  }\n"
            "  v.start();\n}\nmodule.exports = check;\n",
        },
        index_tree,
    )
    assert ("guard", "calls", "Engine.start", "src/kinds.ts") in found
    assert ("guard", "calls", "Bike.start", "src/kinds.ts") in found
    assert {edge for edge in found if edge[0] == "check"} == {
        ("check", "calls", "Engine.start", "lib/kinds.js")
    }


def test_an_element_of_a_typed_array_has_its_methods(tmp_path: Path, index_tree: IndexTree) -> None:
    """``conns[0].close()`` with ``conns: Conn[]``, ``byName[k]`` with ``Record<string,
    Pool>``: the element's method (both classes define ``close``)."""
    found = edges(
        tmp_path,
        {
            "src/kinds.ts": "export class Conn {\n  close(): void {}\n}\n"
            "export class Pool {\n  close(): void {}\n}\n",
            "src/use.ts": 'import { Conn, Pool } from "./kinds";\n'
            "export function shut(conns: Conn[], byName: Record<string, Pool>): void {\n"
            '  conns[0].close();\n  byName["a"].close();\n}\n',
        },
        index_tree,
    )
    assert ("shut", "calls", "Conn.close", "src/kinds.ts") in found
    assert ("shut", "calls", "Pool.close", "src/kinds.ts") in found


def test_methods_assigned_to_a_module_object_belong_to_it(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``var app = exports = module.exports = {}`` then ``app.init = function`` (express'
    application, request, response and router): ``app`` is an object owning ``init``, ``this``
    in its methods is ``app``, and a file requiring it reaches them; ``req.get =
    req.header = function`` defines both names. A variable of another file holding a plain
    value gives no methods, nor does a function given a property (``debounce.cancel``)."""
    found = edges(
        tmp_path,
        {
            "lib/application.js": "var app = exports = module.exports = {};\n"
            "app.init = function init() {\n  this.set('a', 1);\n};\n"
            "app.set = function set(key, value) {\n  return this;\n};\n",
            "lib/request.js": "var req = Object.create(null);\nmodule.exports = req;\n"
            "req.get =\nreq.header = function header(name) {\n  return name;\n};\n"
            "req.is = function is(type) {\n  return this.header(type);\n};\n"
            "req.accepts = function accepts() {\n  return this.get('Accept');\n};\n",
            "lib/router.js": "var proto = module.exports = function (options) {};\n"
            "proto.param = function param(name) {};\n"
            "proto.handle = function handle(req) {\n  this.param('id');\n};\n",
            "lib/other.js": "var settings = {};\nsettings.set = function (k) {};\n"
            "module.exports = settings;\n",
            "lib/debounce.js": "var debounce = function () {};\n"
            "debounce.cancel = function () {};\nmodule.exports = debounce;\n",
            "lib/use.js": "var proto = require('./application');\n"
            "var request = require('./request');\nvar debounce = require('./debounce');\n"
            "function start() {\n  proto.init();\n  request.is('json');\n  debounce();\n}\n"
            "module.exports = start;\n",
        },
        index_tree,
    )
    assert ("app.init", "calls", "app.set", "lib/application.js") in found
    assert ("req.is", "calls", "req.header", "lib/request.js") in found
    assert ("start", "calls", "app.init", "lib/application.js") in found
    assert ("start", "calls", "req.is", "lib/request.js") in found
    assert ("proto.handle", "calls", "proto.param", "lib/router.js") in found
    assert ("req.accepts", "calls", "req.get", "lib/request.js") in found  # `get = header =`
    assert ("app.init", "calls", "settings.set", "lib/other.js") not in found
    # a function given a property stays a function: calling it makes no instance
    assert ("start", "calls", "debounce", "lib/debounce.js") in found


def test_an_object_literal_of_functions_is_an_object_with_methods(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``export const api = { get: (url) => ..., post: function () {}, setTimeout() {} }``: each
    property holding a function is a method of ``api``, reached through ``api.get`` from
    another file and through ``this`` inside. A bare call inside a method named like it
    is the global function, not the method (an object's members are no scope)."""
    found = edges(
        tmp_path,
        {
            "src/api.ts": "export const api = {\n  get: (url: string) => url,\n"
            "  post: function (url: string) { return this.get(url); },\n"
            "  setTimeout(cb: () => void) { return setTimeout(cb, 1); },\n};\n",
            "src/use.ts": "import { api } from './api';\n"
            "export function load() {\n  return api.post('/x');\n}\n",
        },
        index_tree,
    )
    assert ("load", "calls", "api.post", "src/api.ts") in found
    assert ("api.post", "calls", "api.get", "src/api.ts") in found
    assert ("api.setTimeout", "calls", "api.setTimeout", "src/api.ts") not in found


def test_call_and_apply_of_a_function_call_it(tmp_path: Path, index_tree: IndexTree) -> None:
    """``Base.prototype.save.call(this, cb)``, ``methods.push.apply(this, arguments)`` and
    ``helper.call(null, 1)`` (mongoose) call ``Base.save``, ``methods.push`` and
    ``helper``; a class's own ``call`` method is still that method."""
    found = edges(
        tmp_path,
        {
            "lib/base.js": "function Base() {}\n"
            "Base.prototype.save = function save(cb) { return cb; };\n"
            "function Child() {}\n"
            "Child.prototype.save = function save(cb) {\n"
            "  return Base.prototype.save.call(this, cb);\n};\n"
            "const methods = { push(x) { return x; } };\n"
            "function pushAll() { return methods.push.apply(this, arguments); }\n"
            "function helper(a) { return a; }\n"
            "function run() { return helper.call(null, 1); }\n"
            "class Rpc { call(method) { return method; } }\n"
            "function remote() { return new Rpc().call('ping'); }\n"
            "module.exports = { Base, Child, pushAll, run, remote };\n",
        },
        index_tree,
    )
    assert ("Child.save", "calls", "Base.save", "lib/base.js") in found
    assert ("pushAll", "calls", "methods.push", "lib/base.js") in found
    assert ("run", "calls", "helper", "lib/base.js") in found
    assert ("remote", "calls", "Rpc.call", "lib/base.js") in found


def test_this_in_an_object_may_be_what_it_is_mixed_into(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``const docMethods = { reverse() { this.registerAtomic() } }`` mixed into arrays
    that also get ``arrayMethods`` (mongoose): a member the object lacks is guessed by
    name, as on an unknown receiver, rather than left unknown."""
    found = edges(
        tmp_path,
        {
            "lib/array.js": "const arrayMethods = {\n  registerAtomic(op) { return op; },\n};\n"
            "module.exports = arrayMethods;\n",
            "lib/docs.js": "const docMethods = {\n"
            "  reverse() { this.registerAtomic('$set'); return this; },\n};\n"
            "module.exports = docMethods;\n",
        },
        index_tree,
    )
    assert ("docMethods.reverse", "calls", "arrayMethods.registerAtomic", "lib/array.js") in found


def test_a_local_passed_as_a_value_is_not_a_project_function(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``const first = args[0]; isArray(first)`` and ``list.map((type) => use(type))``
    (rxjs, superagent): the local or callback parameter is meant, never the project's
    ``first`` operator or ``type`` function; a function passed by name still is one."""
    found = edges(
        tmp_path,
        {
            "src/first.ts": "export function first<T>(xs: T[]): T { return xs[0]; }\n",
            "src/type.ts": "export function type(x: unknown): string { return typeof x; }\n",
            "src/use.ts": "import { first } from './first';\nimport { type } from './type';\n"
            "export function pick(args: unknown[], use: (x: unknown) => void) {\n"
            "  const first = args[0];\n  use(first);\n"
            "  args.map((type) => use(type));\n  return args.map(type);\n}\n",
        },
        index_tree,
        kinds=("references",),
    )
    assert ("pick", "references", "type", "src/type.ts") in found
    assert ("pick", "references", "first", "src/first.ts") not in found
    assert len([e for e in found if e[:3] == ("pick", "references", "type")]) == 1


def test_a_standard_library_type_is_builtin_not_a_same_named_project_type(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``xhr: XMLHttpRequest``, ``store: Storage`` (rxjs' ajax, axios): the DOM's types,
    which the project names without importing, are builtin; a project class ``Storage``
    in another file that this one does not import is not guessed for them."""
    reasons = ref_reasons(
        tmp_path,
        {
            "src/cache.ts": "export class Storage {\n  read(key: string) { return key }\n}\n",
            "src/ajax.ts": "export function send(xhr: XMLHttpRequest, store: Storage): void {}\n",
        },
        index_tree,
    )
    assert (reasons["XMLHttpRequest"], reasons["Storage"]) == ("builtin", "builtin")


def test_an_accessor_read_gives_its_getter_type_not_its_setter(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``get backend(): Store`` then ``set backend(v: Store)``: ``this.backend.save()`` reads the
    getter, though the setter is written last; the namesake ``save`` of another class the
    file uses is not the one meant."""
    found = edges(
        tmp_path,
        {
            "src/store.ts": "export class Store {\n  save(): void {}\n}\n",
            "src/other.ts": "export class Disk {\n  save(): void {}\n}\n",
            "src/app.ts": "import { Store } from './store';\nimport { Disk } from './other';\n\n"
            "export class App {\n  private _store = new Store();\n  private disk = new Disk();\n"
            "  get backend(): Store { return this._store; }\n"
            "  set backend(value: Store) { this._store = value; }\n"
            "  run(): void { this.backend.save(); }\n}\n",
        },
        index_tree,
    )
    assert ("App.run", "calls", "Store.save", "src/store.ts") in found
    assert ("App.run", "calls", "Disk.save", "src/other.ts") not in found


def test_an_arrow_functions_own_body_is_no_callback(tmp_path: Path, index_tree: IndexTree) -> None:
    """``const make = () => { return new Client(); }``: what ``make()`` gives is what its
    own body returns (a callback's ``return`` is the callback's alone); and a callback's
    typed parameter holds in the callback only (``app.use((req: Request) => ...)`` leaves
    the module's ``req`` alone)."""
    found = edges(
        tmp_path,
        {
            "src/client.ts": "export class Client {\n  send(): void {}\n}\n"
            "export class Request {\n  send(): void {}\n}\n",
            "src/app.ts": "import { Client, Request } from './client';\n\n"
            "const make = () => {\n  return new Client();\n};\n\n"
            "export function run(use: (cb: (req: Request) => void) => void): void {\n"
            "  const req = make();\n"
            "  use((req: Request) => {\n    req.send();\n  });\n"
            "  req.send();\n}\n",
        },
        index_tree,
    )
    sends = {edge[2] for edge in found if edge[0] == "run" and edge[2].endswith(".send")}
    assert sends == {"Client.send", "Request.send"}


def test_a_loop_over_a_list_of_the_enclosing_function(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``const observers: Partial<Observer>[] = []`` then, in an object's method passed
    on, ``for (const o of observers) o.next()`` (trpc's ``share``): the loop variable is
    an element of the list the enclosing function holds, ``Partial`` of it its members."""
    found = edges(
        tmp_path,
        {
            "src/observer.ts": "export interface Observer {\n  next(): void;\n}\n"
            "export class Queue {\n  next(): void {}\n}\n",
            "src/share.ts": "import { Observer, Queue } from './observer';\n\n"
            "export function share(source: { subscribe(o: object): void }, q: Queue) {\n"
            "  const observers: Partial<Observer>[] = [];\n"
            "  source.subscribe({\n    next() {\n"
            "      for (const observer of observers) {\n        observer.next();\n      }\n"
            "    },\n  });\n}\n",
        },
        index_tree,
    )
    assert ("share.next", "calls", "Observer.next", "src/observer.ts") in found
    assert ("share.next", "calls", "Queue.next", "src/observer.ts") not in found


def test_a_conditional_value_is_what_its_call_branch_gives(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``const sink = isSink(x) ? x : new SafeSink(x)`` (rxjs' ``subscribe``): ``sink``
    is what the branch that makes one gives, whichever branch is a name."""
    found = edges(
        tmp_path,
        {
            "src/sink.ts": "export class SafeSink {\n  add(): void {}\n}\n"
            "export class Bag {\n  add(): void {}\n}\n",
            "src/use.ts": "import { SafeSink } from './sink';\n\n"
            "export function run(x: any, isSink: (v: any) => boolean): void {\n"
            "  const sink = isSink(x) ? x : new SafeSink();\n  sink.add();\n}\n",
        },
        index_tree,
    )
    assert ("run", "calls", "SafeSink.add", "src/sink.ts") in found
    assert ("run", "calls", "Bag.add", "src/sink.ts") not in found
