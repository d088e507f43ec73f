"""Document text as the literals of every language the generator writes: Python (strings,
values, docstrings, the f-string of a path), TOML, YAML front matter and Markdown; and as the
terminal shows it, in the generator's messages.

This is the one way text from a document reaches an output file. Nothing a document says is
ever spliced into code or markup as it is: each function here returns something that can only
mean the text it was given (a string literal holds it, a docstring states it, a Markdown line
shows it), whatever quotes, backslashes, braces, newlines or control characters it holds. Text
that is already safe comes out as it went in, so documents without such characters render to
the same bytes as before this module existed.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

LINE_LENGTH = 100
"""The width of every line the generator writes; black formats with it too."""

# -- Python ---------------------------------------------------------------------------------------

# Characters a docstring cannot hold as they are: Python source has no NUL (escaped), and a
# class's docstring no lone surrogate (CPython keeps it as UTF-8), which shows as U+FFFD.
# Control characters that are white space are folded by the wrapping.
_UNPRINTABLE = {
    **{code: f"\\x{code:02x}" for code in [*range(0x20), 0x7F] if not chr(code).isspace()},
    **{code: "\ufffd" for code in range(0xD800, 0xE000)},
}


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def pyrepr(value: Any) -> str:
    """A Python literal of a document's value (a string, number, boolean, null, or a list, tuple
    or dict of them); strings in double quotes, as black writes them. An infinite number (YAML's
    ``.inf``, JSON's ``1e400``) is the float literal ``1e999``, which Python reads as infinity."""
    if isinstance(value, str):  # escaped where UTF-8 cannot hold it (a lone surrogate)
        return json.dumps(value, ensure_ascii=not value.isascii() and not _encodable(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, tuple):
        items = [pyrepr(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            raise ValueError("NaN has no Python literal")
        return "1e999" if value > 0 else "-1e999"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    raise TypeError(f"no literal for a {type(value).__name__}")


_PLAIN = re.compile(r"[^'\"\\{}#\x00-\x1f\x7f-\x9f]*")


def fstring_argument(text: str) -> str | None:
    """A single-quoted literal of ``text`` that may stand inside a replacement field of a
    double-quoted f-string on every Python the packages support (before 3.12 such a field may
    hold no backslash, no double quote and no ``#``), or ``None`` where the text needs any."""
    if _PLAIN.fullmatch(text) and text.isprintable() and _encodable(text):
        return f"'{text}'"
    return None


class Code(str):
    """An expression the generator wrote (never document text), for :func:`fstring`."""


def fstring(parts: list[str | Code]) -> str:
    """An expression that joins literal text and expressions into one string: a double-quoted
    f-string where every expression can stand in one on every supported Python, else a
    concatenation. Literal parts are document text, escaped here; ``Code`` parts are the
    generator's own expressions (each must give a ``str``)."""
    if not any(isinstance(part, Code) for part in parts):
        return pyrepr("".join(parts))
    if all(_PLAIN.fullmatch(part.replace("'", "")) for part in parts if isinstance(part, Code)):
        body = "".join(
            "{" + part + "}" if isinstance(part, Code) else _fstring_text(part) for part in parts
        )
        return f'f"{body}"'
    return " + ".join(part if isinstance(part, Code) else pyrepr(part) for part in parts if part)


def _fstring_text(text: str) -> str:
    """Literal text as it stands between an f-string's double quotes."""
    return pyrepr(text)[1:-1].replace("{", "{{").replace("}", "}}")


@functools.lru_cache(maxsize=1024)
def docstring(text: str, indent: int) -> str:
    """A triple-quoted docstring for ``text``, wrapped to the line length at ``indent``.

    Paragraphs are separated by blank lines. A paragraph whose first line ends with a colon
    (``Args:``) is a list: each further line is one entry, wrapped with a hanging indent.
    """
    width = LINE_LENGTH - indent - 6  # room for the quotes on either side
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').translate(_UNPRINTABLE).strip()
    before_last = escaped[:-1]
    escaped_quote = (len(before_last) - len(before_last.rstrip("\\"))) % 2 == 1
    if escaped.endswith('"') and not escaped_quote:  # it would run into the closing quotes
        escaped = before_last + '\\"'
    if escaped.startswith('"'):  # and into the opening ones
        escaped = '\\"' + escaped[1:]
    blocks = []
    for paragraph in escaped.strip().split("\n\n"):
        lines = paragraph.strip().split("\n")
        if len(lines) > 1 and lines[0].endswith(":"):
            entries = [fill(" ".join(e.split()), width, "    ", "        ") for e in lines[1:]]
            blocks.append("\n".join([lines[0], *entries]))
        else:
            blocks.append(fill(" ".join(paragraph.split()), width))
    if len(blocks) == 1 and "\n" not in blocks[0]:
        return f'"""{blocks[0]}"""'
    pad = " " * indent
    body = "\n\n".join(blocks).replace("\n", "\n" + pad).replace("\n" + pad + "\n", "\n\n")
    return f'"""{body}\n{pad}"""'


_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|.)")


def _cut(word: str, start: int, at: int) -> int:
    """Where a word longer than a line is broken when its line begins at ``start``: at ``at``,
    or around the escape sequence (``\\x00``, ``\\ud800``, ``\\\\``) that ``at`` falls inside,
    which a line break would end too soon."""
    for escape in _ESCAPE.finditer(word, start, at + 6):
        if escape.start() < at < escape.end():
            return escape.start() if escape.start() > start else escape.end()
    return at


def fill(text: str, width: int, initial: str = "", subsequent: str = "") -> str:
    """``textwrap.fill(text, width, initial_indent=initial, subsequent_indent=subsequent,
    break_on_hyphens=False)`` for a text whose words are separated by single spaces, in time
    linear in the text: textwrap copies the rest of a word longer than a line for every line
    it fills, which takes minutes on a description of megabytes without a space. A word is
    never broken inside an escape sequence."""
    if not text:
        return ""
    if len(initial) + len(text) <= width:
        return initial + text  # the whole text on its first line
    chunks: list[str] = []  # words and the spaces between them, the last first
    for word in reversed(text.split(" ")):
        chunks += (word, " ")
    chunks.pop()
    used = 0  # how much of ``chunks[-1]`` earlier lines took (a word longer than a line)
    lines: list[str] = []
    while chunks:
        indent = subsequent if lines else initial
        room = width - len(indent)
        if lines and (used >= len(chunks[-1]) or chunks[-1] == " "):
            chunks.pop()  # the rest of a broken word, or a space, does not start a line
            used = 0
        line: list[str] = []
        length = 0
        while chunks and length + len(chunks[-1]) - used <= room:
            line.append(chunks.pop()[used:])
            length += len(line[-1])
            used = 0
        if chunks and len(chunks[-1]) - used > room:  # a word longer than a line: broken
            take = 1 if room < 1 else room - length
            end = _cut(chunks[-1], used, used + take) if take > 0 else used
            line.append(chunks[-1][used:end])
            used = end
        if line and not line[-1].strip():
            line.pop()
        if line:
            lines.append(indent + "".join(line))
    return "\n".join(lines)


def http_text(text: str) -> str:
    """Text as an HTTP header's value may carry it (a revision in the ``User-Agent``): visible
    ASCII and spaces as they are, but for the parentheses and backslash of a comment, and every
    other character percent-encoded as UTF-8."""
    encoded = text.encode("utf-8", "surrogatepass")
    return "".join(
        chr(b) if 0x20 <= b < 0x7F and b not in b"()\\%" else f"%{b:02X}" for b in encoded
    )


# -- the terminal ---------------------------------------------------------------------------------


def terminal_text(text: str, *, lines: bool = True) -> str:
    """Text as a message on a terminal may show it: every character Python does not count as
    printable (a control character such as the escape that starts a terminal's command, a
    bidirectional override that would show a place reversed, a zero-width character, a lone
    surrogate) as its Python escape (``\\x1b``, ``\\u202e``), but a line break where ``lines``
    (the breaks of the message itself). A name of a document shows as it is written, but cannot
    command the terminal, hide itself or disguise the lines around it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or (lines and c == "\n") else _escaped(c) for c in text)


def _escaped(character: str) -> str:
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# -- TOML and YAML --------------------------------------------------------------------------------


def _quoted_string(text: str) -> str:
    """A double-quoted string in the escapes TOML's basic strings and YAML's double-quoted
    scalars share with JSON (``\\"``, ``\\\\``, ``\\n``, ``\\uXXXX``, ...); characters neither may
    hold raw (control characters, DEL) are escaped, a lone surrogate becomes U+FFFD."""
    text = "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in text)
    quoted = json.dumps(text, ensure_ascii=False)
    return re.sub(r"[\x7f-\x9f\u2028\u2029\ufeff]", lambda m: f"\\u{ord(m[0]):04x}", quoted)


def toml_string(text: str) -> str:
    """A TOML basic string holding ``text``."""
    return _quoted_string(text)


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar holding ``text``."""
    return _quoted_string(text)


# -- Markdown -------------------------------------------------------------------------------------

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})", re.MULTILINE)
_LONG_RUN = re.compile(r"`{3,}|~{3,}")
_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?\w+;)")


def _no_html(text: str) -> str:
    """``<`` where it would open an HTML tag or comment, and ``&`` where it would start an
    entity, as the entities that show them."""
    return _HTML.sub(lambda m: "&lt;" if m[0] == "<" else "&amp;", text)


def oneline(text: str) -> str:
    """Text folded onto one line (every run of white space, newlines included, one space)."""
    return " ".join(text.split())


def _closed_code_spans(text: str) -> str:
    """Text whose code spans all close within it: a run of backticks that no later run of the
    same length closes (CommonMark) is escaped, so that it cannot pair with a backtick of the
    line around the text."""
    runs = list(re.finditer(r"`+", text))
    unmatched = []
    index = 0
    while index < len(runs):
        closing = next(
            (j for j in range(index + 1, len(runs)) if len(runs[j][0]) == len(runs[index][0])),
            None,
        )
        if closing is None:
            unmatched.append(runs[index])
            index += 1
        else:
            index = closing + 1
    for run in reversed(unmatched):
        text = text[: run.start()] + "\\`" * len(run[0]) + text[run.end() :]
    return text


def markdown_inline(text: str) -> str:
    """Document text inside a line of Markdown (a list item, a heading, a paragraph that is
    wrapped later): on one line, with no HTML, no code span left open, and no run of backticks
    or tildes that a wrapped line could start a code fence with."""
    folded = _closed_code_spans(_no_html(oneline(text)))
    return _LONG_RUN.sub(lambda m: "".join("\\" + c for c in m[0]), folded)


def markdown_block(text: str) -> str:
    """Document text as Markdown paragraphs of their own (a description): its own Markdown kept,
    but no HTML, and no line that opens or closes a code fence."""
    return _FENCE.sub(lambda m: m[1] + "\\" + m[2], _no_html(text.strip()))


def markdown_cell(text: str) -> str:
    """Document text inside a cell of a Markdown table."""
    return markdown_inline(text).replace("|", "\\|")


def markdown_code(text: str) -> str:
    """Document text as an inline code span (CommonMark: fenced by a run of backticks longer
    than any inside, with a space inside where the text starts or ends with one)."""
    text = oneline(text)
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
