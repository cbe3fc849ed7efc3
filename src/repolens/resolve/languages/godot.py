"""GDScript and Godot's scene/resource files: ``res://`` paths and ``class_name`` globals.

``res://`` is the folder holding the nearest ``project.godot`` above a file (the project
root when there is none); a path without an extension is tried as a ``.gd`` script. A
script's ``class_name X`` makes ``X`` a global name for that script everywhere, so
``extends X`` brings its functions into scope (an inherited ``heal()`` resolves), as does
``extends "res://a.gd"``. Scenes and resources (``.tscn``, ``.tres``) import the scripts
and scenes their ``ext_resource`` lines name; engine classes (``Node``, ``Sprite2D``) and
their methods are builtin. An autoload (``Game="*res://autoload/game.gd"`` in
``project.godot``) is a global name for its script, so ``Game.add_score(5)`` resolves.
"""

from __future__ import annotations

from repolens.resolve.base import LanguageSpec
from repolens.resolve.lookup import Lookup, lookup_layout
from repolens.resolve.project import Sym


def _declares(sym: Sym) -> bool:
    return sym.kind == "module"  # `class_name X`


LOOKUP = Lookup(
    extensions=(".gd",),
    anchors=(("res://", "project.godot"),),
    declares=_declares,
    globals_file="project.godot",
)

BUILTINS = frozenset(
    {
        "print", "prints", "printerr", "print_debug", "push_error", "push_warning", "str",
        "int", "float", "bool", "len", "range", "load", "preload", "assert", "typeof",
        "is_instance_valid", "weakref", "randi", "randf", "randf_range", "randi_range",
        "clamp", "clampf", "clampi", "lerp", "min", "max", "abs", "sign", "floor", "ceil",
        "round", "sqrt", "pow", "sin", "cos", "deg_to_rad", "rad_to_deg", "emit_signal",
        "get_node", "get_tree", "get_parent", "add_child", "remove_child", "queue_free",
        "set_process", "set_physics_process", "get_viewport", "has_node", "await",
        "Vector2", "Vector3", "Color", "Rect2", "Transform2D", "Node", "Node2D", "Node3D",
        "Input", "OS", "Engine", "ResourceLoader", "JSON", "Time", "Array", "Dictionary",
        "super", "self", "signal", "connect", "disconnect", "call_deferred", "set", "get",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "new", "connect", "disconnect", "emit", "call_deferred", "queue_free", "add_child",
        "get_node", "instantiate", "append", "push_back", "pop_back", "size", "erase",
        "has", "keys", "values", "is_empty", "clear", "duplicate", "normalized", "length",
        "distance_to", "play", "stop", "start", "is_action_pressed", "is_action_just_pressed",
        "get_first_node_in_group", "change_scene_to_file", "create_timer", "format",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="gdscript",
    languages=frozenset({"gdscript", "godot"}),
    build_layout=lookup_layout(LOOKUP),
    builtins=BUILTINS,
    builtin_types=frozenset({"String", "Array", "Dictionary", "Vector2", "Vector3"}),
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"self"}),
)
