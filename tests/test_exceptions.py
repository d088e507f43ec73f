"""One root for every error a generated package raises on purpose, drawn in its docstring."""

from __future__ import annotations

import re

import pytest
from packages import REVISIONS, load, models


def drawn_tree(module) -> list[tuple[int, str]]:
    """``(depth, class name)`` for each class of the tree in the module's docstring."""
    entries = []
    for line in module.__doc__.splitlines():
        match = re.match(r"^(    )?((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\b", line)
        if match and match.group(3).endswith("Error"):
            depth = len(match.group(2)) // 4 + (1 if "── " in line else 0)
            entries.append((depth, match.group(3)))
    return entries


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_drawn_tree_is_the_class_tree(revision):
    package = load(revision)
    exceptions = __import__(f"together_rl_{revision}._exceptions", fromlist=["APIError"])
    tree = drawn_tree(exceptions)
    assert tree[0] == (0, "APIError")
    drawn = {name for _, name in tree}
    raised = {
        name
        for name in exceptions.__all__
        if isinstance(getattr(exceptions, name), type)
        and issubclass(getattr(exceptions, name), BaseException)
    }
    assert drawn == raised
    parents: list[str] = []
    for depth, name in tree:
        parents[depth:] = [name]
        cls = getattr(exceptions, name)
        if depth:
            assert cls.__bases__[0] is getattr(exceptions, parents[depth - 1]), name
    assert all(getattr(package, name) is getattr(exceptions, name) for name in drawn)


@pytest.mark.parametrize("revision", REVISIONS)
def test_model_errors_are_api_errors(revision):
    package, m = load(revision), models(revision)
    with pytest.raises(package.APIError):
        m.RLOptimStepBody.from_dict({"nope": 1})
    with pytest.raises(package.APIError):
        m.RLOptimStepBody.from_json("not json")
