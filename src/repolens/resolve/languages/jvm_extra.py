"""Kotlin, Scala and Groovy: packages resolved exactly as Java's, across all four.

A package is every file declaring it, whatever its JVM language, so a Kotlin file's
``import com.acme.Repo`` reaches ``Repo.java`` and a Java file's classes are visible to a
Scala file of the same package. Imports name a package then a member path (the longest
project package prefix wins), as ``repolens.resolve.languages.java`` does for Java.
"""

from __future__ import annotations

from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.languages import java
from repolens.resolve.project import FileRow, ImportRow, Project

JVM_LANGUAGES = frozenset({"java", "kotlin", "scala", "groovy"})


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    """Java's package layout over every JVM file, so imports cross languages."""
    jvm = [f for f in project.files.values() if f.language in JVM_LANGUAGES]
    layout = java.build_layout(root, project, jvm)
    layout.local_name = local_name
    return layout


def build_groovy_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    """The JVM layout, and Gradle's ``apply from: 'gradle/x.gradle'`` by path (relative to
    the script, then to the root)."""
    layout = build_layout(root, project, files)
    scripts = file_modules([f for f in files if f.path.endswith(".gradle")])
    by_package = layout.resolve_import

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        if not imp.module.endswith(".gradle"):
            return by_package(file, imp)
        found = scripts.first([join(file.dir, imp.module), imp.module])
        return ImportResult(found) if found is not None else ImportResult(external=True)

    layout.resolve_import = resolve_import
    layout.modules.update(scripts.by_path)
    layout.of_file.update((i, m) for i, m in scripts.of_file.items())
    return layout


def local_name(imp: ImportRow) -> str | None:
    """Kotlin's ``import a.B as C`` and Scala's ``import a.{B => C}`` bind the alias."""
    if imp.is_wildcard:
        return None
    return imp.alias or imp.name


KOTLIN_BUILTINS = frozenset(
    {
        "println", "print", "listOf", "mutableListOf", "mapOf", "mutableMapOf", "setOf",
        "mutableSetOf", "arrayOf", "emptyList", "emptyMap", "emptySet", "require",
        "requireNotNull", "check", "checkNotNull", "error", "TODO", "lazy", "run", "let",
        "apply", "also", "with", "repeat", "maxOf", "minOf", "buildString", "buildList",
        "Pair", "Triple", "String", "Int", "Long", "Double", "Boolean", "Any", "Unit",
        "Exception", "IllegalArgumentException", "IllegalStateException", "Regex", "super",
        "sequenceOf", "generateSequence", "runCatching", "assert",
    }
)  # fmt: skip

KOTLIN_BUILTIN_TYPES = frozenset(
    {
        "String", "Int", "Long", "Double", "Float", "Boolean", "Char", "Any", "Unit",
        "List", "MutableList", "Map", "MutableMap", "Set", "MutableSet", "Array", "Sequence",
        "Pair", "Triple", "Result",
    }
)  # fmt: skip

KOTLIN_BUILTIN_METHODS = frozenset(
    {
        "let", "also", "apply", "run", "takeIf", "takeUnless", "map", "filter", "forEach",
        "first", "firstOrNull", "last", "lastOrNull", "find", "any", "all", "none", "count",
        "sum", "sumOf", "sortedBy", "sorted", "groupBy", "associate", "associateBy", "toList",
        "toMutableList", "toSet", "toMap", "joinToString", "isEmpty", "isNotEmpty",
        "orEmpty", "size", "get", "put", "add", "remove", "contains", "containsKey", "plus",
        "minus", "toString", "equals", "hashCode", "copy", "trim", "split", "replace",
        "startsWith", "endsWith", "lowercase", "uppercase", "format", "use", "getOrElse",
        "getOrNull", "getOrPut", "flatMap", "mapNotNull", "filterNotNull", "reduce", "fold",
        "zip", "take", "drop", "distinct", "reversed", "indices", "withIndex",
    }
)  # fmt: skip

KOTLIN = LanguageSpec(
    name="kotlin",
    languages=frozenset({"kotlin"}),
    build_layout=build_layout,
    builtins=KOTLIN_BUILTINS,
    builtin_types=KOTLIN_BUILTIN_TYPES,
    builtin_methods=KOTLIN_BUILTIN_METHODS,
    self_names=frozenset({"this"}),
    implicit_members=True,
    class_scope_visible=True,
    package_scope=True,
    exported_only=True,
)

SCALA_BUILTINS = frozenset(
    {
        "println", "print", "require", "assert", "Some", "None", "Option", "List", "Seq",
        "Vector", "Map", "Set", "Array", "Future", "Try", "Success", "Failure", "Left",
        "Right", "Either", "String", "Int", "Long", "Double", "Boolean", "Unit", "Nil",
        "math", "scala", "implicitly", "classOf", "identity", "Exception",
        "IllegalArgumentException", "IllegalStateException", "RuntimeException", "super",
        "sys", "Console",
    }
)  # fmt: skip

SCALA_BUILTIN_TYPES = frozenset(
    {"Int", "Long", "Double", "Float", "Boolean", "Char", "String", "Unit", "Any", "AnyRef",
     "Nothing", "Option", "List", "Seq", "Vector", "Map", "Set", "Array", "Future", "Either",
     "Try"}
)  # fmt: skip

SCALA_BUILTIN_METHODS = frozenset(
    {
        "map", "flatMap", "filter", "filterNot", "foreach", "foldLeft", "foldRight", "fold",
        "reduce", "collect", "find", "exists", "forall", "count", "head", "headOption",
        "tail", "last", "isEmpty", "nonEmpty", "size", "length", "get", "getOrElse",
        "orElse", "contains", "toList", "toSeq", "toMap", "toSet", "toVector", "mkString",
        "sortBy", "sorted", "groupBy", "zip", "zipWithIndex", "take", "drop", "distinct",
        "reverse", "sum", "max", "min", "apply", "copy", "toString", "equals", "hashCode",
        "updated", "recover", "onComplete", "split", "trim", "format",
    }
)  # fmt: skip

SCALA = LanguageSpec(
    name="scala",
    languages=frozenset({"scala"}),
    build_layout=build_layout,
    builtins=SCALA_BUILTINS,
    builtin_types=SCALA_BUILTIN_TYPES,
    builtin_methods=SCALA_BUILTIN_METHODS,
    self_names=frozenset({"this"}),
    implicit_members=True,
    class_scope_visible=True,
    package_scope=True,
    exported_only=True,
)

GROOVY = LanguageSpec(
    name="groovy",
    languages=frozenset({"groovy"}),
    build_layout=build_groovy_layout,
    builtins=java.BUILTINS | {"println", "print", "assert", "task", "apply", "plugins", "id"},
    builtin_types=java.BUILTIN_TYPES | {"def"},
    builtin_methods=java.BUILTIN_METHODS | {"each", "collect", "findAll", "inject", "with"},
    self_names=frozenset({"this"}),
    implicit_members=True,
    class_scope_visible=True,
    package_scope=True,
    exported_only=True,
    bare_name_match=True,  # Gradle's DSL and script bindings come from nowhere visible
)
