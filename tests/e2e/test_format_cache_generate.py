"""``generate`` of every revision with a cold and then a warm format cache writes what ``check``
expects (the cache itself: tests/unit/test_format_cache.py)."""

from __future__ import annotations

from generator import caching
from generator.cli import main
from generator.output import tree
from generator.project import Project
from support.paths import ROOT


def test_generate_with_a_cold_and_a_warm_cache_writes_what_check_expects(tmp_path, monkeypatch):
    monkeypatch.setenv(caching.CACHE_ENV, str(tmp_path / "cache"))
    expected = Project(ROOT / "spec", ROOT / "generated").packages().files  # black on every text
    for run in ("cold", "warm"):
        out = tmp_path / run
        args = ["--spec-dir", str(ROOT / "spec"), "generate", "--out", str(out)]
        assert main([*args, "--readme", str(tmp_path / "no-readme.md")]) == 0
        assert tree.read_tree(out) == expected
    assert list((tmp_path / "cache").glob("jinja-*/*"))
