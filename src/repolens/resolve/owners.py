"""Which type a method belongs to: its class, or for a method declared away from its
type (Go, Rust ``impl``, Kotlin extensions) the type its qualified name names."""

from __future__ import annotations

from repolens.resolve import scope
from repolens.resolve.context import Context
from repolens.resolve.project import CALLABLE_KINDS, CLASS_KINDS, FUNCTION_KINDS, FileRow, Sym


def enclosing_class(ctx: Context, scope_id: int | None) -> Sym | None:
    """The class whose method ``scope_id`` is in; for methods declared outside their type
    (Go, Rust ``impl``) the type named by the method's qualified name. A function nested in
    a method (a Python closure, a JS arrow callback) sees the method's ``self``/``this``."""
    syms = ctx.project.syms
    sid = scope_id
    while sid is not None and sid in syms:
        sym = syms[sid]
        if sym.kind in CLASS_KINDS:
            return sym
        parent = syms.get(sym.parent_id) if sym.parent_id is not None else None
        detached = parent is None or parent.kind not in CLASS_KINDS | CALLABLE_KINDS
        if sym.kind in FUNCTION_KINDS and "." in sym.qname and detached:
            return impl_owner(ctx, sym)
        sid = sym.parent_id
    return None


def impl_owner(ctx: Context, method: Sym) -> Sym | None:
    """The type a method declared away from it belongs to: ``Type.method`` names it, as
    seen from the method's file (its package first, then what the file imports)."""
    return ctx.owners.get(method.id, _impl_owner, ctx, method)


def _impl_owner(ctx: Context, method: Sym) -> Sym | None:
    owner = method.qname.rsplit(".", 1)[0]
    for fid in _package_files(ctx, method.file_id):
        for candidate in ctx.project.by_qname.get((fid, owner), ()):
            if candidate.kind in CLASS_KINDS:
                return candidate
    file, scope_id = written_in(ctx, method)
    head = owner.rsplit(".", 1)[-1]
    found = scope.lookup_name(ctx, file, scope_id, head, method.start_line, types_only=True)
    return found.sym if found.kind == "class" else None


def written_in(ctx: Context, sym: Sym) -> tuple[FileRow, int]:
    """The file and scope where names in a symbol's own text (its annotations, what a type
    alias names) are looked up: those around the symbol, not inside it."""
    file = ctx.file(sym.file_id)
    return file, sym.parent_id if sym.parent_id is not None else file.symbol


def _package_files(ctx: Context, file_id: int) -> list[int]:
    module = ctx.module_of(file_id)
    spec = ctx.spec_of.get(file_id)
    others = module.files if module is not None and spec and spec.package_scope else []
    return [file_id, *(f for f in others if f != file_id)]
