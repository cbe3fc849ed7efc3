"""C#: namespaces to files, ``using`` directives, partial classes.

A namespace is a module holding every file that declares it (a file without one is in the
global namespace); nested names (``Shop.Models``) are child modules, so a fully qualified
``Shop.Models.Order`` resolves from its first segment. Types of the file's own namespace
are visible without a ``using`` (``package_scope``), and a member missing from one part of
a ``partial`` class is looked up beside it in the namespace's other files; the parts share
their base lists. ``base.M()`` starts the lookup at the enclosing class's bases.
"""

from __future__ import annotations

from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module, Value
from repolens.resolve.project import FileRow, ImportRow, Project


def ensure(modules: dict[str, Module], name: str) -> Module:
    """The module of a dotted namespace, creating it and its parents as needed."""
    module = modules.get(name)
    if module is None:
        module = modules[name] = Module(name)
        if "." in name:
            parent_name, _, last = name.rpartition(".")
            parent = ensure(modules, parent_name)
            module.parent = parent
            parent.children[last] = module
    return module


def namespace_modules(
    project: Project, files: list[FileRow]
) -> tuple[dict[str, Module], dict[int, Module]]:
    """Namespace modules and each file's (first) namespace, from ``namespace`` symbols."""
    declared: dict[int, list[str]] = {}
    for sym in project.syms_of(files):
        if sym.kind == "namespace":
            declared.setdefault(sym.file_id, []).append(sym.name.replace(" ", ""))
    modules: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    for f in files:
        for name in declared.get(f.id, [""]):
            module = ensure(modules, name)
            module.files.append(f.id)
            of_file.setdefault(f.id, module)
    return modules, of_file


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    modules, of_file = namespace_modules(project, files)
    roots = {name.split(".", 1)[0] for name in modules if name}

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        if imp.name is not None:  # `using X = A.B.C;`: a namespace or a type
            whole = modules.get(f"{imp.module}.{imp.name}")
            if whole is not None:
                return ImportResult(whole)
            holder = modules.get(imp.module) if imp.module else None
            if holder is not None:
                return ImportResult(holder, (imp.name,))
        else:
            module = modules.get(imp.module)
            if module is not None:
                return ImportResult(module)
            holder_name, _, last = imp.module.rpartition(".")
            holder = modules.get(holder_name) if holder_name else None
            if holder is not None:  # `using static A.B.C;`: the members of class C
                return ImportResult(holder, (last,))
        if imp.module.split(".", 1)[0] not in roots:
            return ImportResult(external=True)
        return ImportResult()

    def path_root(file: FileRow, name: str) -> Value | None:
        if name == "base":  # `base.M()`: the enclosing class's base (the ladder finds it)
            return Value("super")
        module = modules.get(name)
        return Value("module", module=module) if module is not None and name else None

    return Layout(modules, of_file, resolve_import, local_name, path_root)


def local_name(imp: ImportRow) -> str | None:
    return imp.alias if imp.alias else None


BUILTINS = frozenset(
    {
        "Console", "Math", "String", "Convert", "Enumerable", "Task", "Guid", "DateTime",
        "TimeSpan", "Environment", "File", "Path", "Directory", "Debug", "Trace", "Assert",
        "nameof", "typeof", "sizeof", "default", "System", "Array", "Activator", "GC",
        "Interlocked", "Monitor", "Thread", "Encoding", "JsonSerializer", "Regex", "Exception",
        "ArgumentException", "ArgumentNullException", "InvalidOperationException",
        "NotImplementedException", "NotSupportedException", "base",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "int", "long", "short", "byte", "uint", "ulong", "float", "double", "decimal", "bool",
        "char", "string", "object", "void", "dynamic", "String", "Object", "List",
        "Dictionary", "HashSet", "IEnumerable", "IList", "IDictionary", "ICollection",
        "IReadOnlyList", "IReadOnlyCollection", "Task", "ValueTask", "Action", "Func",
        "StringBuilder", "Queue", "Stack", "CancellationToken", "Span", "Memory",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "Add", "AddRange", "Remove", "RemoveAt", "Clear", "Contains", "ContainsKey",
        "TryGetValue", "Count", "Any", "All", "Where", "Select", "SelectMany", "First",
        "FirstOrDefault", "Single", "SingleOrDefault", "Last", "LastOrDefault", "OrderBy",
        "OrderByDescending", "ThenBy", "GroupBy", "ToList", "ToArray", "ToDictionary",
        "ToString", "Equals", "GetHashCode", "GetType", "Append", "AppendLine", "Format",
        "Join", "Split", "Trim", "Substring", "Replace", "StartsWith", "EndsWith",
        "IndexOf", "ToLower", "ToUpper", "WriteLine", "Write", "ReadLine", "Dispose",
        "ConfigureAwait", "Wait", "Result", "Invoke", "Sum", "Max", "Min", "Skip", "Take",
        "Distinct", "Concat", "Aggregate", "Insert", "Sort", "Reverse", "Push", "Pop",
        "Enqueue", "Dequeue", "Peek", "GetAwaiter", "GetResult",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="csharp",
    languages=frozenset({"csharp", "vbnet"}),  # VB.NET shares namespaces and assemblies
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"this", "Me"}),  # VB.NET's `Me`
    constructor_names=frozenset(),
    super_calls_constructor=True,  # `: base(...)`, `: this(...)`
    implicit_members=True,
    param_name_last=True,
    package_scope=True,
    class_scope_visible=True,
)
