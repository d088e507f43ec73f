"""Arbitrary JSON values (a hypothesis strategy), with the keys a request or an answer of the API
holds among them, and what a revision's models do with any of them."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from support.packages import load, models

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**500), max_value=10**500)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["adam_params", "muon_params", "beta1", "adam", "step", "id", "status"])
        | st.text(max_size=6),
        inner,
        max_size=4,
    ),
    max_leaves=20,
)
"""JSON values of every kind, nested: numbers of hundreds of digits, NaN and infinities, the
API's own keys and random ones."""


def models_raise_only_validation_errors(revision_id: str, value: Any) -> None:
    """The request body's and the operation's models of ``revision_id`` read ``value`` and write
    it back, or raise the package's ``ValidationError``: no other exception."""
    package, m = load(revision_id), models(revision_id)
    for model in (m.RLOptimStepBody, m.RLOptimStepOperation):
        try:
            model.from_dict(value).to_json()
        except package.ValidationError:
            pass
