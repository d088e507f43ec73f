"""The generator's stages import one way: a stage uses the stages below it, never one above.

The floors, bottom up, are the shared leaves at the package root, then ``reading`` (documents to
the IR), ``changes`` (between revisions), ``views`` (what the templates render), ``output`` (files)
and ``release``; the commands sit on top. A newcomer can then read the folders in order, and a
change to a stage can only affect the stages above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support.paths import ROOT

GENERATOR = ROOT / "generator"
FLOORS = ("reading", "changes", "views", "output", "release")
"""The stage packages, bottom up."""
COMMANDS = ("cli", "stream", "project", "__main__")
"""The modules on top: the command line and the recipes it runs."""
LEAVES = ("errors", "pointer", "caching", "english", "literals", "findings")
"""The shared leaves at the root, which every stage may use."""


def _floor(module: str) -> int:
    """The floor of a module named ``generator.<...>``: 0 for a shared leaf at the root, the stage's
    place (1, 2, ...) for a stage package, and above every stage for the commands."""
    parts = module.split(".")[1:]
    if parts and parts[0] in FLOORS:
        return 1 + FLOORS.index(parts[0])
    if not parts or parts[0] in COMMANDS:
        return len(FLOORS) + 1
    return 0


def _module(path: Path) -> str:
    parts = path.relative_to(GENERATOR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``generator`` module ``path`` imports, absolute, with the line it is on."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "generator":
                continue
            if node.module is None or target in ("generator",) + tuple(
                f"generator.{f}" for f in FLOORS
            ):
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("generator.")]
    return found


SOURCES = sorted(GENERATOR.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(GENERATOR).as_posix())
def test_a_module_imports_only_its_own_floor_and_below(path: Path) -> None:
    own = _floor(_module(path))
    upward = [f"line {line}: {target}" for line, target in _imports(path) if _floor(target) > own]
    assert (
        not upward
    ), f"{path.relative_to(GENERATOR.parent)} imports from above its stage: {upward}"


def test_every_module_sits_on_a_floor() -> None:
    """A new module goes into a stage or is a shared leaf; the root holds no stray stages."""
    loose = sorted(
        p.name for p in GENERATOR.glob("*.py") if _floor(_module(p)) == 0 and p.stem not in LEAVES
    )
    assert (
        not loose
    ), f"modules at the generator's root that are neither a command nor a shared leaf: {loose}"
