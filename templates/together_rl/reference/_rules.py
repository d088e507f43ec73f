"""The rules by which the local reference applies each request field (see ``_fields.RULES``).

Each revision's package settles, when it is generated, the rule of every field of the request
body for each session kind; the session applies them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["Group", "NoEffect", "Refused", "Rule", "Sets"]


@dataclass(frozen=True)
class Group:
    """An object of overrides: each of its fields has a rule of its own."""


@dataclass(frozen=True)
class Sets:
    """The value overrides these settings for the step: ``adam.<name>`` (the Adam-tuned
    parameters), ``muon.<name>`` (the Muon-tuned ones) or ``clip`` (the gradient clip value).

    A ``fallback`` value (a step-level field) yields to a value a group sets; two values of the
    same standing for one setting must be equal.
    """

    settings: tuple[str, ...]
    fallback: bool = False


@dataclass(frozen=True)
class Refused:
    """A request that sets the field fails with INVALID_INPUT, for this reason."""

    problem: str


@dataclass(frozen=True)
class NoEffect:
    """The field is checked against its schema and changes nothing locally."""


Rule: TypeAlias = Group | Sets | Refused | NoEffect
