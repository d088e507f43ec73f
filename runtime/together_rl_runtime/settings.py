"""The settings of the local reference's optimizers, the roles a request field can play, and the
rules by which the reference applies a field: one source, read by the reference and by the
generator that settles each revision's rules (it needs no torch).

A revision's package settles, when it is generated, the rule of every field of its request body
for each session kind (its ``reference/_fields.py``); the reference applies them as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, TypeAlias, Union

__all__ = [
    "GROUP_ROLES",
    "IDEMPOTENCY_ROLE",
    "NO_EFFECT_ROLE",
    "OPTIMIZERS",
    "PARAMETERS_SINCE",
    "SESSION_DEFAULTS",
    "SETTINGS",
    "SETTING_KINDS",
    "SINCE",
    "SETTING_RANGES",
    "TOP_LEVEL_ROLES",
    "Group",
    "IdempotencyKey",
    "NoEffect",
    "Parameter",
    "Range",
    "Refused",
    "Rule",
    "Sets",
]

Optimizer: TypeAlias = Literal["adam", "muon"]
OPTIMIZERS: tuple[Optimizer, ...] = ("adam", "muon")


@dataclass(frozen=True)
class Range:
    """The values a setting takes: from ``low`` (``None``: unbounded) to ``high``, each end
    included unless it is open."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def problem(self, value: float) -> str | None:
        """Why ``value`` is outside the range (``"must be >= 0"``), or ``None``."""
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        high_ok = self.high is None or (value < self.high if self.high_open else value <= self.high)
        if low_ok and high_ok:
            return None
        if self.high is None:
            return f"must be {'>' if self.low_open else '>='} {self.low:g}"
        if not self.low_open and not self.high_open:
            return f"must be between {self.low:g} and {self.high:g}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"must be in {left}{self.low:g}, {self.high:g}{right}"


SETTINGS: Mapping[Optimizer, frozenset[str]] = MappingProxyType(
    {
        "adam": frozenset(
            {"learning_rate", "weight_decay", "clip", "beta1", "beta2", "eps", "amsgrad"}
        ),
        "muon": frozenset(
            {"learning_rate", "weight_decay", "clip", "momentum", "newton_schulz_steps"}
        ),
    }
)
"""Which settings a group of each optimizer's overrides may set (``clip`` is the step's gradient
clip value, whichever group sets it; ``amsgrad`` whether Adam keeps the maximum of its second
moments, as ``torch.optim.AdamW(amsgrad=True)``)."""

SETTING_KINDS: Mapping[str, Literal["number", "integer", "boolean"]] = MappingProxyType(
    {"amsgrad": "boolean", "newton_schulz_steps": "integer"}
)
"""The settings that are not any number: a boolean (a field that sets one must be a boolean), or
an integer (a number with an integral value: ``5`` or ``5.0``, never ``5.5``, which is refused
rather than truncated); every other setting is a number."""

SETTING_RANGES: Mapping[str, Range] = MappingProxyType(
    {
        "learning_rate": Range(0),
        "beta1": Range(0, 1, high_open=True),
        "beta2": Range(0, 1, high_open=True),
        "eps": Range(0, low_open=True),
        "weight_decay": Range(0),
        "clip": Range(0),
        "momentum": Range(0, 1, high_open=True),
        "newton_schulz_steps": Range(1, 100),
    }
)
"""The range of every number setting; a request or a default outside it is refused."""

SESSION_DEFAULTS: Mapping[str, float] = MappingProxyType(
    {
        "adam.learning_rate": 1e-4,
        "adam.beta1": 0.9,
        "adam.beta2": 0.95,
        "adam.eps": 1e-8,
        "adam.weight_decay": 0.0,
        "adam.amsgrad": False,
        "muon.learning_rate": 0.02,
        "muon.momentum": 0.95,
        "muon.newton_schulz_steps": 5,
        "muon.weight_decay": 0.0,
        "clip": 1.0,
    }
)
"""What a step uses for a setting where neither its request nor its revision's document says,
by ``<optimizer>.<setting>`` (``clip`` alone)."""

SINCE: Mapping[str, str] = MappingProxyType({"adam.amsgrad": "1.1"})
"""The runtime release (``major.minor``) from which the reference applies a setting, for those
added after the major version's first release: a package whose fields set one requires that
release."""

GROUP_ROLES: Mapping[str, tuple[Optimizer, str | None]] = MappingProxyType(
    {
        "adam": ("adam", None),
        "muon": ("muon", None),
        "muon.adam": ("adam", "muon"),
    }
)
"""The roles of a group of overrides: whose settings it holds, and the group it belongs in
(``None``: the top level of the body)."""

TOP_LEVEL_ROLES: frozenset[str] = frozenset({"step.learning_rate", "step.clip"})
"""Roles of a field at the top level of the body: the step's learning rate or clip value where
no group sets one."""

NO_EFFECT_ROLE = "none"
"""The role of a field that is checked and has no local effect."""

IDEMPOTENCY_ROLE = "idempotency"
"""The role of a header that carries the step's idempotency key."""

PARAMETERS_SINCE = "1.2"
"""The runtime release from which the reference takes the rules of a revision's query
parameters and headers (``ReferenceRevision.parameters``) and answers with the step number as
the revision types it: a package that needs either requires that release."""


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


@dataclass(frozen=True)
class IdempotencyKey:
    """The header carries the step's idempotency key (a resend with it returns its operation)."""


Rule: TypeAlias = Union[Group, Sets, Refused, NoEffect, IdempotencyKey]
"""What the reference does with a field or parameter set in a request."""


@dataclass(frozen=True)
class Parameter:
    """A query parameter or header of the served operation, and what the reference does with it
    where a request carries it: ``rule`` is :class:`NoEffect` (checked against ``type`` and
    ``values``, no local effect), :class:`IdempotencyKey` (a header) or :class:`Refused`.

    ``type`` is the JSON type of its schema (``"any"``: not checked), read from the text as the
    clients write it: a string as it is, a boolean as ``true`` or ``false``, a number as JSON
    writes it; ``values`` the values its enum allows."""

    location: Literal["query", "header"]
    name: str
    rule: Rule
    type: Literal["string", "integer", "number", "boolean", "any"] = "string"
    values: tuple[str | int | bool, ...] | None = None
