"""The format cache of ``generate`` saves black's work without ever changing the output."""

from __future__ import annotations

from conftest import ROOT

from generator import formatting, render, tree
from generator.cli import main
from generator.revisions import load_index

CLEAN = 'x = {"a": 1}\n'
UNFORMATTED = "x = {'a':1}\n"


def test_only_black_clean_texts_are_remembered(tmp_path):
    cache = formatting.FormatCache(tmp_path)
    results = formatting.format_sources([CLEAN, UNFORMATTED, "def broken(:\n"], cache)
    assert results[0] == (True, CLEAN) and results[1] == (True, CLEAN)
    assert results[2][0] is False
    again = formatting.FormatCache(tmp_path)
    assert again.is_clean(CLEAN) and not again.is_clean(UNFORMATTED)
    # a text black changes is formatted by black every time, never served from the cache
    assert formatting.format_sources([UNFORMATTED], again) == [(True, CLEAN)]


def test_the_cache_is_keyed_by_black_s_version(tmp_path, monkeypatch):
    formatting.format_sources([CLEAN], formatting.FormatCache(tmp_path))
    monkeypatch.setattr(formatting, "black_version", lambda: "0.0.0")
    assert not formatting.FormatCache(tmp_path).is_clean(CLEAN)


def test_a_damaged_or_unwritable_cache_is_no_cache(tmp_path):
    cache = formatting.FormatCache(tmp_path)
    cache.path.write_bytes(b"\xff\xfegarbage\n" + b"0" * 10 + b"\n")
    assert formatting.format_sources([CLEAN], formatting.FormatCache(tmp_path)) == [(True, CLEAN)]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert formatting.format_sources([CLEAN], formatting.FormatCache(blocked)) == [(True, CLEAN)]


def test_generate_with_a_cold_and_a_warm_cache_writes_what_check_expects(tmp_path, monkeypatch):
    monkeypatch.setenv(formatting.CACHE_ENV, str(tmp_path / "cache"))
    expected = render.render_all(load_index(ROOT / "spec")).files  # black on every text
    for run in ("cold", "warm"):
        out = tmp_path / run
        args = ["--spec-dir", str(ROOT / "spec"), "generate", "--out", str(out)]
        assert main([*args, "--readme", str(tmp_path / "no-readme.md")]) == 0
        assert tree.read_tree(out) == expected
    assert list((tmp_path / "cache").glob("black-clean-*.txt"))
    assert list((tmp_path / "cache").glob("jinja-*/*"))
