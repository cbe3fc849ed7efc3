"""TypeScript and JavaScript: one module per file, resolved the way bundlers and ``tsc`` do.

A specifier is tried as a relative path, then through the nearest ``tsconfig``/``jsconfig``
``paths`` and ``baseUrl``, then as a workspace package; anything else is a package outside
the project. A path matches a file with any source extension, a directory its ``index``
file, and an ESM-style ``./x.js`` the ``./x.ts`` it is compiled from. A Vue or Svelte
component is imported by its full file name (``./Foo.vue``), as bundlers require.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module
from repolens.resolve.languages.npm_packages import entry_candidates, find_packages, split_specifier
from repolens.resolve.languages.tsconfig import ConfigFinder
from repolens.resolve.project import FileRow, ImportRow, Project

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
COMPONENT_LANGUAGES = frozenset({"vue", "svelte"})  # single-file components a script imports
MODULE_EXPORTS = "module.exports"  # how the parser re-exports what `module.exports = X` assigns
COMPILED_FROM = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def own_module(path: str) -> str:
    """How the parser writes a file's import of itself (its own aliased/default exports)."""
    return "./" + posixpath.basename(path).split(".", 1)[0]


def _strip_extension(path: str) -> str:
    for ext in sorted(EXTENSIONS, key=len, reverse=True):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _path_options(path: str) -> list[str]:
    """Files a module path may denote, in the order TypeScript tries them; ``.`` is the
    project root (``import { Query } from '..'`` in a top-level ``__tests__``)."""
    if path == ".":
        return [f"index{ext}" for ext in EXTENSIONS]
    options = [path]
    stem, ext = posixpath.splitext(path)
    options += [stem + alt for alt in COMPILED_FROM.get(ext, ())]
    options += [path + ext for ext in EXTENSIONS]
    options += [f"{path}/index{ext}" for ext in EXTENSIONS]
    return options


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    of_file = {f.id: Module(_strip_extension(f.path), [f.id]) for f in files}
    modules = {f.path: of_file[f.id] for f in files}
    for component in project.files.values():  # `import Foo from './Foo.vue'`, by full path
        if component.language in COMPONENT_LANGUAGES:
            modules[component.path] = Module(component.path, [component.id])
    configs = ConfigFinder(root)
    packages = find_packages(root, {f.dir for f in files})

    def at(path: str) -> Module | None:
        if path.startswith("../") or path == "..":
            return None
        for option in _path_options(path):
            module = modules.get(option)
            if module is not None:
                return module
        return None

    def first(paths: list[str]) -> Module | None:
        for path in paths:
            module = at(path)
            if module is not None:
                return module
        return None

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        found = _resolve_import(file, imp)
        whole = imp.name is None and not imp.is_wildcard  # `require('./request')`
        if whole and found.module is not None and _assigns_module_exports(project, found.module):
            return ImportResult(found.module, (MODULE_EXPORTS,))
        return found

    def _resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        spec = imp.module
        member = (imp.name,) if imp.name else ()
        if imp.is_reexport and spec == own_module(file.path):
            return ImportResult(of_file[file.id], member)
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            module = at(posixpath.normpath(posixpath.join(file.dir, spec)))
            return ImportResult(module, member)
        module = first(configs.rules(file.dir).candidates(spec))
        if module is not None:
            return ImportResult(module, member)
        name, subpath = split_specifier(spec)
        package = packages.get(name)
        if package is None:
            return ImportResult(external=True)
        return ImportResult(first(entry_candidates(package, subpath)), member)

    return Layout(modules, of_file, resolve_import, local_name)


def _assigns_module_exports(project: Project, module: Module) -> bool:
    """Whether a module's file says ``module.exports = X``: a whole-module import of it
    (``const R = require('./request')``, ``import * as R``) then holds ``X``."""
    return any(
        imp.is_reexport and imp.alias == MODULE_EXPORTS
        for fid in module.files
        for imp in project.imports.get(fid, ())
    )


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard:
        return None
    return imp.alias or imp.name


BUILTINS = frozenset(
    {
        "console", "window", "document", "globalThis", "self", "process", "require", "module",
        "exports", "Math", "JSON", "Object", "Array", "String", "Number", "Boolean", "Promise",
        "Date", "Error", "TypeError", "RangeError", "SyntaxError", "RegExp", "Map", "Set",
        "WeakMap", "WeakSet", "WeakRef", "Symbol", "BigInt", "Reflect", "Proxy", "Intl",
        "parseInt", "parseFloat", "isNaN", "isFinite", "setTimeout", "setInterval",
        "clearTimeout", "clearInterval", "setImmediate", "queueMicrotask", "structuredClone",
        "fetch", "alert", "confirm", "prompt", "Buffer", "__dirname", "__filename",
        "encodeURIComponent", "decodeURIComponent", "encodeURI", "decodeURI", "ArrayBuffer",
        "Uint8Array", "Int32Array", "Float64Array", "DataView", "TextEncoder", "TextDecoder",
        "URL", "URLSearchParams", "AbortController", "Response", "Request", "Headers",
        "FormData", "Blob", "File", "Event", "CustomEvent", "EventTarget", "performance",
        "crypto", "navigator", "location", "history", "localStorage", "sessionStorage",
        "requestAnimationFrame", "cancelAnimationFrame", "atob", "btoa", "Atomics",
        "SharedArrayBuffer", "Worker", "postMessage", "addEventListener", "describe", "it",
        "test", "expect", "jest", "vi", "beforeEach", "afterEach", "beforeAll", "afterAll",
        "undefined", "NaN", "Infinity", "eval", "Function", "arguments", "super",
    }
)  # fmt: skip

LIB_TYPES = frozenset(
    {
        "PromiseConstructor", "PromiseConstructorLike", "BooleanConstructor",
        "NumberConstructor", "StringConstructor", "ArrayConstructor", "ObjectConstructor",
        "FunctionConstructor", "DateConstructor", "RegExpConstructor", "ErrorConstructor",
        "MapConstructor", "SetConstructor", "SymbolConstructor", "IterableIterator",
        "AsyncIterableIterator", "Generator", "AsyncGenerator", "PropertyKey",
        "PropertyDescriptor", "ThisType", "ThisParameterType", "OmitThisParameter",
        "ConstructorParameters", "Uppercase", "Lowercase", "Capitalize", "Uncapitalize",
        "TemplateStringsArray", "NoInfer", "Int8Array", "Int16Array", "Uint16Array",
        "Uint32Array", "Float32Array", "Uint8ClampedArray", "BigInt64Array", "BigUint64Array",
        "ArrayBufferLike", "ArrayBufferView", "ReadonlyMap", "ReadonlySet", "AggregateError",
        "FinalizationRegistry", "PromiseSettledResult", "PromiseFulfilledResult",
        "PromiseRejectedResult", "XMLHttpRequest", "XMLHttpRequestResponseType",
        "XMLHttpRequestEventTarget", "XMLHttpRequestUpload", "MessageEvent", "ProgressEvent",
        "CloseEvent", "ErrorEvent", "KeyboardEvent", "MouseEvent", "PointerEvent",
        "FocusEvent", "InputEvent", "TouchEvent", "WheelEvent", "DragEvent", "UIEvent",
        "EventListener", "EventListenerOrEventListenerObject", "AddEventListenerOptions",
        "EventListenerOptions", "WebSocket", "BinaryType", "RequestInit", "ResponseInit",
        "HeadersInit", "BodyInit", "RequestInfo", "AbortSignal", "FrameRequestCallback",
        "TimerHandler", "VoidFunction", "Window", "Document", "DocumentFragment",
        "HTMLInputElement", "HTMLDivElement", "HTMLButtonElement", "HTMLFormElement",
        "HTMLAnchorElement", "HTMLImageElement", "HTMLCanvasElement", "HTMLTextAreaElement",
        "HTMLSelectElement", "SVGElement", "NodeList", "NodeListOf", "HTMLCollection",
        "DOMRect", "DOMException", "MutationObserver", "IntersectionObserver",
        "ResizeObserver", "Storage", "FileList", "FileReader", "ReadableStream",
        "WritableStream", "TransformStream", "MessagePort", "MessageChannel",
        "BroadcastChannel", "CryptoKey", "SubtleCrypto", "Transferable",
    }
)  # fmt: skip
"""Global types of TypeScript's standard library (``lib.es*.d.ts``, ``lib.dom.d.ts``) a
project names without importing them: builtin, never guessed to be a project symbol."""

BUILTIN_TYPES = frozenset(
    {
        "Promise", "Array", "ReadonlyArray", "Record", "Partial", "Required", "Readonly",
        "Pick", "Omit", "Exclude", "Extract", "NonNullable", "ReturnType", "Parameters",
        "InstanceType", "Awaited", "Map", "Set", "WeakMap", "WeakSet", "Date", "Error",
        "RegExp", "Function", "Object", "String", "Number", "Boolean", "Symbol", "BigInt",
        "Iterable", "Iterator", "AsyncIterable", "AsyncIterator", "PromiseLike", "ArrayLike",
        "Uint8Array", "ArrayBuffer", "string", "number", "boolean", "any", "unknown", "void",
        "never", "object", "null", "undefined", "bigint", "symbol", "Element", "HTMLElement",
        "Node", "Event", "Response", "Request", "URL", "Buffer",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "push", "pop", "shift", "unshift", "slice", "splice", "map", "filter", "reduce",
        "reduceRight", "forEach", "find", "findIndex", "findLast", "some", "every",
        "includes", "indexOf", "lastIndexOf", "join", "split", "concat", "keys", "values",
        "entries", "get", "set", "has", "delete", "add", "clear", "then", "catch", "finally",
        "toString", "valueOf", "trim", "trimStart", "trimEnd", "replace", "replaceAll",
        "match", "matchAll", "test", "exec", "startsWith", "endsWith", "toLowerCase",
        "toUpperCase", "substring", "substr", "charAt", "charCodeAt", "padStart", "padEnd",
        "repeat", "log", "error", "warn", "info", "debug", "trace", "bind", "call", "apply",
        "sort", "reverse", "flat", "flatMap", "fill", "at", "emit", "on", "off", "once",
        "addEventListener", "removeEventListener", "dispatchEvent", "querySelector",
        "querySelectorAll", "getElementById", "appendChild", "removeChild", "setAttribute",
        "getAttribute", "json", "text", "send", "write", "end", "close", "resolve", "reject",
        "assign", "freeze", "stringify", "parse", "toFixed", "toISOString", "getTime",
        "hasOwnProperty", "preventDefault", "stopPropagation", "focus", "blur", "click",
        "length", "next", "return", "throw", "pipe", "subscribe", "unsubscribe",
        # Node's requests, responses, streams and emitters (`req.destroy()`,
        # `res.setHeader()`): guessing a project class's same-named method was wrong
        # more often than not on superagent and send
        "setHeader", "getHeader", "getHeaders", "removeHeader", "hasHeader", "writeHead",
        "flushHeaders", "destroy", "pause", "resume", "unpipe", "setEncoding",
        "setTimeout", "abort", "addListener", "removeListener", "removeAllListeners",
        "listeners", "listenerCount", "setMaxListeners", "toJSON",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="ecmascript",
    languages=frozenset({"typescript", "tsx", "javascript"}),
    build_layout=build_layout,
    builtins=BUILTINS | LIB_TYPES,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"this"}),
    constructor_names=frozenset({"constructor"}),
    exported_only=True,
    bare_name_match=True,
    super_calls_constructor=True,
    invokers=frozenset({"call", "apply"}),
    prototype="prototype",
    item_getters=frozenset({"get", "at", "find", "findLast", "pop", "shift"}),
    class_attribute="constructor",
)
