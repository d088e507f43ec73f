"""What generated Python must be, whatever the document: as black lays it out, and without
imports it does not use."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.output.formatting import format_sources


def assert_tidy(folder: Path) -> None:
    """Every Python file under ``folder`` is as the pinned black lays it out (the templates'
    layout, with black only where a statement came out too long) and uses what it imports."""
    files = sorted(folder.rglob("*.py"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    for file, text, (ok, black) in zip(files, texts, format_sources(texts)):
        name = file.relative_to(folder)
        assert ok and black == text, f"{name} is not as black lays it out"
        assert not unused_imports(text), f"{name} imports what it does not use"


def unused_imports(source: str) -> list[str]:
    """The names a module imports and never uses (``__all__`` counts as a use, and so does a
    name in a type alias written as a string; ``import x as x`` is a re-export, and an import
    marked ``# noqa: F401`` is one made for its side effect)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    imported: dict[str, int] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Import | ast.ImportFrom)
            and getattr(node, "module", "") != ("__future__")
            and "noqa: F401" not in lines[node.lineno - 1]
        ):
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name:
                    continue  # a re-export
                name = (alias.asname or alias.name).split(".")[0]
                imported[name] = node.lineno
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for node in ast.walk(tree):  # a type alias written as a string names what it holds (pyflakes)
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id == "TypeAlias"
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            alias = ast.parse(node.value.value, mode="eval")
            used |= {n.id for n in ast.walk(alias) if isinstance(n, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            used |= {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)}
    return [f"line {line}: {name}" for name, line in imported.items() if name not in used]


def recorded_texts(monkeypatch: Any, function: str) -> list[str]:
    """The texts each later call of ``generator.output.formatting``'s ``function`` (a step that
    takes a list of texts) is given, in order; the step still runs."""
    from generator.output import formatting

    given: list[str] = []
    step = getattr(formatting, function)

    def recording(sources: Sequence[str]) -> list[tuple[bool, str]]:
        given.extend(sources)
        return list(step(sources))

    monkeypatch.setattr(formatting, function, recording)
    return given
