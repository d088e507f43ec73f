"""The public documents of ``../shared/corpus/real-world/``, as their projects publish them."""

from __future__ import annotations

from pathlib import Path

from generator.reading.loader import load_yaml
from support.paths import SHARED

REAL_WORLD = SHARED / "corpus" / "real-world"


def documents() -> list[Path]:
    """Every document of the folder that describes an API (files that only hold schemas for
    others to refer to, such as ``open-payments-6.0.0/schemas.yaml``, have no paths)."""
    if not REAL_WORLD.is_dir():
        return []
    found = sorted(REAL_WORLD.rglob("*.yaml")) + sorted(REAL_WORLD.rglob("*.json"))
    return [path for path in found if "paths" in (load_yaml(path) or {})]


def document_id(path: Path) -> str:
    """The document's path in the folder (a test's id)."""
    return path.relative_to(REAL_WORLD).as_posix()
