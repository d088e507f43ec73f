"""Formatting: the format cache of ``generate`` saves black's work without ever changing the output,
and ``generate --spec`` gives black only the statements the templates could not fit."""

from __future__ import annotations

import gc

import pytest

from generator.output import formatting
from support.pycode import recorded_texts

CLEAN = 'x = {"a": 1}\n'
UNFORMATTED = "x = {'a':1}\n"


def test_black_s_texts_are_remembered_and_its_refusals_are_not(tmp_path, monkeypatch):
    cache = formatting.FormatCache(tmp_path)
    results = formatting.format_sources([CLEAN, UNFORMATTED, "def broken(:\n"], cache)
    assert results[0] == (True, CLEAN) and results[1] == (True, CLEAN)
    assert results[2][0] is False
    again = formatting.FormatCache(tmp_path)
    assert again.is_clean(CLEAN) and not again.is_clean(UNFORMATTED)
    given = recorded_texts(monkeypatch, "_format_shapes")
    # black's text of a text it changes is taken again; a refusal is black's to give again
    assert formatting.format_sources([UNFORMATTED, "def broken(:\n"], again)[0] == (True, CLEAN)
    assert given == ["def broken(:\n"]


def test_a_damaged_line_of_black_s_texts_is_a_miss_and_the_others_are_kept(tmp_path):
    other = "y = [1,2]\n"
    formatting.format_sources([UNFORMATTED, other], formatting.FormatCache(tmp_path))
    path = formatting.FormatCache(tmp_path).outputs_path
    first, second = path.read_text(encoding="ascii").splitlines()
    path.write_text(f"{first}\nnot json\n[1, 2]\n{second[: len(second) // 2]}", encoding="ascii")
    cache = formatting.FormatCache(tmp_path)
    known = [cache.formatted(UNFORMATTED), cache.formatted(other)]
    assert known.count(None) == 1 and set(known) - {None} <= {CLEAN, "y = [1, 2]\n"}


def test_black_s_texts_grown_too_many_are_rewritten_with_the_run_s(tmp_path, monkeypatch):
    monkeypatch.setattr(formatting, "_MAX_ENTRIES", 3)
    texts = [f"x{i} = {{'a':{i}}}\n" for i in range(5)]
    for text in texts[:3]:
        formatting.format_sources([text], formatting.FormatCache(tmp_path))
    cache = formatting.FormatCache(tmp_path)
    formatting.format_sources(texts[3:], cache)
    lines = cache.outputs_path.read_text(encoding="ascii").splitlines()
    assert len(lines) == 2
    fresh = formatting.FormatCache(tmp_path)
    assert [fresh.formatted(t) is not None for t in texts] == [False] * 3 + [True] * 2


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


def test_a_long_statement_black_leaves_as_it_is_is_not_formatted_again(tmp_path, monkeypatch):
    long = 'message = "' + "x" * 120 + '"\n'  # black cannot shorten a string
    assert formatting.format_long_lines([long], formatting.FormatCache(tmp_path)) == [(True, long)]

    def no_black(sources):
        raise AssertionError("black ran again")

    monkeypatch.setattr(formatting, "_format_all", no_black)
    assert formatting.format_long_lines([long], formatting.FormatCache(tmp_path)) == [(True, long)]


def test_black_formats_only_the_statements_longer_than_the_line():
    trusted = "x = [1,2]\n"  # black would space it; short, so taken as laid out
    long = "y = call(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    ((ok, text),) = formatting.format_long_lines([f"{trusted}\n\n{long}"])
    assert ok
    assert text.startswith(trusted + "\n\n") and text.endswith("\n")
    assert text[len(trusted) + 2 :] == formatting.format_sources([long])[0][1]


def test_wide_characters_count_two_columns_as_for_black():
    wide = 'z = f(a, "' + "漢" * 45 + '", b)\n'  # 58 characters, 103 columns
    narrow = "# " + "├" * 98 + "\n"  # 100 columns of box drawing, 300 bytes
    ((_, text),) = formatting.format_long_lines([f"{narrow}\n\n{wide}"])
    assert text.startswith(narrow) and 'z = f(\n    a,\n    "' in text


ARGUMENTS = ", ".join(f"argument_{i}" for i in range(12))
WORDS = " ".join(["word"] * 24)

# Texts laid out as black lays them out but for one long line, wherever a template can put it,
# and what black needs to see of them: the statement that holds the line ("piece"), nothing (a
# line black would leave as it is) or the whole text (what cannot be cut).
PLACES = {
    "at the margin": (f"x = call({ARGUMENTS})\n", "piece"),
    "in a method": (
        f"class A:\n    def f(self):\n        y = 1\n        return call({ARGUMENTS})\n",
        "piece",
    ),
    "in an async method": (
        f"class A:\n    async def f(self):\n        await call({ARGUMENTS})\n",
        "piece",
    ),
    "in a nested function": (
        f"def f():\n    def g():\n        if x:\n            z = call({ARGUMENTS})\n"
        "\n    return g\n",
        "piece",
    ),
    "a decorator": (
        f"class A:\n    @decorate({ARGUMENTS})\n    def f(self):\n        pass\n",
        "piece",
    ),
    "a signature": (f"def function({ARGUMENTS}) -> None:\n    pass\n", "piece"),
    "an elif": (f"if a:\n    pass\nelif call({ARGUMENTS}):\n    pass\n", "piece"),
    "a one-line block": (f"if a: x = call({ARGUMENTS})\n", "piece"),
    "a try block": (f"try:\n    pass\nexcept E:\n    x = call({ARGUMENTS})\n", "piece"),
    "a match case": (f"match a:\n    case 1:\n        x = call({ARGUMENTS})\n", "piece"),
    "a string across lines": (f'x = """a\n\nb""" + call({ARGUMENTS})\n', "piece"),
    "a docstring's last line": (
        f'def f():\n    """Line one.\n\n    {WORDS} {WORDS}."""\n',
        "piece",
    ),
    "a one-line docstring": (f'class A:\n    """{WORDS} {WORDS}."""\n', "piece"),
    "a comment in a block": (f"def f():\n    # {WORDS} {WORDS}\n    return 1\n", "piece"),
    "a docstring's middle": (
        f'def f():\n    """Line one.\n\n    {WORDS} {WORDS}.\n    """\n',
        "nothing",
    ),
    "an attribute docstring": (f'X = 1\n"""Line one.\n{WORDS} {WORDS}."""\n', "nothing"),
    "a comment": (f"# {WORDS} {WORDS}\nx = 1\n", "nothing"),
    "a try's finally": (
        "try:\n    pass\nexcept E:\n    pass\nelse:\n    pass\nfinally:\n"
        f"    x = call({ARGUMENTS})\n",
        "piece",
    ),
    "among many classes": (
        "".join(f"class C{i}:\n    x = {i}\n\n\n" for i in range(40))
        + f"class D:\n    y = call({ARGUMENTS})\n\n\n"
        + "\n\n".join(f"class E{i}:\n    x = {i}\n" for i in range(40)),
        "piece",
    ),
    "an argument of an exploded call": (
        "class A:\n    def f(self):\n        return cls(\n            first=1,\n"
        f"            second=call({ARGUMENTS}),\n            **third,\n        )\n",
        "element",
    ),
    "two arguments of an exploded call": (
        f"x = call(\n    call({ARGUMENTS}),\n    first=1,\n    *call({ARGUMENTS}, second),\n)\n",
        "element",
    ),
    "a parameter of an exploded signature": (
        "class A:\n    @decorated(first)\n    async def f(\n        self,\n        /,\n        *,\n"
        f"        first: int = 1,\n        second: Annotated[{ARGUMENTS}] = None,\n"
        '    ) -> None:\n        """Doc."""\n        return first\n',
        "element",
    ),
    "an element of a list": (
        f'__all__ = [\n    "first",\n    call({ARGUMENTS}),\n    "{WORDS}",\n]\n',
        "element",
    ),
    "a name of an import": (  # black splits no name
        f"from module import (\n    first,\n    {'name_' * 20},\n)\n",
        "nothing",
    ),
    "an argument of a call laid out otherwise": (
        f"x = call(\n    first=1,\n    # a comment\n    second=call({ARGUMENTS}),\n)\n",
        "piece",
    ),
    "statements sharing a line": (f"x = 1; y = call({ARGUMENTS})\n", "whole"),
    "a statement sharing its last line": (f"x = (\n    1\n); y = call({ARGUMENTS})\n", "whole"),
    "code that does not parse": (f"x = call({ARGUMENTS}\n", "whole"),
}


@pytest.mark.parametrize("place", PLACES)
def test_black_s_text_of_a_long_line_wherever_it_is(place, monkeypatch):
    text, needs = PLACES[place]
    source = "VALUE = 1\n\n\n" + text
    seen = recorded_texts(monkeypatch, "_format_shapes")
    assert formatting.format_long_lines([source]) == formatting.format_sources([source])
    given = seen[:-1]  # format_sources gave black the whole text last
    if needs == "whole":
        assert given == [source]
    elif needs == "nothing":
        assert given == []
    elif needs == "element":  # black gets the long elements alone, with a name beside each
        assert given and all("first" not in piece and "_," in piece for piece in given)
    else:
        assert given and all("VALUE = 1" not in piece for piece in given)


def test_a_rewritten_cache_keeps_only_clean_texts(tmp_path, monkeypatch):
    monkeypatch.setattr(formatting, "_MAX_ENTRIES", 1)
    cache = formatting.FormatCache(tmp_path)
    # the cache file outgrows its limit: rewritten from this run's texts, the clean ones only
    assert formatting.format_sources([CLEAN, UNFORMATTED], cache) == [(True, CLEAN)] * 2
    again = formatting.FormatCache(tmp_path)
    assert again.is_clean(CLEAN) and not again.is_clean(UNFORMATTED)
    assert again.path.read_text().count("\n") == 1


def test_black_s_text_of_a_whole_module_is_an_entry_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(formatting, "_SMALL", len(UNFORMATTED) - 1)
    formatting.format_sources([UNFORMATTED], formatting.FormatCache(tmp_path))
    cache = formatting.FormatCache(tmp_path)
    assert not cache.outputs_path.exists()
    given = recorded_texts(monkeypatch, "_format_shapes")
    assert formatting.format_sources([UNFORMATTED], cache) == [(True, CLEAN)] and given == []


def test_black_s_workers_run_without_the_cyclic_collector(monkeypatch):
    """A worker is a fork of the generator: automatic collections would walk the document's
    whole model with each piece's objects."""
    monkeypatch.setattr(formatting.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(formatting, "_format", lambda source: (True, str(gc.isenabled())))
    pieces = ["x = 1\n" * (formatting._WORTH_A_PROCESS // 6)] * 2
    assert formatting._format_all(pieces) == [(True, "False")] * 2


def test_a_worker_collects_what_black_left_of_each_piece():
    """With the collector off, black's trees (a node and its parent are a cycle) would pile up
    piece after piece: the worker collects them once a piece is formatted."""
    long = "y = call(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        formatting._format(long)
        assert gc.collect() > 0  # black's cycles, left for a collection
        assert formatting._format_in_worker(long) == formatting._format(long)
        gc.collect()
        formatting._format_in_worker(long)
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
