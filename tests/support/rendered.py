"""The package of a document a test writes (a dict), rendered as ``generate --spec`` renders it,
written to a folder and imported."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

from generator.output.document import render_one_document
from generator.output.package import PackageInfo
from generator.reading.parser import parse_document
from support.packages import load_package


def write_package(out: Path, raw: dict, name: str) -> Path:
    """The package of ``raw``, named ``name``, written into ``out`` (its document beside it):
    the package's folder."""
    out.mkdir(parents=True, exist_ok=True)
    source = out / f"{name}.json"
    source.write_text(json.dumps(raw))
    doc = parse_document(raw, source=str(source), lenient=True)
    info = PackageInfo(name, name.replace("_", "-"), "the API", False)
    for relative, content in render_one_document(source, doc, info).files.items():
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return out / name


def render_package(tmp_path: Path, raw: dict, name: str) -> tuple[ModuleType, ModuleType, Path]:
    """The package of ``raw``, written under ``tmp_path`` and imported as ``name``: the package,
    its models and its folder."""
    folder = write_package(tmp_path / "out", raw, name)
    package = load_package(folder.parent, name, name)
    return package, importlib.import_module(f"{name}.models"), folder
