"""The default provider: all-MiniLM-L6-v2 run offline, no torch, no server.

Importing this module is cheap: the tokenizer is loaded on the first ``windows`` call
and the weights on the first embedding. The runtime (numpy float32, the reference, or a
faster engine at reduced precision: see ``runtimes``) is chosen when the provider is
made, since it is part of the profile. In numpy, sequences are packed end to end, so no
work is spent on padding (see ``bert``); the other engines take padded batches, so their
batches are formed from windows of similar length. Batches run on one worker thread per
core with the BLAS itself kept to one thread: a transformer's matrices are too small for
a multi-threaded BLAS to scale well, and numpy's element-wise work (GELU, softmax,
LayerNorm) gets every core too.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repolens.config import usable_cores
from repolens.embed.base import (
    EmbeddingProfile,
    FloatArray,
    InputTooLongError,
    ModelNotInstalledError,
)
from repolens.embed.modelfiles import DEFAULT_MODEL, ModelFiles, load_model_files
from repolens.embed.runtimes import AUTO, Runtime, choose_runtime
from repolens.embed.windows import split_windows

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController
    from tokenizers import Encoding, Tokenizer

    from repolens.embed.engines import Encoder

DEFAULT_BATCH_TOKENS = 4096
"""Word pieces per forward pass (about 16 full windows): enough rows for efficient GEMMs,
few enough that a layer's arrays stay in cache (4096 took less CPU than 8192)."""
_SPECIAL_TOKENS = 2  # [CLS] and [SEP]
WINDOW_TOKENS = 128
"""Word pieces per document window, [CLS] and [SEP] included: the length all-MiniLM-L6-v2
was trained on. Measured against windows of the model's full 256 on the retrieval
benchmark (bench/search_quality.py): better on every query style, most on queries about
code deep inside long functions, and half the attention cost per piece."""


class LocalProvider:
    """all-MiniLM-L6-v2 (or another BERT sentence model in ``model_dir``) on the CPU."""

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        model: str | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        workers: int | None = None,
        runtime: str = AUTO,
        stored_tag: str | None = None,
        window_tokens: int = WINDOW_TOKENS,
    ) -> None:
        """Check the model's files now (so a missing model fails early); load it later.

        ``model_dir``: another sentence-transformers BERT directory instead of the packaged
        MiniLM (``model`` then names it, default the directory's name). ``workers``:
        threads that run batches, default one per usable core. ``runtime``: a name from
        ``runtimes.RUNTIME_NAMES``; under ``auto``, ``stored_tag`` (the runtime tag of the
        index's vectors) is kept when it can run here. ``window_tokens``: the length of
        document windows (at most the model's context).
        """
        self._files: ModelFiles = load_model_files(model_dir)
        name = model or (DEFAULT_MODEL if model_dir is None else self._files.directory.name)
        self.runtime: Runtime = choose_runtime(runtime, stored_tag)
        self._profile = EmbeddingProfile(
            "local", name, self._files.dims, query_prefix, document_prefix,
            self._files.max_tokens, self.runtime.vector_tag,
        )  # fmt: skip
        self._window_tokens = max(_SPECIAL_TOKENS + 8, min(window_tokens, self._files.max_tokens))
        self._batch_tokens = max(1, batch_tokens)
        self._workers = workers or usable_cores()
        self._lock = threading.Lock()
        self._tokenizer: Tokenizer | None = None
        self._encoder: Encoder | None = None
        self._pool: ThreadPoolExecutor | None = None

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    def windows(self, texts: Sequence[str]) -> list[list[str]]:
        """Windows of each text of ``window_tokens`` word pieces at most,
        ``document_prefix`` included."""
        return self._windows(texts, self._profile.document_prefix, self._window_tokens)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        """One vector per text; a text longer than the context is refused, not cut.

        Raises ``InputTooLongError`` naming the text: split long documents with
        ``windows()`` first and store one vector per window.
        """
        prefix = self._profile.document_prefix
        encodings = self._encode([prefix + text for text in texts])
        for index, encoding in enumerate(encodings):
            if len(encoding.ids) > self._profile.max_tokens:
                raise InputTooLongError(
                    f"text {index} has {len(encoding.ids)} word pieces but "
                    f"{self._profile.model} reads at most {self._profile.max_tokens}; "
                    "split it with windows() and embed each window"
                )
        return self._embed_encodings(encodings)

    def embed_query(self, text: str) -> FloatArray:
        """Vector of a query; a query longer than the context is the mean of its windows."""
        prefix = self._profile.query_prefix
        (windows,) = self._windows([text], prefix, self._profile.max_tokens)
        vectors = self._embed_encodings(self._encode([prefix + window for window in windows]))
        mean = vectors.mean(axis=0)
        return (mean / np.linalg.norm(mean)).astype(np.float32)

    def close(self) -> None:
        """Stop the worker threads; the provider starts them again if used later."""
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None

    # -- tokenizing and windows ----------------------------------------------------------

    def _windows(self, texts: Sequence[str], prefix: str, tokens: int) -> list[list[str]]:
        prefix_tokens = len(self._encode([prefix], special=False)[0].ids) if prefix else 0
        budget = tokens - _SPECIAL_TOKENS - prefix_tokens
        return split_windows(
            texts, budget, self._measure, self._split_long_line, additive=self._lines_add_up
        )

    @functools.cached_property
    def _lines_add_up(self) -> bool:
        """Whether a text costs the sum of its lines (decided once, by the tokenizer)."""
        return _splits_at_whitespace_first(self._get_tokenizer())

    def _measure(self, texts: Sequence[str]) -> list[int]:
        return [len(encoding.ids) for encoding in self._encode(texts, special=False)]

    def _split_long_line(self, line: str, budget: int) -> list[str]:
        """Cut a line of more than ``budget`` word pieces, preferably where a word starts."""
        encoding = self._get_tokenizer().encode(line, add_special_tokens=False)
        tokens, offsets = encoding.tokens, encoding.offsets
        cuts = [0]
        index = 0
        while len(tokens) - index > budget:
            cut = index + budget
            for candidate in range(cut, index + budget // 2, -1):
                if not tokens[candidate].startswith("##"):
                    cut = candidate
                    break
            cuts.append(offsets[cut][0])
            index = cut
        cuts.append(len(line))
        return [line[start:end] for start, end in itertools.pairwise(cuts)]

    def _encode(self, texts: Sequence[str], *, special: bool = True) -> list[Encoding]:
        """Word pieces of each text, without their offsets (half the tokenizer's time;
        only cutting a long line needs them)."""
        return self._get_tokenizer().encode_batch_fast(list(texts), add_special_tokens=special)

    # -- the forward pass ----------------------------------------------------------------

    def _embed_encodings(self, encodings: Sequence[Encoding]) -> FloatArray:
        """Embed token sequences in batches of about ``batch_tokens``, one per worker at a time."""
        out = np.empty((len(encodings), self._profile.dims), dtype=np.float32)
        if not encodings:
            return out
        encoder = self._get_encoder()
        workers = self._workers if encoder.parallel else 1
        # A padded batch costs its longest sequence times its size: batch by length.
        order = list(range(len(encodings)))
        if self.runtime.padded:
            order.sort(key=lambda index: len(encodings[index].ids))
        lengths = [len(encodings[index].ids) for index in order]
        # Small inputs are split so that every worker gets a share.
        budget = min(self._batch_tokens, -(-sum(lengths) // workers))
        batches = _token_batches(lengths, budget, padded=self.runtime.padded)

        def run(batch: range) -> None:
            rows = order[batch.start : batch.stop]
            out[rows] = _embed_batch(encoder, [encodings[index] for index in rows])

        with _SINGLE_THREADED_BLAS:
            if len(batches) == 1:
                run(batches[0])
            else:
                list(self._get_pool().map(run, batches))
        return out

    def _get_tokenizer(self) -> Tokenizer:
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = _load_tokenizer(self._files.tokenizer)
            return self._tokenizer

    def _get_encoder(self) -> Encoder:
        with self._lock:
            if self._encoder is None:
                self._encoder = _load_encoder(self._files, self.runtime, self._workers)
            return self._encoder

    def _get_pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="repolens-embed")
            return self._pool


def _token_batches(lengths: Sequence[int], budget: int, *, padded: bool = False) -> list[range]:
    """Consecutive runs of sequences holding at most ``budget`` tokens (at least one each).

    For an engine that pads (``padded``, lengths ascending) a run's cost is its size times
    its last length, so runs of short sequences stop before they reach long ones: on this
    repository's windows that pads 4.2% instead of 5.2%."""
    batches: list[range] = []
    start, total = 0, 0
    for index, length in enumerate(lengths):
        cost = (index - start + 1) * length if padded else total + length
        if index > start and cost > budget:
            batches.append(range(start, index))
            start, total = index, 0
        total += length
    batches.append(range(start, len(lengths)))
    return batches


def _embed_batch(encoder: Encoder, encodings: Sequence[Encoding]) -> FloatArray:
    """Run a batch through the encoder, its sequences packed end to end (no padding)."""
    lengths = np.array([len(encoding.ids) for encoding in encodings], dtype=np.int64)
    ids = np.fromiter(
        itertools.chain.from_iterable(encoding.ids for encoding in encodings),
        dtype=np.int64,
        count=int(lengths.sum()),
    )
    return encoder.embed(ids, lengths)


def _load_tokenizer(path: Path) -> Tokenizer:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # the Rust side raises plain Exception subclasses
        raise ModelNotInstalledError(f"cannot load tokenizer {path}: {exc}") from exc
    # tokenizer.json ships with fixed padding/truncation at 128: we pad per batch ourselves
    # and never cut silently.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _splits_at_whitespace_first(tokenizer: Tokenizer) -> bool:
    """Whether a text costs exactly the sum of its lines: the pre-tokenizer cuts at every
    whitespace (BERT's does) and the normalizer joins nothing across a line break."""
    from tokenizers import normalizers, pre_tokenizers

    at_whitespace = (
        pre_tokenizers.BertPreTokenizer,
        pre_tokenizers.Whitespace,
        pre_tokenizers.WhitespaceSplit,
    )
    splits = isinstance(tokenizer.pre_tokenizer, at_whitespace)
    return splits and isinstance(tokenizer.normalizer, normalizers.BertNormalizer | None)


def _load_encoder(files: ModelFiles, runtime: Runtime, threads: int) -> Encoder:
    if runtime.engine != "numpy":
        from repolens.embed.engines import load_engine

        return load_engine(runtime, files, threads)
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    from repolens.embed.bert import BertConfig, BertEncoder

    try:
        return BertEncoder(load_file(files.weights), BertConfig.from_json(files.config))
    except (OSError, SafetensorError, KeyError, ValueError) as exc:
        raise ModelNotInstalledError(f"cannot load model weights {files.weights}: {exc}") from exc


class _SingleThreadedBlas:
    """Keep BLAS to one thread while our worker threads run one batch per core.

    Besides scaling better on small matrices, this avoids a multi-threaded BLAS's
    spin-waiting threads, which burn many times the CPU on a busy machine. The limit is
    process-wide, so it is counted: set by the first embedding call in progress, restored
    by the last, and concurrent calls (a query during indexing) never wait for each other.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._limit: Any = None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0:
                self._limit = _blas_controller().limit(limits=1, user_api="blas")
            self._users += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                self._limit.restore_original_limits()
                self._limit = None


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """One controller per process: building it scans the loaded libraries (milliseconds)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


_SINGLE_THREADED_BLAS = _SingleThreadedBlas()
