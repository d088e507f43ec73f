"""The generated package of every revision passes ``mypy --strict``, as its users' type checkers
see it (its models' behaviour: tests/unit/test_models.py)."""

from __future__ import annotations

import pytest

from support.packages import GENERATED, REVISIONS
from support.typecheck import mypy_strict


@pytest.mark.parametrize("revision", REVISIONS)
def test_mypy_strict_passes_on_the_generated_package(revision, mypy_cache):
    result = mypy_strict(GENERATED / revision, "together_rl", cache=mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr
