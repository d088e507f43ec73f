"""What ``generate`` warns of, kind by kind, and how it prints it: in full, or summarised.

Each warning is a :class:`Finding` of a :class:`Kind`, its line naming its place (a JSON
pointer). A large document can give hundreds of warnings of one kind (names renamed because
Python reserves them, ...) that bury the rest, so ``generate`` prints one line per kind, with
its count and its first place (:func:`summary`), and ``--verbose`` prints every line. A kind
whose every warning asks the user for a decision of its own (a request field without a role in
the local reference, a status value without a kind) is never summarised: each of its warnings
is printed, summarised or not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .english import count


@dataclass(frozen=True)
class Kind:
    """A kind of warning."""

    noun: str
    """What the summary counts: ``name renamed`` (``618 names renamed``)."""
    plural: str
    """:attr:`noun` for more than one."""
    each: bool = False
    """Whether each warning of the kind asks for a decision of its own: it is always printed."""

    def counted(self, number: int) -> str:
        """``618 names renamed``."""
        return count(number, self.noun, self.plural)


RENAMED = Kind("name renamed", "names renamed")
"""A name the document gives that Python, the generated code or another name takes."""
LEFT_OUT = Kind("part left out", "parts left out")
"""What the generator cannot represent (the package's README lists it too)."""
READ = Kind("place read leniently", "places read leniently")
"""What the parser read as the document surely means (a number written as a string, ...)."""
VALIDATOR = Kind("finding of openapi-spec-validator", "findings of openapi-spec-validator")
"""What openapi-spec-validator finds wrong with the document (it does not stop a generation)."""
DECISION = Kind("request part without a local role", "request parts without a local role", True)
"""A request field or parameter the local reference gives no role (``spec/reference-fields.yaml``
decides it)."""
STATUS = Kind("status value without a kind", "status values without a kind", True)
"""A status value ``spec/statuses.yaml`` has no kind for (a maintainer decides it)."""
REFERENCE = Kind("reference problem", "reference problems", True)
"""What the local reference of a revision cannot do as the document says (an answer it cannot
give, a default it does not apply)."""
PUT_BACK = Kind("released package put back", "released packages put back", True)
"""A released package ``generate`` found edited by hand and wrote back as it was released."""


@dataclass(frozen=True)
class Finding:
    """One warning: its kind and its line (which names its place)."""

    kind: Kind
    text: str
    decision: str | None = None
    """What the user decides, where it is one decision whatever the revision (the role of the
    request field ``adam_params.beta3``): the same decision in several revisions is one line."""
    revision: str | None = None
    """The revision the warning is of, where it is of one."""

    def __str__(self) -> str:
        return self.text


def summary(found: Iterable[Finding]) -> Iterator[str]:
    """The lines that say what ``found`` holds, in the order of each kind's first warning: a
    kind of one warning is that warning, a kind of several is one line with its count and its
    first warning, and a kind whose every warning asks for a decision gives each of them."""
    kinds: dict[Kind, list[Finding]] = {}
    for finding in found:
        kinds.setdefault(finding.kind, []).append(finding)
    for kind, findings in kinds.items():
        if kind.each:
            yield from _decisions(findings)
        elif len(findings) == 1:
            yield findings[0].text
        else:
            yield f"{kind.counted(len(findings))} (--verbose lists each), e.g. {findings[0].text}"


def _decisions(findings: list[Finding]) -> Iterator[str]:
    """Each decision once, in the order of its first warning: the newest revision's line (the
    last), with the other revisions that need the same decision named."""
    groups: dict[object, list[Finding]] = {}
    for number, finding in enumerate(findings):
        groups.setdefault(finding.decision or number, []).append(finding)
    for group in groups.values():
        last = group[-1]
        others = [f.revision for f in group[:-1] if f.revision is not None]
        if not others:
            yield last.text
        else:
            named = "revision" if len(others) == 1 else "revisions"
            yield f"{last.text} (the same decision for {named} {', '.join(others)})"
