"""Terraform: a folder is a module, a ``module`` block's ``source`` names another folder.

Every ``.tf`` file of a folder sees the blocks of the others (Terraform reads a folder as
one configuration), so ``var.region`` in ``main.tf`` is the ``variable "region"`` of
``variables.tf``. A ``source`` that is a path (``./modules/vpc``, ``../shared``) is that
folder; a registry address or URL (``terraform-aws-modules/vpc/aws``, ``git::...``) is
external. Providers' resource types are not project symbols: a traversal of a resource
no file declares stays unresolved as external.
"""

from __future__ import annotations

from repolens.resolve.base import LanguageSpec
from repolens.resolve.lookup import Lookup, lookup_layout

LOOKUP = Lookup(extensions=(".tf",), roots=(), scope="folder", suffix_search=False)

BUILTINS = frozenset(
    {
        "count.index", "each.key", "each.value", "path.module", "path.root", "path.cwd",
        "terraform.workspace", "self",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="terraform",
    languages=frozenset({"terraform"}),
    build_layout=lookup_layout(LOOKUP),
    builtins=BUILTINS,
    builtin_types=frozenset(),
    builtin_methods=frozenset(),
    package_scope=True,
)
