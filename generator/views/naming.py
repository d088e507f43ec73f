"""One rule for every Python name the generator makes from a document's names.

Each kind of name lives in a namespace: the classes of ``models.py``, the attributes of one
model, the members of one enum, the methods of the client, the arguments of one method, the
reference pages of ``docs/``. A name is first derived on its own (``class_name``,
``attribute_name``, ... in :mod:`generator.views.pymodel`): the plain name. Within a namespace:

1. A name longer than :data:`MAX_LENGTH` characters is shortened to its first characters and
   eight hex digits of the sha256 of the whole name, so that it stays stable and distinct.
2. What an earlier revision named keeps the name it had there (a later revision never renames
   what an earlier one named), and a name once given is never given to anything else.
3. The others take, in order, the first free name of ``plain``, ``plain_``, ``plain_2``,
   ``plain_3``, ...; a name is not free when something took it or when it is reserved (a
   Python keyword, a builtin the generated code uses, a name of the package's runtime).
   The order: first what the document spells exactly as its plain name (the property
   ``group`` before ``_group``), then the document's order (for the classes: components, then
   the inline schemas in the order the generator meets them).

Every name that is not its plain name is reported, with the JSON pointer of what it names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

MAX_LENGTH = 100
"""The longest name kept as it is; longer ones are shortened with a hash of the whole."""
_HASH_LENGTH = 8


def shorten(name: str, limit: int = MAX_LENGTH) -> str:
    """``name``, or where it is longer than ``limit`` its first characters and eight hex digits
    of its sha256 (the same name always gives the same result)."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_LENGTH]
    return f"{name[: limit - _HASH_LENGTH - 1].rstrip('_')}_{digest}"


@dataclass(frozen=True)
class Claim:
    """Something that wants a name in a namespace."""

    key: Hashable
    """What is named, the same across revisions (a JSON name, a schema's name, ...)."""
    plain: str
    """The name derived on its own."""
    pointer: str
    """Where the document defines it, for the report."""
    what: str
    """How the report calls it: ``the property `_group```."""
    exact: bool = False
    """Whether the document spells it exactly as ``plain``."""


@dataclass(frozen=True)
class Rename:
    """A name that is not its plain name, and why."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


@dataclass
class Namespace:
    """The names of one namespace; ``earlier`` holds what earlier revisions named (by key)."""

    reserved: Callable[[str], bool] = lambda name: False
    earlier: dict[Hashable, str] = field(default_factory=dict)
    fold: Callable[[str], str] = lambda name: name
    """How names are compared (``str.lower`` for file names on a case-insensitive disk)."""
    names: dict[Hashable, str] = field(default_factory=dict)
    holders: dict[str, str] = field(default_factory=dict)
    """Who holds each (folded) name, for the report."""
    renames: list[Rename] = field(default_factory=list)
    seen: set[Hashable] = field(default_factory=set)
    """The keys claimed in this revision."""

    def __post_init__(self) -> None:
        for key, name in self.earlier.items():
            self.names[key] = name
            self.holders.setdefault(self.fold(name), "an earlier revision")

    def assign(self, claims: Iterable[Claim]) -> None:
        """Name every claim not named yet: exact spellings first, then in the given order."""
        claims = list(claims)
        for claim in claims:
            if claim.key in self.earlier:
                self.claim(claim)
        for claim in sorted(claims, key=lambda c: not c.exact):
            self.claim(claim)

    def claim(self, claim: Claim) -> str:
        """The name of ``claim``: its own where it has one, else the first free candidate."""
        if claim.key in self.names:
            name = self.names[claim.key]
            if claim.key in self.earlier and claim.key not in self.seen:
                self.seen.add(claim.key)
                self.holders[self.fold(name)] = claim.what
                self._report(claim, name, "an earlier revision named it so")
            return name
        self.seen.add(claim.key)
        base = shorten(claim.plain)
        name, blocked = base, None
        number = 1
        while self.fold(name) in self.holders or self.reserved(name):
            if blocked is None:
                blocked = self.holders.get(self.fold(name), "reserved")
            number += 1
            name = base + "_" if number == 2 else f"{base}_{number - 1}"
        self.names[claim.key] = name
        self.holders[self.fold(name)] = claim.what
        if name != claim.plain:
            if blocked is None:
                reason = f"`{claim.plain}` is longer than {MAX_LENGTH} characters"
            elif blocked == "reserved":
                reason = f"`{base}` is reserved (Python's, or a name the generated code uses)"
            else:
                reason = f"`{base}` is taken by {blocked}"
            self._report(claim, name, reason)
        return name

    def _report(self, claim: Claim, name: str, reason: str) -> None:
        if name != claim.plain:
            self.renames.append(Rename(claim.pointer, f"{claim.what} is named `{name}`: {reason}"))

    def get(self, key: Hashable) -> str:
        return self.names[key]

    def current(self) -> dict[Hashable, str]:
        """What this revision named, and what earlier ones did (never given to another)."""
        return dict(self.names)
