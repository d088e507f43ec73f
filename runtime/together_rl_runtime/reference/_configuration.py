"""What a session is made with, checked: its optimizer, the options the registry's optimizers
declare (their choices and filters), and its session defaults.

A session of an optimizer takes its settings' defaults by name (``learning_rate=...``), those of
the optimizer that tunes the parameters its filter leaves prefixed with that one's name
(``<rest>_<setting>``), and the clip value as ``grad_clip_norm``. A default takes the place of
the one the revision's document declares for the field, which takes the place of the registry's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._exceptions import ConfigurationError
from ..optimizers import CLIP, REGISTRY, Optimizer, choices, runs
from ..settings import OPTIMIZERS, SETTING_KINDS
from ._optimizers import Filter
from ._overrides import SessionDefaults, problem

__all__ = ["CLIP_DEFAULT", "Configuration", "configure"]

CLIP_DEFAULT = "grad_clip_norm"
"""The keyword of a session's default clip value."""


@dataclass(frozen=True)
class Configuration:
    """A session's optimizer, options and defaults, checked."""

    optimizer: Optimizer
    options: Mapping[str, Any]
    """The value of every optimizer's choice, by keyword (its default where not given)."""
    chosen: Filter | None
    """The filter given to a session of an optimizer that has one (``None``: the algorithm's)."""
    defaults: SessionDefaults


def configure(
    optimizer: str, given: Mapping[str, Any], declared: Mapping[str, Mapping[str, float]]
) -> Configuration:
    """Check what a session of ``optimizer`` is made with: ``given`` are its keyword arguments
    (options and session defaults), ``declared`` the revision's declared defaults of each
    session kind (``ReferenceRevision.defaults``). Raises ConfigurationError naming what is
    wrong."""
    if optimizer not in OPTIMIZERS:
        raise ConfigurationError(f"optimizer must be {_either(OPTIMIZERS)}, got {optimizer!r}")
    entry = REGISTRY[optimizer]
    rest = dict(given)
    options: dict[str, Any] = {}
    for choice in choices():
        value = rest.pop(choice.keyword, choice.default)
        if value not in choice.values:
            raise ConfigurationError(
                f"{choice.keyword} must be {_either(choice.values)}, got {value!r}"
            )
        options[choice.keyword] = value
    chosen: Filter | None = None
    for other in REGISTRY.values():
        found = None if other.filter is None else rest.pop(other.filter, None)
        if found is None:
            continue
        if other is not entry:
            raise ConfigurationError(f"{other.filter} is for {other.title} sessions")
        chosen = found
    defaults = _session_defaults(entry, declared[optimizer], rest)
    return Configuration(entry, options, chosen, defaults)


def _session_defaults(
    optimizer: Optimizer, declared: Mapping[str, float], given: Mapping[str, Any]
) -> SessionDefaults:
    tables = {name: dict(o.defaults) for name, o in REGISTRY.items()}
    clip = CLIP.default
    for setting, value in declared.items():  # what the revision's document declares
        group, _, name = setting.rpartition(".")
        if group in tables:
            tables[group][name] = value
        else:
            clip = value
    for key, value in given.items():
        table: dict[str, float] | None
        table, name = (None, CLIP.name) if key == CLIP_DEFAULT else _table(optimizer, tables, key)
        if table is not None and name not in table:
            raise ConfigurationError(f"unknown session default {key!r} for {optimizer.a_session}")
        if SETTING_KINDS.get(name) == "boolean":
            if not isinstance(value, bool):
                raise ConfigurationError(
                    f"session default {key} must be True or False, got {value!r}"
                )
        elif (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ConfigurationError(
                f"session default {key} must be a finite number, got {value!r}"
            )
        else:
            refused = problem(name, value)
            if refused:
                raise ConfigurationError(f"session default {key} {refused}, got {value!r}")
        if table is None:
            clip = value
        else:
            table[name] = value
    return SessionDefaults(optimizers=tables, clip=clip)


def _table(
    optimizer: Optimizer, tables: dict[str, dict[str, float]], key: str
) -> tuple[dict[str, float], str]:
    """The defaults a session default ``key`` of a session of ``optimizer`` sets, and the
    setting's name in them."""
    for other in runs(optimizer)[1:]:
        if key.startswith(other.name + "_"):
            return tables[other.name], key.removeprefix(other.name + "_")
    return tables[optimizer.name], key


def _either(values: tuple[str, ...]) -> str:
    """``'a' or 'b'``."""
    return " or ".join(repr(value) for value in values)
