"""A step's settings: each field its request sets overrides the settings its rule names (checked
against their kinds and ranges), and every other setting falls back to the session's default."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .._model import Model, at
from ..settings import SETTING_KINDS, SETTING_RANGES, Group, Refused, Rule, Sets
from ._definition import ReferenceRevision

__all__ = ["InvalidInput", "SessionDefaults", "StepSettings", "problem", "step_settings"]


class InvalidInput(Exception):
    """A request field the reference refuses: its JSON path, its value and why."""

    def __init__(self, path: str, value: object, problem: str) -> None:
        super().__init__(f"{path or '(body)'}: {problem}, got {value!r}")


@dataclass(frozen=True)
class SessionDefaults:
    """What a step of a session uses for a setting its request leaves out."""

    optimizers: Mapping[str, Mapping[str, float]]
    """Every optimizer's settings, by optimizer and setting."""
    clip: float


@dataclass(frozen=True)
class StepSettings:
    """What one step uses, after per-step overrides fell back to the session defaults."""

    clip: float
    optimizers: Mapping[str, Mapping[str, float]]
    """Every optimizer's settings, by optimizer and setting."""

    def recorded(self) -> dict[str, Any]:
        """The settings as ``LocalSession.last_settings`` gives them: ``{"clip": ...,
        "<optimizer>": {...}, ...}``."""
        return {"clip": self.clip, **{name: dict(s) for name, s in self.optimizers.items()}}


@dataclass(frozen=True)
class _Choice:
    """A request field's value for a setting."""

    path: str
    value: float | bool
    fallback: bool


def step_settings(
    body: Model | Mapping[str, Any],
    revision: ReferenceRevision,
    optimizer: str,
    defaults: SessionDefaults,
) -> StepSettings:
    """Check the request of a step in a session of ``optimizer`` and resolve every setting of the
    step: each field set in the body overrides the settings its rule names, else the session
    default applies (ValidationError or :class:`InvalidInput` for a request refused)."""
    model = revision.body
    wire = body.to_dict() if isinstance(body, model) else model.from_dict(body).to_dict()
    chosen: dict[str, _Choice] = {}
    for path, value, rule in _fields_set(wire, revision.rules[optimizer], ""):
        if isinstance(rule, Refused):
            raise InvalidInput(path, value, rule.problem)
        if isinstance(rule, Sets):
            for setting in rule.settings:
                _choose(chosen, setting, _Choice(path, value, rule.fallback))
    values = {setting: choice.value for setting, choice in chosen.items()}
    return StepSettings(
        clip=values.get("clip", defaults.clip),
        optimizers={
            name: _overridden(settings, values, name + ".")
            for name, settings in defaults.optimizers.items()
        },
    )


def problem(name: str, value: float | bool) -> str | None:
    """Why a setting cannot take ``value``: outside its range, or not integral where the setting
    is an integer (``newton_schulz_steps`` 5.5 is refused, never truncated); ``None`` if it can."""
    if SETTING_KINDS.get(name) == "integer" and not float(value).is_integer():
        return "must be an integer"
    limits = SETTING_RANGES.get(name)
    return None if limits is None else limits.problem(value)


def _fields_set(
    data: Mapping[str, Any], rules: Mapping[str, Rule], prefix: str
) -> Iterator[tuple[str, Any, Rule]]:
    """Every field set in ``data`` but the groups, with its JSON path and rule (the fields of a
    group follow the group's own rule)."""
    for key, value in data.items():
        path = at(prefix, key)
        rule = rules[path]
        if isinstance(rule, Group):
            yield from _fields_set(value, rules, path)
        else:
            yield path, value, rule


def _choose(chosen: dict[str, _Choice], setting: str, choice: _Choice) -> None:
    """Record ``choice`` for ``setting``: it is checked against the setting's range, a group's
    value wins over a step-level one, and two values of the same standing must be equal."""
    name = setting.rpartition(".")[2]
    refused = problem(name, choice.value)
    if refused:
        raise InvalidInput(choice.path, choice.value, refused)
    earlier = chosen.get(setting)
    if earlier is None or (earlier.fallback and not choice.fallback):
        chosen[setting] = choice
    elif earlier.fallback == choice.fallback and earlier.value != choice.value:
        raise InvalidInput(
            choice.path,
            choice.value,
            f"differs from {earlier.path} ({earlier.value}); set one {name} value",
        )


def _overridden(
    defaults: Mapping[str, float], values: Mapping[str, float], prefix: str
) -> dict[str, float]:
    """The session defaults of one optimizer, with the step's values for it."""
    settings = dict(defaults)
    for setting, value in values.items():
        if setting.startswith(prefix):
            settings[setting.removeprefix(prefix)] = value
    return settings
