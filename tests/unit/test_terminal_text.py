"""What the generator prints about a document shows the document's names as they are written,
but a name cannot command the terminal (an escape sequence), show a place reversed (a
bidirectional override), hide itself (a zero-width character) or break the message's line."""

from __future__ import annotations

import json

import pytest

from generator.cli import main
from generator.literals import terminal_text
from generator.pointer import locate

HOSTILE = {
    "\x1b]0;owned\x07": "\\x1b]0;owned\\x07",
    "x\u202ey": "x\\u202ey",
    "zero\u200bwidth": "zero\\u200bwidth",
    "two\nlines": "two\\x0alines",
}
"""Names a document may give, and how a message shows each."""


def test_printable_text_of_any_script_is_shown_as_it_is():
    for text in ("plain", "café", "数据", "🙂 ok", "tab-free line\nand the next"):
        assert terminal_text(text) == text


@pytest.mark.parametrize("name, shown", HOSTILE.items())
def test_a_place_is_shown_with_what_cannot_be_printed_escaped(name, shown):
    assert (
        locate("doc.json", f"/components/schemas/{name}") == f"doc.json#/components/schemas/{shown}"
    )


def test_a_message_keeps_its_own_lines_and_escapes_the_rest():
    assert terminal_text("first\x1b[2J\nsecond\u202e") == "first\\x1b[2J\nsecond\\u202e"


@pytest.mark.parametrize("name, shown", HOSTILE.items())
def test_generate_prints_a_hostile_property_name_escaped(tmp_path, capsys, name, shown):
    schema = {"type": "object", "properties": {name: {"type": "no such type"}}}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {
                "get": {
                    "operationId": "get_a",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(document))
    status = main(["generate", "--spec", str(source), "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    shown_text = printed.out + printed.err
    assert status == 1
    assert f"/properties/{shown}" in shown_text, shown_text
    for character in ("\x1b", "\x07", "\u202e", "\u200b"):
        assert character not in shown_text
    assert all(
        line.startswith(("error: ", "warning: ", "note: ")) for line in printed.err.splitlines()
    )
