"""The settings of the local reference's optimizers as tables (each read from the registry of
optimizers, ``together_rl_runtime.optimizers``), the roles a request field can play, and the
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

from .optimizers import CLIP, REGISTRY, Range, Setting

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

OPTIMIZERS: tuple[str, ...] = tuple(REGISTRY)
"""The names of the optimizers, each a kind of session (``together_rl_runtime.optimizers``)."""


def _named() -> list[tuple[str, Setting]]:
    """Every setting with its name in :data:`SESSION_DEFAULTS`: ``<optimizer>.<setting>``, and
    ``clip`` alone."""
    named = [(f"{o.name}.{s.name}", s) for o in REGISTRY.values() for s in o.settings]
    return [*named, (CLIP.name, CLIP)]


SETTINGS: Mapping[str, frozenset[str]] = MappingProxyType(
    {o.name: frozenset({s.name for s in o.settings} | {CLIP.name}) for o in REGISTRY.values()}
)
"""Which settings a group of each optimizer's overrides may set (``clip`` is the step's gradient
clip value, whichever group sets it)."""

SETTING_KINDS: Mapping[str, Literal["number", "integer", "boolean"]] = MappingProxyType(
    {s.name: s.kind for _, s in _named() if s.kind != "number"}
)
"""The settings that are not any number: a boolean (a field that sets one must be a boolean), or
an integer (a number with an integral value: ``5`` or ``5.0``, never ``5.5``, which is refused
rather than truncated); every other setting is a number."""

SETTING_RANGES: Mapping[str, Range] = MappingProxyType(
    {s.name: s.range for _, s in _named() if s.range is not None}
)
"""The range of every number setting; a request or a default outside it is refused."""

SESSION_DEFAULTS: Mapping[str, float] = MappingProxyType({name: s.default for name, s in _named()})
"""What a step uses for a setting where neither its request nor its revision's document says,
by ``<optimizer>.<setting>`` (``clip`` alone)."""

SINCE: Mapping[str, str] = MappingProxyType(
    {name: s.since for name, s in _named() if s.since is not None}
)
"""The runtime release (``major.minor``) from which the reference applies a setting, for those
added after the major version's first release: a package whose fields set one requires that
release."""

GROUP_ROLES: Mapping[str, tuple[str, str | None]] = MappingProxyType(
    {
        **{o.name: (o.name, None) for o in REGISTRY.values()},
        **{f"{o.name}.{o.rest}": (o.rest, o.name) for o in REGISTRY.values() if o.rest},
    }
)
"""The roles of a group of overrides: whose settings it holds, and the group it belongs in
(``None``: the top level of the body). Each optimizer has a group at the top level, and the
optimizer that tunes the parameters another's filter leaves has one inside that one's."""

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
    """The value overrides these settings for the step: ``<optimizer>.<name>`` (a setting of the
    parameters that optimizer tunes, see :data:`SESSION_DEFAULTS`) or ``clip`` (the gradient
    clip value).

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
