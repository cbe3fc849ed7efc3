"""Per-file checks: symlinks, size, binary, minified, language.

Cheap decisions come first: names alone settle binary extensions, bundles and unsupported
languages without a single system call. Then one ``open`` + ``fstat`` + one 8 KiB ``read``
settles the rest; a file is never read whole. Every OS error is mapped to a skip reason, so
one bad file never stops a walk.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from repolens.discover.languages import detect_language, header_language, needs_head
from repolens.discover.models import DEFAULT_OPTIONS, DiscoveredFile, DiscoveryOptions

HEAD_BYTES = 8192
# Internal verdict for a listed path that is a directory (a submodule, a nested repository or
# a symlink to a directory): the caller walks it. Never reported as a skip reason.
IS_DIR = "<directory>"

BINARY_EXTENSIONS = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd",
     ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".zst", ".lz4",
     ".jar", ".war", ".ear", ".class", ".so", ".dll", ".dylib", ".a", ".o", ".obj", ".lib",
     ".exe", ".bin", ".pyc", ".pyo", ".pyd", ".whl", ".egg", ".woff", ".woff2", ".ttf", ".otf",
     ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".avi", ".mov", ".mkv", ".webm",
     ".sqlite", ".sqlite3", ".db", ".npy", ".npz", ".pkl", ".pickle", ".parquet", ".onnx",
     ".pt", ".safetensors", ".h5", ".wasm", ".iso", ".dmg", ".deb", ".rpm", ".svgz"}
)  # fmt: skip
MINIFIED_SUFFIXES = (".min.js", ".min.css", ".bundle.js", ".map")
MINIFIABLE = frozenset({"javascript", "typescript", "css", "scss", "less", "json"})
MAX_LINE = 3000
MAX_MEAN_LINE = 300
MIN_SAMPLE_FOR_MEAN = 1024  # a 200-byte one-line config is not a bundle
_SOURCE_MAP = re.compile(rb"\s*(?://|/\*)[#@] sourceMappingURL=")

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _narrow_head(head: bytes) -> bytes:
    """A UTF-16/32 head as UTF-8, for the content checks (a cut last character is
    dropped). The parse worker decodes the whole file the same way."""
    encoding = "utf-32" if head.startswith(_WIDE_BOMS[:2]) else "utf-16"
    return head.decode(encoding, errors="ignore").encode("utf-8")


@dataclass(frozen=True, slots=True)
class Context:
    """What every check needs to know about the walk, computed once."""

    root_abs: str
    root_real: str
    options: DiscoveryOptions
    # One Path per directory: ``dir / name`` costs half of ``Path(full string)``, and
    # building Paths was the largest single cost of a warm walk.
    _dirs: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path, options: DiscoveryOptions) -> Context:
        """Resolve the root once; symlink targets are compared against its real path."""
        root_abs = os.path.abspath(root)
        return cls(root_abs, os.path.realpath(root_abs), options)

    def abs_path(self, rel: str) -> Path:
        """The absolute Path of a root-relative path."""
        prefix, _, name = rel.rpartition("/")
        base = self._dirs.get(prefix)
        if base is None:
            base = self._dirs[prefix] = Path(self.root_abs, prefix)
        return base / name

    def inside(self, real: str) -> bool:
        """Whether a resolved path lies within the root."""
        return real == self.root_real or real.startswith(self.root_real.rstrip("/") + "/")


def looks_minified(head: bytes) -> bool:
    """A line over 3000 bytes, or (on a big enough sample) a mean line over 300 bytes.
    An inline source map (``//# sourceMappingURL=data:...``, tens of kilobytes of base64
    on one line) does not count: compilers such as Babel append one to readable code."""
    lines = [line for line in head.split(b"\n") if not _SOURCE_MAP.match(line)] or [b""]
    if max(map(len, lines)) > MAX_LINE:
        return True
    return len(head) >= MIN_SAMPLE_FOR_MEAN and len(head) / len(lines) > MAX_MEAN_LINE


def _name_verdict(ctx: Context, rel: str) -> tuple[str | None, str | None]:
    """(skip reason, language) from the name alone; (None, None) means "read the head"."""
    name = rel.rpartition("/")[2]
    lower = name.lower()
    if lower.endswith(MINIFIED_SUFFIXES):
        return "minified", None
    dot = lower.rfind(".")
    if dot > 0 and lower[dot:] in BINARY_EXTENSIONS:
        return "binary", None
    language = detect_language(rel, b"", ctx.options.extra_extensions)
    if language is None and not needs_head(name):
        return "unsupported", None
    if not rel.isascii():
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            return "unreadable", None  # not valid UTF-8: no store or client could carry it
    return None, language


def _error_reason(exc: OSError, *, link_target: bool) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink_loop"
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return "unreadable" if link_target else "vanished"  # a dangling link cannot be read
    return "unreadable"


def _open(ctx: Context, abs_path: str, is_link: bool | None) -> int | str:
    """Open a file for reading without following links out of the root: fd or skip reason."""
    if not is_link:
        try:
            return os.open(abs_path, _OPEN_FLAGS | _NOFOLLOW)
        except OSError as exc:
            if exc.errno != errno.ELOOP:  # ELOOP under O_NOFOLLOW: it is a symlink
                return _error_reason(exc, link_target=False)
    if not os.path.lexists(abs_path):
        return "vanished"
    real = os.path.realpath(abs_path)
    if not ctx.inside(real):
        return "symlink_outside"
    try:
        return os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        return _error_reason(exc, link_target=True)


def _read_checked(ctx: Context, rel: str, fd: int, language: str | None) -> DiscoveredFile | str:
    """fstat, size limit, one head read, then the content checks."""
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        return IS_DIR
    if not stat.S_ISREG(info.st_mode):
        return "unreadable"  # a FIFO, socket or device: nothing to index, maybe never EOF
    if info.st_size > ctx.options.max_file_size:
        return "too_large"
    head = os.read(fd, HEAD_BYTES) if info.st_size else b""
    if head.startswith(_WIDE_BOMS):  # UTF-16/32 text: NULs in every other byte, not binary
        head = _narrow_head(head)
    if b"\0" in head:
        return "binary"
    language = language or detect_language(rel, head, ctx.options.extra_extensions)
    if language is None:
        return "unsupported"
    language = header_language(rel, language, head)
    if language in MINIFIABLE and looks_minified(head):
        return "minified"
    return DiscoveredFile(rel, ctx.abs_path(rel), language, info.st_size, info.st_mtime_ns)


def inspect(ctx: Context, rel: str, is_link: bool | None = None) -> DiscoveredFile | str:
    """Check one listed path. ``is_link`` is what the listing knew (None: unknown)."""
    verdict, language = _name_verdict(ctx, rel)
    if verdict is not None:
        return verdict
    fd = _open(ctx, f"{ctx.root_abs}/{rel}", is_link)
    if isinstance(fd, str):
        return fd
    try:
        return _read_checked(ctx, rel, fd, language)
    except OSError:
        return "unreadable"
    finally:
        os.close(fd)


def normalise_rel(root_abs: str, rel_path: str) -> str:
    """The path as discovery reports it: root-relative, '/'-separated, no './'.

    An absolute path under the root is accepted (watchers report absolute paths); one outside
    the root is a caller's mistake and raises ValueError.
    """
    rel_path = os.fspath(rel_path)
    if os.path.isabs(rel_path):
        relative = os.path.relpath(rel_path, root_abs)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            raise ValueError(f"{rel_path} is not under the root {root_abs}")
        rel_path = relative
    parts = [p for p in rel_path.replace(os.sep, "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def check_file(
    root: Path, rel_path: str, options: DiscoveryOptions = DEFAULT_OPTIONS
) -> DiscoveredFile | str:
    """Check ONE file as a walk would (not its ignore rules: see ``is_ignored_path``).

    Used by incremental updates and the watcher. Returns the record, or the skip reason; a
    directory is "unsupported" here since only files are indexed. Unlike the walk, which
    vetted every directory on the way down, a lone path may pass through a symlinked
    directory, so its resolved location is checked against the root first.
    """
    ctx = Context.create(root, options)
    rel = normalise_rel(ctx.root_abs, rel_path)
    if not rel:
        return "unsupported"
    parent = os.path.dirname(os.path.join(ctx.root_abs, rel))
    if not ctx.inside(os.path.realpath(parent)):
        return "symlink_outside"
    outcome = inspect(ctx, rel)
    return "unsupported" if outcome == IS_DIR else outcome
