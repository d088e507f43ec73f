"""Where the project and the shared material beside it are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec"
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPUS = SHARED / "corpus" / "together-openapi-2026-04-28.yaml"
FIXTURES = ROOT / "tests" / "fixtures"
