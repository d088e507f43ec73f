"""Lists, counts and articles for messages that read as English."""

from __future__ import annotations

from collections.abc import Sequence


def listing(items: Sequence[str], conjunction: str = "and") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``"1 warning"``, ``"4 warnings"``."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def article(word: str) -> str:
    """``"a"`` or ``"an"`` before ``word`` (by its first letter, backquotes aside)."""
    return "an" if word.lstrip("`'\"").lower()[:1] in ("a", "e", "i", "o", "u") else "a"
