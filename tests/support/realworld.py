"""The public documents of ``../shared/corpus/real-world/`` and ``real-world-next/``, as their
projects publish them (the second folder holds documents that once failed, each kept there by
its source's listing; the generator must hold on both)."""

from __future__ import annotations

from pathlib import Path

from generator.reading.loader import load_yaml
from support.paths import SHARED

CORPUS = SHARED / "corpus"
REAL_WORLD = CORPUS / "real-world"
FOLDERS = (REAL_WORLD, CORPUS / "real-world-next")
"""The folders of public documents, each read whole."""


def documents() -> list[Path]:
    """Every document of the folders that describes an API (files that only hold schemas for
    others to refer to, such as ``open-payments-6.0.0/schemas.yaml``, have no paths)."""
    found = [
        path
        for folder in FOLDERS
        if folder.is_dir()
        for path in sorted(folder.rglob("*.yaml")) + sorted(folder.rglob("*.json"))
    ]
    return [path for path in found if "paths" in (load_yaml(path) or {})]


def document_id(path: Path) -> str:
    """The document's path in the corpus (a test's id: ``real-world/petstore-3.1.yaml``)."""
    return path.relative_to(CORPUS).as_posix()
