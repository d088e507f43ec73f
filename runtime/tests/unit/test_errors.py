"""One root for every error a generated package raises on purpose, drawn in the runtime's
docstring of the error tree."""

from __future__ import annotations

import re

from together_rl_runtime import _exceptions


def drawn_tree(module) -> list[tuple[int, str]]:
    """``(depth, class name)`` for each class of the tree in the module's docstring."""
    entries = []
    for line in module.__doc__.splitlines():
        match = re.match(r"^(    )?((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\b", line)
        if match and match.group(3).endswith("Error"):
            depth = len(match.group(2)) // 4 + (1 if "── " in line else 0)
            entries.append((depth, match.group(3)))
    return entries


def test_the_drawn_tree_is_the_class_tree():
    tree = drawn_tree(_exceptions)
    assert tree[0] == (0, "APIError")
    drawn = {name for _, name in tree}
    raised = {
        name
        for name in _exceptions.__all__
        if isinstance(getattr(_exceptions, name), type)
        and issubclass(getattr(_exceptions, name), BaseException)
    }
    assert drawn == raised
    parents: list[str] = []
    for depth, name in tree:
        parents[depth:] = [name]
        cls = getattr(_exceptions, name)
        if depth:
            assert cls.__bases__[0] is getattr(_exceptions, parents[depth - 1]), name
