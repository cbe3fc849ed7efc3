"""Per-file checks through the public API: check_file() and discover() on real files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from repolens.discover import DiscoveredFile, DiscoveryOptions, check_file, discover


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def test_record_fields_for_a_kept_file(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/mod.py": "x = 1\n"})
    record = check_file(tmp_path, "pkg/mod.py")
    assert isinstance(record, DiscoveredFile)
    info = (tmp_path / "pkg/mod.py").stat()
    assert record.path == "pkg/mod.py"
    assert record.abs_path == tmp_path / "pkg/mod.py"
    assert (record.language, record.size, record.mtime_ns) == ("python", 6, info.st_mtime_ns)


def test_check_file_normalises_the_relative_path(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/mod.py": "x = 1\n"})
    record = check_file(tmp_path, "./pkg/mod.py")
    assert isinstance(record, DiscoveredFile)
    assert record.path == "pkg/mod.py"


def test_check_file_accepts_an_absolute_path_under_the_root(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/mod.py": "x = 1\n"})
    record = check_file(tmp_path, str(tmp_path / "pkg/mod.py"))
    assert isinstance(record, DiscoveredFile)
    assert record.path == "pkg/mod.py"
    with pytest.raises(ValueError, match="not under the root"):
        check_file(tmp_path / "pkg", str(tmp_path / "other.py"))


def test_binary_by_nul_byte_and_by_extension(tmp_path: Path) -> None:
    write(tmp_path, {"blob.py": b"x = 1\n\x00\x01\x02", "logo.png": b"not even an image"})
    assert check_file(tmp_path, "blob.py") == "binary"
    assert check_file(tmp_path, "logo.png") == "binary"


def test_nul_beyond_the_first_8_kib_is_not_looked_for(tmp_path: Path) -> None:
    write(tmp_path, {"late.py": b"x = 1\n" * 2000 + b"\x00"})
    assert isinstance(check_file(tmp_path, "late.py"), DiscoveredFile)


def test_too_large_is_decided_from_stat(tmp_path: Path) -> None:
    write(tmp_path, {"big.py": "#" * 2001 + "\n", "small.py": "#" * 10 + "\n"})
    options = DiscoveryOptions(max_file_size=2000)
    assert check_file(tmp_path, "big.py", options) == "too_large"
    assert isinstance(check_file(tmp_path, "small.py", options), DiscoveredFile)


def test_minified_by_content_and_by_name(tmp_path: Path) -> None:
    one_long_line = "var a=1;" * 500  # 4000 characters on one line
    wide = ("x" * 400 + "\n") * 10  # mean line length > 300
    write(
        tmp_path,
        {
            "app.js": one_long_line,
            "styles.css": wide,
            "data.json": '{"k": [' + ",".join(["1"] * 2000) + "]}",
            "vendor.min.js": "var a = 1;\n",
            "app.js.map": "{}",
            "readable.js": "function f() {\n  return 1;\n}\n" * 100,
            "tiny.json": '{"compilerOptions": {"strict": true}}',
            "long_line.py": "x = '" + "y" * 4000 + "'\n",  # only JS/CSS/JSON-ish are judged
        },
    )
    for rel in ("app.js", "styles.css", "data.json", "vendor.min.js", "app.js.map"):
        assert check_file(tmp_path, rel) == "minified", rel
    for rel in ("readable.js", "tiny.json", "long_line.py"):
        assert isinstance(check_file(tmp_path, rel), DiscoveredFile), rel


def test_extensionless_script_with_shebang(tmp_path: Path) -> None:
    write(tmp_path, {"bin/deploy": "#!/usr/bin/env python3\nprint('hi')\n", "bin/notes": "hi\n"})
    record = check_file(tmp_path, "bin/deploy")
    assert isinstance(record, DiscoveredFile)
    assert record.language == "python"
    assert check_file(tmp_path, "bin/notes") == "unsupported"


def test_unsupported_extension_and_empty_files(tmp_path: Path) -> None:
    write(tmp_path, {"table.dat": "1,2\n", "pkg/__init__.py": ""})
    assert check_file(tmp_path, "table.dat") == "unsupported"
    record = check_file(tmp_path, "pkg/__init__.py")
    assert isinstance(record, DiscoveredFile)
    assert record.size == 0


def test_extra_extensions_from_options(tmp_path: Path) -> None:
    write(tmp_path, {"a.jsm": "export const a = 1;\n"})
    assert check_file(tmp_path, "a.jsm") == "unsupported"
    record = check_file(tmp_path, "a.jsm", DiscoveryOptions(extra_extensions={"JSM": "javascript"}))
    assert isinstance(record, DiscoveredFile)
    assert record.language == "javascript"


def test_removed_file_is_vanished(tmp_path: Path) -> None:
    write(tmp_path, {"gone.py": "x = 1\n"})
    (tmp_path / "gone.py").unlink()
    assert check_file(tmp_path, "gone.py") == "vanished"


def test_dangling_symlink_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    assert check_file(tmp_path, "dangling.py") == "unreadable"


def test_fifo_is_unreadable_and_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    assert check_file(tmp_path, "pipe.py") == "unreadable"
    result = discover(tmp_path)
    assert result.skipped["unreadable"] == 1
    assert result.examples["unreadable"] == ["pipe.py"]


def test_symlinked_file_inside_root_is_followed(tmp_path: Path) -> None:
    write(tmp_path, {"real/impl.py": "def f():\n    return 1\n"})
    (tmp_path / "alias.py").symlink_to("real/impl.py")
    record = check_file(tmp_path, "alias.py")
    assert isinstance(record, DiscoveredFile)
    assert (record.path, record.language, record.size) == ("alias.py", "python", 22)


def test_symlinked_file_outside_root_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {"outside/secret.py": "KEY = 1\n", "repo/a.py": "x = 1\n"})
    (tmp_path / "repo/leak.py").symlink_to(tmp_path / "outside/secret.py")
    assert check_file(tmp_path / "repo", "leak.py") == "symlink_outside"
    result = discover(tmp_path / "repo")
    assert [f.path for f in result.files] == ["a.py"]
    assert result.examples["symlink_outside"] == ["leak.py"]


def test_path_through_a_symlinked_dir_outside_root_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {"outside/secret.py": "KEY = 1\n"})
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/ext").symlink_to(tmp_path / "outside")
    assert check_file(tmp_path / "repo", "ext/secret.py") == "symlink_outside"


def test_file_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    assert check_file(tmp_path, "a.py") == "symlink_loop"
    assert discover(tmp_path).skipped["symlink_loop"] == 2


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_name_that_is_not_utf8_is_skipped_not_fatal(tmp_path: Path, mode: str) -> None:
    os.close(os.open(os.path.join(os.fsencode(tmp_path), b"bad\xff.py"), os.O_CREAT | os.O_WRONLY))
    write(tmp_path, {"good.py": "x = 1\n"})
    if mode == "git":
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    result = discover(tmp_path)
    assert [f.path for f in result.files] == ["good.py"]
    assert result.skipped["unreadable"] == 1


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "pkg.py").mkdir()
    assert check_file(tmp_path, "pkg.py") == "unsupported"


def test_discover_rejects_a_missing_root(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="not a directory"):
        discover(tmp_path / "nope")


def test_an_inline_source_map_does_not_make_readable_code_minified(tmp_path: Path) -> None:
    """Babel output: readable code, then tens of kilobytes of base64 on its last line."""
    code = "function f(a) {\n  return a + 1;\n}\n" * 40
    source_map = "//# sourceMappingURL=data:application/json;base64," + "QUFB" * 3000 + "\n"
    bundle_map = "/*# sourceMappingURL=data:application/json;base64," + "QUFB" * 3000 + " */\n"
    write(
        tmp_path,
        {
            "lib/utils.js": code + source_map,
            "lib/style.css": ".a { color: red; }\n" * 40 + bundle_map,
            "dist/app.js": "var a=1;" * 500 + "\n" + source_map,  # minified all the same
        },
    )
    assert isinstance(check_file(tmp_path, "lib/utils.js"), DiscoveredFile)
    assert isinstance(check_file(tmp_path, "lib/style.css"), DiscoveredFile)
    assert check_file(tmp_path, "dist/app.js") == "minified"
