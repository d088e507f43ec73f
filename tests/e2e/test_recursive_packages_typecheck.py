"""The package of a document whose schemas refer to themselves through every keyword that nests a
schema passes ``mypy --strict``, in one ``models.py`` and split into modules, and so does code
that builds nested values of its recursive types."""

from __future__ import annotations

import pytest

from generator.views import pyparts
from support.recursive import every_case
from support.rendered import write_package
from support.typecheck import mypy_strict

USAGE = """\
from {name}.models import Forest, Holder, Json, Lists, Nodes, NodesItem, Tree

tree: Tree = {{"a": {{"b": {{}}}}}}
lists: Lists = [[], [[]]]
nodes: Nodes = [NodesItem(recursive=[NodesItem()])]
json_value: Json = {{"a": [1.5, "x", None, {{"b": None}}]}}
forest: Forest = {{"a": {{}}}}
holder = Holder(additional_properties=tree, items=lists, inline_object_in_items=nodes)
again: Holder = Holder.from_dict(holder.to_dict())
"""


@pytest.mark.parametrize("split", [False, True], ids=["one_module", "split"])
def test_recursive_types_pass_mypy_strict(tmp_path, monkeypatch, mypy_cache, split):
    if split:
        monkeypatch.setattr(pyparts, "CLASSES_PER_MODULE", 3)
    name = f"recursive_{'split' if split else 'one'}"
    raw, _, _ = every_case()
    write_package(tmp_path, raw, name)
    assert bool(list((tmp_path / name).glob("_models_*.py"))) == split
    (tmp_path / "usage.py").write_text(USAGE.format(name=name))
    typed = mypy_strict(tmp_path, name, "usage.py", cache=mypy_cache)
    assert typed.returncode == 0, typed.stdout[-3000:]
