"""Describe the surface of a runtime's folder, run as a script in a process of its own:
``python -P probe.py RUNTIME_DIR REQUEST``, which prints the surface as JSON.

A process of its own, so that any version of the runtime can be described (one exported from the
repository's history as well as this checkout's), and so that the generator never imports the
local reference's torch. It imports nothing of the generator: ``REQUEST`` (JSON) says what to
describe, ``{"modules": [[MODULE, SELECTION], ...], "members": {NAME: [MEMBER, ...]}}``, where a
module's selection is ``"__all__"`` (every name of its ``__all__``), ``"classes"`` (the classes
among them) or a list of names, and ``members`` names, for a class, the members with a leading
underscore that generated code uses of it. A name (or a module) the runtime lacks is not in its
surface.

The surface maps each name, qualified (``together_rl_runtime.wire``), to what generated code
relies on, written as :mod:`generator.release.surface` reads it: ``function (SIGNATURE)``,
``value TYPE``, or for a class a mapping with its ``bases`` (the runtime's public classes and
the builtins it derives from), its ``constructor`` (``(SIGNATURE)``, where the runtime defines
it) and its ``members`` (public ones, the protocols' dunders and the declared ones, each
``method (SIGNATURE)``, ``classmethod (SIGNATURE)``, ``staticmethod (SIGNATURE)`` or
``attribute``). A signature holds its parameters' names, kinds (``/``, ``*``, ``*args``,
``**kwargs`` as Python writes them) and whether they have a default (``=...``): no annotation
and no default's value, so that it depends on the runtime's code alone.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import json
import sys
import warnings
from pathlib import Path
from typing import Any

_PROTOCOLS = frozenset(
    {
        "__call__", "__enter__", "__exit__", "__aenter__", "__aexit__", "__iter__",
        "__aiter__", "__next__", "__anext__", "__len__", "__getitem__", "__contains__",
    }
)  # fmt: skip
"""The dunders of the protocols a user relies on (``with client:``, iterating a stream)."""


def main(argv: list[str]) -> int:
    folder, request = Path(argv[1]).resolve(), json.loads(argv[2])
    sys.path.insert(0, str(folder))
    root = request["modules"][0][0].partition(".")[0]
    modules = []
    for name, selection in request["modules"]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # what an import warns of is not the surface
                modules.append((importlib.import_module(name), selection))
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            # a module the runtime lacks has no names in its surface
    where = Path(inspect.getfile(importlib.import_module(root))).resolve()
    if folder not in where.parents:
        print(f"{root} was imported from {where}, not from {folder}", file=sys.stderr)
        return 1
    members = request["members"]
    surface: dict[str, Any] = {}
    for module, selection in modules:
        for name in _selected(module, selection):
            qualified = f"{module.__name__}.{name}"
            surface[qualified] = _describe(getattr(module, name), root, members.get(qualified, ()))
    print(json.dumps(dict(sorted(surface.items()))))
    return 0


def _selected(module: Any, selection: str | list[str]) -> list[str]:
    """The names of ``module`` that ``selection`` picks and the module has."""
    if isinstance(selection, list):
        return [name for name in selection if hasattr(module, name)]
    names = [name for name in getattr(module, "__all__", ()) if hasattr(module, name)]
    if selection == "classes":
        return [name for name in names if inspect.isclass(getattr(module, name))]
    return names


def _describe(value: object, root: str, declared: list[str]) -> object:
    if inspect.isclass(value):
        return _class(value, root, set(declared))
    if callable(value):
        return f"function {_signature(value)}"
    return f"value {_type_name(type(value), root)}"


def _own(cls: type, root: str) -> bool:
    """Whether ``cls`` is the runtime's."""
    return cls.__module__.partition(".")[0] == root


def _type_name(cls: type, root: str) -> str:
    """A type as the surface names it: the runtime's and the builtins by their name, any other
    by its module and name."""
    if _own(cls, root) or cls.__module__ == builtins.__name__:
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _class(cls: type, root: str, declared: set[str]) -> dict[str, object]:
    """A class's bases, constructor and members, as the runtime defines them: what a class it
    derives from outside the runtime defines is that library's, not the runtime's surface."""
    bases = [
        base.__qualname__
        for base in cls.__mro__[1:]
        if base is not object
        and (
            (_own(base, root) and not base.__name__.startswith("_"))
            or base.__module__ == builtins.__name__
        )
    ]
    described: dict[str, object] = {"bases": bases}
    maker = next(c for c in cls.__mro__ if "__init__" in vars(c) or "__new__" in vars(c))
    constructor = _function(vars(maker).get("__init__", vars(maker).get("__new__")))
    if getattr(constructor, "__module__", "").partition(".")[0] == root:
        described["constructor"] = _signature(constructor)
    members: dict[str, str] = {}
    for owner in cls.__mro__:
        if not _own(owner, root):
            continue
        names = [*vars(owner), *inspect.get_annotations(owner)]
        for name in names:
            if name in members or not _member(name, declared):
                continue
            members[name] = _member_text(inspect.getattr_static(owner, name, None))
    if members:
        described["members"] = dict(sorted(members.items()))
    return described


def _member(name: str, declared: set[str]) -> bool:
    """Whether a member is part of a class's surface: public, a protocol's, or declared."""
    return not name.startswith("_") or name in _PROTOCOLS or name in declared


def _member_text(member: object) -> str:
    if isinstance(member, classmethod):
        return f"classmethod {_signature(member.__func__)}"
    if isinstance(member, staticmethod):
        return f"staticmethod {_signature(member.__func__)}"
    if inspect.isfunction(member):
        return f"method {_signature(member)}"
    return "attribute"  # a property, a class attribute, an annotated field


def _function(member: object) -> Any:
    return member.__func__ if isinstance(member, (classmethod, staticmethod)) else member


def _signature(function: Any) -> str:
    """``(self, request, /, *, resendable=...)``: each parameter's name, kind and whether it has
    a default."""
    parts: list[str] = []
    previous = None
    for parameter in inspect.signature(function).parameters.values():
        kind = parameter.kind
        if previous is inspect.Parameter.POSITIONAL_ONLY and kind is not previous:
            parts.append("/")
        if kind is inspect.Parameter.KEYWORD_ONLY and previous not in (
            inspect.Parameter.KEYWORD_ONLY,
            inspect.Parameter.VAR_POSITIONAL,
        ):
            parts.append("*")
        if kind is inspect.Parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
        elif kind is inspect.Parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        else:
            default = parameter.default is not inspect.Parameter.empty
            parts.append(f"{parameter.name}=..." if default else parameter.name)
        previous = kind
    if previous is inspect.Parameter.POSITIONAL_ONLY:
        parts.append("/")
    return f"({', '.join(parts)})"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
