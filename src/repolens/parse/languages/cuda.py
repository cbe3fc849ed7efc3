"""CUDA: C++ with kernels; the CUDA grammar extends C++'s, so C++'s spec applies whole.

``__global__``/``__device__`` functions are functions; a kernel launch
``scale<<<blocks, threads>>>(data, n)`` is a call of ``scale``. Includes, classes and
namespaces resolve as C++'s (the C family's resolver covers ``.cu``/``.cuh``).
"""

from __future__ import annotations

from dataclasses import replace

from repolens.parse.languages import cpp

SPEC = replace(cpp.SPEC, language="cuda", grammar_module="tree_sitter_cuda")
