"""What the reference answers with, built from its revision's response models as they type each
value, so that a revision that narrows or widens a response field is answered as it says."""

from __future__ import annotations

from typing import Any

from .._model import Model

__all__ = ["step_result"]


def step_result(model: type[Model], step: int) -> Any:
    """An operation's ``output`` for the step number ``step``: the decimal string the API's
    gateway sends (``"7"``) where the revision's schema takes a string (``oneOf[string,
    integer]`` included), else the integer (a revision that narrows the field to one). Where the
    schema takes neither (``generate`` warns of such a revision), the string, as received."""
    text = model.from_dict({"step": str(step)})
    if "step" not in getattr(text, "problems", {}):
        return text
    number = model.from_dict({"step": step})
    return text if "step" in getattr(number, "problems", {}) else number
