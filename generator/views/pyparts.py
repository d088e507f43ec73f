"""``models.py`` in several modules, for documents with many schemas.

A document of thousands of schemas would make one ``models.py`` of tens of megabytes: Python
needs gigabytes to compile a module that size, and every import of the package would pay it at
once. Beyond :data:`CLASSES_PER_MODULE` classes, the classes go into modules
``_models_001.py``, ``_models_002.py``, ... and ``models.py`` re-exports them, so code that
imports from ``models`` is the same either way.

A module imports the classes it names from the modules before it, never after: classes that
name each other (directly, or round a longer cycle) stay in one module, and the groups of such
classes are laid out dependencies first.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cycles import strongly_connected
from .pymodel import PyAlias, PyEnum, PyModel, PyModule

CLASSES_PER_MODULE = 1000
"""The most enums, models and aliases ``models.py`` holds itself; more are split into modules
of about this many (more where one group of classes that name each other is larger)."""

_Definition = PyEnum | PyModel | PyAlias


@dataclass(frozen=True)
class PyModelsPart:
    """One module of a split ``models.py``: what it defines, and what it imports from the
    modules before it."""

    number: str
    """The module's number, as its name holds it (``001``)."""
    module: PyModule
    """The enums, models and aliases it defines (``module.parts`` is empty)."""
    imports: tuple[tuple[str, tuple[str, ...]], ...]
    """``(module name, classes)`` for each earlier module it names classes of, in order."""

    @property
    def name(self) -> str:
        """The module's name in the package (``_models_001``)."""
        return _module_name(self.number)


def _module_name(number: str) -> str:
    return f"_models_{number}"


def split_models(module: PyModule, size: int | None = None) -> tuple[PyModelsPart, ...]:
    """The modules ``models.py`` is split into; none where it holds at most ``size`` classes
    (default :data:`CLASSES_PER_MODULE`)."""
    size = CLASSES_PER_MODULE if size is None else size
    definitions: list[_Definition] = [*module.models, *module.aliases, *module.enums]
    if len(definitions) <= size:
        return ()
    edges = {d.name: _names(d) for d in definitions}
    calls = {d.name: _functions(d) for d in definitions}
    chunks: list[list[str]] = [[]]
    for group in strongly_connected(edges):
        if chunks[-1] and len(chunks[-1]) + len(group) > size:
            chunks.append([])
        chunks[-1].extend(group)
    home = {name: index for index, chunk in enumerate(chunks) for name in chunk}
    for alias in module.aliases:  # a recursive alias's reader and writer are beside it
        home.update(dict.fromkeys(alias.functions, home[alias.name]) if alias.recursive else {})
    width = max(3, len(str(len(chunks))))
    numbers = [f"{index + 1:0{width}d}" for index in range(len(chunks))]
    parts = []
    for index, chunk in enumerate(chunks):
        members = set(chunk)
        needed: dict[int, set[str]] = {}
        for name in chunk:
            for other in edges[name] | calls[name]:
                if home[other] != index:
                    needed.setdefault(home[other], set()).add(other)
        parts.append(
            PyModelsPart(
                number=numbers[index],
                module=PyModule(
                    enums=tuple(e for e in module.enums if e.name in members),
                    models=tuple(m for m in module.models if m.name in members),
                    aliases=tuple(a for a in module.aliases if a.name in members),
                ),
                imports=tuple(
                    (_module_name(numbers[i]), tuple(sorted(needed[i]))) for i in sorted(needed)
                ),
            )
        )
    return tuple(parts)


def _names(definition: _Definition) -> frozenset[str]:
    """The enums, models and aliases a definition names (in its fields' types, or as an
    alias)."""
    if isinstance(definition, PyModel):
        return frozenset().union(*(f.type.classes for f in definition.fields))
    if isinstance(definition, PyAlias):
        return definition.type.classes
    return frozenset()


def _functions(definition: _Definition) -> frozenset[str]:
    """The readers and writers of recursive aliases that a definition's own readers and writers
    call (they live beside their alias)."""
    if isinstance(definition, PyModel):
        return frozenset().union(*(f.type.functions for f in definition.fields))
    if isinstance(definition, PyAlias) and definition.recursive:
        return definition.type.functions
    return frozenset()
