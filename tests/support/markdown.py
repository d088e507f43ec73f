"""Markdown read as a renderer reads it (CommonMark, with tables): its inline pieces and the
links a reader can follow."""

from __future__ import annotations

from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

MARKDOWN = MarkdownIt("commonmark").enable("table")


def inline(text: str) -> Iterator[tuple[int, Token]]:
    """Every inline piece of a page (text, link, code span, ...), with its line."""
    for token in MARKDOWN.parse(text):
        if token.type != "inline":
            continue
        line = token.map[0] + 1 if token.map else 0
        for child in token.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            yield line, child


def links(text: str) -> list[tuple[int, str]]:
    """Every link and image of a page, with its line: the targets a reader can follow (text in
    code spans and code blocks is not a link)."""
    found = []
    for line, child in inline(text):
        if child.type == "link_open":
            found.append((line, str(child.attrs["href"])))
        elif child.type == "image":
            found.append((line, str(child.attrs["src"])))
    return found
