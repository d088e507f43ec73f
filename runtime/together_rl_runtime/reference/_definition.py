"""What the local reference needs of one revision of the API, as its package defines it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._model import Model
from ..settings import Parameter, Rule

__all__ = ["ReferenceRevision"]


@dataclass(frozen=True)
class ReferenceRevision:
    """One revision's request fields, answers and paths, as its generated package settles them
    (``together_rl.reference._fields.REVISION``): the reference has no branch on which revision
    it is."""

    revision: str
    """The API revision (``SPEC_REVISION``)."""
    body: type[Model]
    """The request body of a step."""
    operation: type[Model]
    """The operation a step answers with: ``id``, ``status``, ``output`` and ``error``."""
    result: type[Model]
    """An operation's ``output``: the ``step`` number, written as the model's schema types it
    (the decimal string the API sends where it takes a string, else the integer)."""
    error: type[Model]
    """An operation's ``error``: ``code`` and ``message``."""
    succeeded: Any
    """The status of a completed operation."""
    failed: Any
    """The status of a failed one."""
    invalid_input: Any
    """The error code of a request the reference refuses."""
    internal_error: Any
    """The error code of a step that failed inside the reference."""
    non_finite: Any
    """The error code of a step refused for non-finite gradients."""
    rules: Mapping[str, Mapping[str, Rule]]
    """For each session kind (each optimizer of ``together_rl_runtime.optimizers``), the rule of
    every request field by JSON path."""
    defaults: Mapping[str, Mapping[str, float]]
    """For each session kind, the defaults the revision's document declares for settings: what a
    step uses where its request leaves the field out, in place of the session defaults."""
    submit: re.Pattern[str]
    """The raw path a step is submitted to."""
    retrieve: re.Pattern[str]
    """The raw path an operation is read from."""
    operation_id: str
    """The group of ``retrieve`` that holds the operation's id."""
    session_id: str
    """The group of ``submit`` and ``retrieve`` that holds the training session's id."""
    required_headers: tuple[str, ...]
    """The headers a step must carry."""
    known_fields: Mapping[str, Any]
    """The request body's fields, as a tree: nested objects map to their own fields."""
    parameters: tuple[Parameter, ...] = ()
    """The served operation's query parameters and headers, each with its rule (a revision
    whose package declares none has none: a request's query and headers then set nothing but
    the idempotency key)."""
