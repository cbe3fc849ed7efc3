"""Grammar wheels built before the capsule API, wrapped so that they load without warnings.

``tree-sitter-scss`` and ``tree-sitter-less`` 1.0.0 (also ``tree-sitter-perl`` 2.0 and
``tree-sitter-solidity`` 1.2) return the ``TSLanguage`` pointer as a
plain integer, which py-tree-sitter 0.25+ still accepts with a ``DeprecationWarning``
and will stop accepting. Wrapping the pointer in the ``tree_sitter.Language`` capsule that
newer wheels return keeps them working either way; a missing wheel still raises
``ImportError``, which the registry reports as ``missing``.
"""

from __future__ import annotations

import ctypes
import importlib

_NEW_CAPSULE = ctypes.pythonapi.PyCapsule_New
_NEW_CAPSULE.restype = ctypes.py_object
_NEW_CAPSULE.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_NAME = b"tree_sitter.Language"


def _capsule(module_name: str) -> object:
    pointer = importlib.import_module(module_name).language()
    if not isinstance(pointer, int):
        return pointer  # a newer wheel already returns the capsule
    return _NEW_CAPSULE(pointer, _NAME, None)


def scss() -> object:
    return _capsule("tree_sitter_scss")


def less() -> object:
    return _capsule("tree_sitter_less")


def perl() -> object:
    return _capsule("tree_sitter_perl")


def solidity() -> object:
    return _capsule("tree_sitter_solidity")
