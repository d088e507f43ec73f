"""Where a revision's optim-step request fields sit, for the generated local reference.

The reference optimizer (``../shared/reference-semantics.md``, "What each revision's request
fields mean") gives each request field a role: the group of Adam overrides, the group of Muon
overrides, the Adam overrides nested in the Muon group, a top-level learning rate or clip value.
This module finds those fields in a revision's request body by their names, and refuses a body
with a field it has no role for, so that a new revision cannot silently lose a setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import GeneratorError
from .pymodel import PyField, PyModel, PyModule

ADAM_GROUPS = ("adam_params", "adamw_params")
MUON_GROUP = "muon_params"
MUON_ADAM_GROUPS = ("adam", "adamw")
STEP_LEARNING_RATE = "learning_rate"
STEP_CLIP = "max_grad_norm"
WITHOUT_LOCAL_EFFECT = ("weight_sync_type",)
ADAM_FIELDS = frozenset(
    {"learning_rate", "lr", "beta1", "beta2", "eps", "weight_decay", "grad_clip_norm"}
)
MUON_FIELDS = frozenset(
    {"learning_rate", "lr", "momentum", "newton_schulz_steps", "weight_decay", "grad_clip_norm"}
)


@dataclass(frozen=True)
class ReferenceFields:
    """The JSON names of the request fields by role; ``None`` where the revision has none."""

    body_model: str
    adam_group: str | None
    muon_group: str | None
    muon_adam_group: str | None
    step_learning_rate: str | None
    step_clip: str | None
    non_finite_code: str
    """The error-code member for non-finite gradients: NON_FINITE_LOSS where the revision has it."""
    known_fields: dict[str, Any]
    """The body's field names as a tree (``None`` leaves), for ignoring unknown fields."""


class MissingSemanticsError(GeneratorError):
    """A request field the reference has no role for."""


def reference_fields(
    module: PyModule, body_model: str, error_codes: tuple[str, ...]
) -> ReferenceFields:
    body = module.model(body_model)
    groups: dict[str, str | None] = {
        "adam": None,
        "muon": None,
        "muon_adam": None,
        "lr": None,
        "clip": None,
    }
    for field in body.fields:
        if field.key in ADAM_GROUPS:
            _check_group(module, field.key, field, ADAM_FIELDS)
            groups["adam"] = field.key
        elif field.key == MUON_GROUP:
            muon = _model(module, field)
            for inner in muon.fields:
                if inner.key in MUON_ADAM_GROUPS:
                    _check_group(module, f"{field.key}.{inner.key}", inner, ADAM_FIELDS)
                    groups["muon_adam"] = inner.key
                elif inner.key not in MUON_FIELDS:
                    raise _no_role(f"{field.key}.{inner.key}")
            groups["muon"] = field.key
        elif field.key == STEP_LEARNING_RATE:
            groups["lr"] = field.key
        elif field.key == STEP_CLIP:
            groups["clip"] = field.key
        elif field.key not in WITHOUT_LOCAL_EFFECT:
            raise _no_role(field.key)
    code = next((c for c in error_codes if c.endswith("_NON_FINITE_LOSS")), None)
    code = code or next(c for c in error_codes if c.endswith("_INTERNAL_ERROR"))
    return ReferenceFields(
        body_model=body_model,
        adam_group=groups["adam"],
        muon_group=groups["muon"],
        muon_adam_group=groups["muon_adam"],
        step_learning_rate=groups["lr"],
        step_clip=groups["clip"],
        non_finite_code=code,
        known_fields=_tree(module, body),
    )


def _model(module: PyModule, field: PyField) -> PyModel:
    """The model a group field holds."""
    if field.model is None:
        raise _no_role(field.key)
    return module.model(field.model)


def _check_group(module: PyModule, path: str, group: PyField, allowed: frozenset[str]) -> None:
    """Every field of the group at ``path`` must be one the reference knows."""
    for inner in _model(module, group).fields:
        if inner.key not in allowed:
            raise _no_role(f"{path}.{inner.key}")


def _tree(module: PyModule, model: PyModel) -> dict[str, Any]:
    return {f.key: _tree(module, module.model(f.model)) if f.model else None for f in model.fields}


def _no_role(path: str) -> GeneratorError:
    return MissingSemanticsError(
        f"the request field `{path}` has no role in the local reference; "
        "describe it in reference-semantics and in generator/reference.py"
    )


@dataclass(frozen=True)
class Routes:
    """Regular expressions of the submit and retrieve paths, matched against raw request paths."""

    submit: str
    retrieve: str
    id_parameter: str


def routes(submit_path: str, retrieve_path: str, id_parameter: str) -> Routes:
    return Routes(_path_pattern(submit_path), _path_pattern(retrieve_path), id_parameter)


def _path_pattern(path: str) -> str:
    """``/a/{b}/c`` as ``(?:.*)/a/(?P<b>[^/]+)/c``: any prefix (``/v1``), one segment per parameter."""
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path))
    return "(?:.*)" + pattern
