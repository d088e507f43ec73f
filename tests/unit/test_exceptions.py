"""Every error a generated package raises on purpose is one of the runtime's tree."""

from __future__ import annotations

import pytest

import together_rl_runtime
from support.packages import REVISIONS, load, models


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_package_exports_the_runtime_s_errors(revision):
    """The error tree is the runtime's (tested once, in runtime/tests): a revision's package
    exports those errors themselves, so ``except`` works across revisions."""
    package = load(revision)
    exported = [name for name in package.__all__ if name.endswith("Error")]
    assert "APIError" in exported
    for name in exported:
        error = getattr(package, name)
        assert error is getattr(together_rl_runtime, name)
        assert issubclass(error, package.APIError)


@pytest.mark.parametrize("revision", REVISIONS)
def test_model_errors_are_api_errors(revision):
    package, m = load(revision), models(revision)
    with pytest.raises(package.APIError):
        m.RLOptimStepBody.from_dict({"nope": 1})
    with pytest.raises(package.APIError):
        m.RLOptimStepBody.from_json("not json")
