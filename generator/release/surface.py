"""The runtime's surface: what revision packages use of it, as each of its releases had it
(``spec/runtime-surface.yaml``), and what a release of the same major version must keep.

The surface of a runtime is read from its code by :mod:`generator.release.probe`, in a process of
its own: the names of :data:`~generator.reading.runtime.SURFACE_MODULES`, each a ``function``
with its signature, a ``value`` with its type, or a class with its bases, its constructor and its
members (see the probe for how each is written). ``release`` records the surface of a runtime
version as it records that version, and refuses a minor or patch release whose surface breaks
the one before: a name removed, a class no longer derived from a base, a member removed, a
parameter removed, renamed, made positional or keyword only or required, a required parameter
added, a value of another type. Names, members and optional parameters may be added.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ..caching import digest
from ..pointer import join
from ..reading import runtime
from ..reading.loader import dump_yaml, load_yaml
from .records import ReleasesError

SURFACE_FILE = "runtime-surface.yaml"
PROBE = Path(__file__).with_name("probe.py")

_HEADER = """\
# The surface of each released version of the runtime (together-rl-runtime): the names revision
# packages use of it, with their signatures, as `generator/release/probe.py` reads them. Written by
# `python -m generator release` as it records a runtime version; it refuses a minor or patch
# release that removes or changes anything of the surface of the release before it (see
# runtime/README.md, "Compatibility").
"""

Item = str | dict[str, object]
"""What the surface holds of one name: ``function (SIGNATURE)``, ``value TYPE``, or a class's
``bases``, ``constructor`` and ``members``."""
Surface = Mapping[str, Item]

_KINDS = inspect.Parameter
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CALLABLES = ("function", "method", "classmethod", "staticmethod")


class SurfaceError(ReleasesError):
    """The surface record is malformed, a runtime's surface cannot be read, or a release would
    break the surface of the release before it."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a signature, as the surface holds it."""

    name: str
    kind: inspect._ParameterKind
    default: bool


def parameters(text: str) -> tuple[Parameter, ...]:
    """The parameters of a signature as the probe writes it (``(self, request, /, *,
    resendable=...)``); ValueError where it is not one."""
    if not (text.startswith("(") and text.endswith(")")):
        raise ValueError(f"expected a signature in parentheses, got {text!r}")
    found: list[Parameter] = []
    kind: inspect._ParameterKind = _KINDS.POSITIONAL_OR_KEYWORD
    for token in text[1:-1].split(", ") if text != "()" else []:
        if token == "/":
            if (
                kind is not _KINDS.POSITIONAL_OR_KEYWORD
                or not found
                or any(p.kind is _KINDS.POSITIONAL_ONLY for p in found)
            ):
                raise ValueError(f"a misplaced `/` in {text!r}")
            found = [Parameter(p.name, _KINDS.POSITIONAL_ONLY, p.default) for p in found]
            continue
        if token == "*" or (token.startswith("*") and not token.startswith("**")):
            if kind is not _KINDS.POSITIONAL_OR_KEYWORD:
                raise ValueError(f"a second `*` in {text!r}")
            kind = _KINDS.KEYWORD_ONLY
            if token == "*":
                continue
            found.append(Parameter(_name(token[1:], text), _KINDS.VAR_POSITIONAL, False))
            continue
        if token.startswith("**"):
            found.append(Parameter(_name(token[2:], text), _KINDS.VAR_KEYWORD, False))
            kind = _KINDS.VAR_KEYWORD
            continue
        if kind is _KINDS.VAR_KEYWORD:
            raise ValueError(f"a parameter after `**` in {text!r}")
        name, default = token.removesuffix("=..."), token.endswith("=...")
        found.append(Parameter(_name(name, text), kind, default))
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        raise ValueError(f"a parameter named twice in {text!r}")
    return tuple(found)


def _name(name: str, text: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a parameter's name, in {text!r}")
    return name


def signature_break(old: str, new: str) -> str | None:
    """Why a call that the signature ``old`` takes fails with ``new``, or ``None`` where every
    one still binds: each parameter keeps its name, its place where it was positional and its
    default where it had one, and each new parameter has a default. A keyword parameter that
    ``new`` takes in its ``**kwargs`` still binds."""
    was, now = parameters(old), parameters(new)
    by_name = {p.name: p for p in now if p.kind not in (_KINDS.VAR_POSITIONAL, _KINDS.VAR_KEYWORD)}
    kinds = {p.kind for p in now}
    positional = (_KINDS.POSITIONAL_ONLY, _KINDS.POSITIONAL_OR_KEYWORD)
    keyword = (_KINDS.POSITIONAL_OR_KEYWORD, _KINDS.KEYWORD_ONLY)
    places = [p for p in now if p.kind in positional]
    covered: set[str] = set()
    for place, p in enumerate(q for q in was if q.kind in positional):
        if place >= len(places):
            if _KINDS.VAR_POSITIONAL in kinds:
                continue  # taken in *args
            if p.name in by_name or _KINDS.VAR_KEYWORD in kinds:
                return f"`{p.name}` can no longer be passed by position"
            return f"`{p.name}` is no longer a parameter"
        q = places[place]
        covered.add(q.name)
        if p.kind is _KINDS.POSITIONAL_OR_KEYWORD and q.name != p.name:
            return f"the parameter at `{p.name}`'s place is `{q.name}`"
        if p.default and not q.default:
            return f"`{q.name}` lost its default"
    for p in was:
        if p.kind not in keyword:
            continue
        named = by_name.get(p.name)
        if named is None and _KINDS.VAR_KEYWORD in kinds:
            continue  # taken in **kwargs
        if named is None:
            return f"`{p.name}` is no longer a parameter"
        if named.kind not in keyword:
            return f"`{p.name}` can no longer be passed by name"
        covered.add(named.name)
        if p.default and not named.default:
            return f"`{p.name}` lost its default"
    for star in (_KINDS.VAR_POSITIONAL, _KINDS.VAR_KEYWORD):
        if any(p.kind is star for p in was) and star not in kinds:
            return f"it no longer takes {'*args' if star is _KINDS.VAR_POSITIONAL else '**kwargs'}"
    required = [
        p.name
        for p in now
        if p.kind in (*positional, _KINDS.KEYWORD_ONLY) and not p.default and p.name not in covered
    ]
    return f"`{required[0]}` is a new parameter without a default" if required else None


@dataclass(frozen=True)
class Difference:
    """What a release changes of one name of the surface before it, breaking it."""

    name: str
    old: str
    new: str
    why: str

    def __str__(self) -> str:
        return f"  {self.name}: {self.old} -> {self.new} ({self.why})"


def breaks(old: Surface, new: Surface) -> list[Difference]:
    """Everything of ``old`` that ``new`` removes or changes so that a package using it as it was
    fails, by name."""
    found: list[Difference] = []
    why: str | None
    for name, was in sorted(old.items()):
        now = new.get(name)
        if now is None:
            found.append(Difference(name, _text(was), "(removed)", "removed"))
        elif isinstance(was, dict) and isinstance(now, dict):
            found += _class_breaks(name, was, now)
        elif isinstance(was, dict) or isinstance(now, dict):
            why = "no longer a class" if isinstance(was, dict) else "now a class"
            found.append(Difference(name, _text(was), _text(now), why))
        else:
            why = _item_break(was, now, exact=False)
            if why is not None:
                found.append(Difference(name, was, now, why))
    return found


def _class_breaks(name: str, was: dict[str, object], now: dict[str, object]) -> list[Difference]:
    found: list[Difference] = []
    why: str | None
    lost = [base for base in _list(was, "bases") if base not in _list(now, "bases")]
    if lost:
        why = f"no longer derives from {', '.join(lost)}"
        found.append(Difference(name, _text(was), _text(now), why))
    old_constructor, new_constructor = was.get("constructor"), now.get("constructor")
    if isinstance(old_constructor, str):
        if not isinstance(new_constructor, str):
            why = "its constructor is no longer the runtime's"
            found.append(Difference(name, old_constructor, "(inherited)", why))
        else:
            why = signature_break(old_constructor, new_constructor)
            if why is not None:
                found.append(Difference(name, old_constructor, new_constructor, why))
    old_members, new_members = _mapping(was, "members"), _mapping(now, "members")
    exact = runtime.OVERRIDDEN.get(name, frozenset())
    for member, item in sorted(old_members.items()):
        qualified = f"{name}.{member}"
        if member not in new_members:
            found.append(Difference(qualified, item, "(removed)", "removed"))
            continue
        why = _item_break(item, new_members[member], exact=member in exact)
        if why is not None:
            found.append(Difference(qualified, item, new_members[member], why))
    return found


def _item_break(old: str, new: str, *, exact: bool) -> str | None:
    """Why the item ``new`` (a function, value, method or attribute) breaks ``old``."""
    old_kind, _, old_detail = old.partition(" ")
    new_kind, _, new_detail = new.partition(" ")
    if old_kind != new_kind:
        return f"a {old_kind} before, now a {new_kind}"
    if old_kind == "value":
        return None if old_detail == new_detail else "a value of another type"
    if old_kind == "attribute" or old_detail == new_detail:
        return None
    if exact:
        return "generated classes define this method again: its parameters stay as they are"
    return signature_break(old_detail, new_detail)


def _text(item: Item) -> str:
    if isinstance(item, str):
        return item
    return f"class ({', '.join(_list(item, 'bases')) or 'no bases'})"


def _list(item: dict[str, object], key: str) -> list[str]:
    value = item.get(key, [])
    return value if isinstance(value, list) else []


def _mapping(item: dict[str, object], key: str) -> dict[str, str]:
    value = item.get(key, {})
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Surfaces:
    """The surface of each released runtime version the record holds, by version."""

    source: Path
    by_version: Mapping[str, Surface]

    def get(self, version: str) -> Surface | None:
        return self.by_version.get(version)

    def with_surface(self, version: str, surface: Surface) -> Surfaces:
        return Surfaces(self.source, {**self.by_version, version: surface})

    def write(self) -> None:
        """Write the record, versions in their order and names sorted (replaced with a rename,
        never half written)."""
        from ..reading.revisions import write_atomically

        data = {
            version: {name: _sorted(item) for name, item in sorted(surface.items())}
            for version, surface in sorted(self.by_version.items(), key=lambda v: Version(v[0]))
        }
        write_atomically(self.source, _HEADER + "\n" + dump_yaml(data))


def _sorted(item: Item) -> Item:
    if isinstance(item, str):
        return item
    ordered: dict[str, object] = {
        key: item[key] for key in ("bases", "constructor", "members") if key in item
    }
    if "members" in ordered:
        ordered["members"] = dict(sorted(_mapping(item, "members").items()))
    return ordered


def load_surfaces(spec_dir: Path) -> Surfaces:
    """Read and check ``spec_dir/runtime-surface.yaml`` (no surface recorded where it is
    missing)."""
    path = spec_dir / SURFACE_FILE
    if not path.is_file():
        return Surfaces(path, {})
    raw = load_yaml(path)
    if raw is None:
        return Surfaces(path, {})
    if not isinstance(raw, dict):
        raise SurfaceError(f"{path}#/: expected a mapping of runtime versions to their surfaces")
    by_version: dict[str, Surface] = {}
    for version, surface in raw.items():
        at = f"{path}#{join('', str(version))}"
        if not isinstance(version, str) or not _is_version(version):
            raise SurfaceError(f"{at}: expected a runtime version (such as 1.2.0) as the key")
        if not isinstance(surface, dict):
            raise SurfaceError(f"{at}: expected a mapping of names to what they are")
        for name, item in surface.items():
            if not isinstance(name, str):
                raise SurfaceError(f"{at}: expected names as keys, got {name!r}")
            _check_item(item, f"{path}#{join(join('', version), name)}")
        by_version[version] = surface
    return Surfaces(path, by_version)


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _check_item(item: object, at: str) -> None:
    """Refuse an item of a surface that is not one, naming its place."""
    if isinstance(item, str):
        _check_text(item, at, ("function", "value"))
        return
    if not isinstance(item, dict) or not set(item) <= {"bases", "constructor", "members"}:
        raise SurfaceError(
            f"{at}: expected `function (...)`, `value TYPE` or a class's bases, constructor "
            "and members"
        )
    bases = item.get("bases", [])
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise SurfaceError(f"{at}/bases: expected a list of class names")
    constructor = item.get("constructor")
    if constructor is not None:
        _check_signature(constructor, f"{at}/constructor")
    members = item.get("members", {})
    if not isinstance(members, dict):
        raise SurfaceError(f"{at}/members: expected a mapping of member names to what they are")
    for member, text in members.items():
        where = join(f"{at}/members", str(member))
        if not isinstance(member, str):
            raise SurfaceError(f"{where}: expected a member's name")
        _check_text(text, where, ("method", "classmethod", "staticmethod", "attribute"))


def _check_text(text: object, at: str, kinds: tuple[str, ...]) -> None:
    kind, _, detail = text.partition(" ") if isinstance(text, str) else ("", "", "")
    if kind not in kinds or (kind == "attribute") != (detail == ""):
        raise SurfaceError(f"{at}: expected one of {', '.join(kinds)}, got {text!r}")
    if kind in _CALLABLES:
        _check_signature(detail, at)


def _check_signature(text: object, at: str) -> None:
    try:
        if not isinstance(text, str):
            raise ValueError(f"expected a signature, got {text!r}")
        parameters(text)
    except ValueError as exc:
        raise SurfaceError(f"{at}: {exc}") from None


def describe(folder: Path = runtime.RUNTIME_DIR) -> dict[str, Item]:
    """The surface of the runtime whose project folder is ``folder`` (this checkout's by
    default), read by the probe in a process of its own (with torch: the local reference is
    part of it). Read once per content of the folder's package."""
    package = folder / runtime.IMPORT_NAME
    files = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    if not files:
        raise SurfaceError(f"no runtime package at {package}")
    content = digest(
        *(part for p in files for part in (p.relative_to(folder).as_posix(), p.read_bytes()))
    )
    surface: dict[str, Item] = json.loads(_probe(str(folder.resolve()), content))
    return surface


@cache
def _probe(folder: str, content: str) -> str:
    """The probe's answer (JSON) for ``folder``, whose package's files have the digest
    ``content``."""
    request = {
        "modules": [[m, s if isinstance(s, str) else list(s)] for m, s in runtime.SURFACE_MODULES],
        "members": {name: list(members) for name, members in runtime.SUBCLASS_MEMBERS.items()},
    }
    done = subprocess.run(
        [sys.executable, "-P", str(PROBE), folder, json.dumps(request)],
        capture_output=True,
        text=True,
    )
    lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
    try:
        answer = json.loads(done.stdout) if done.returncode == 0 else None
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict):
        hint = (
            " (reading it imports the runtime with its local reference: `pip install -e "
            f"'{folder}[reference]'`)"
            if lines[-1].startswith("ModuleNotFoundError")
            else ""
        )
        raise SurfaceError(
            f"the surface of the runtime in {folder} could not be read: {lines[-1]}{hint}"
        )
    return done.stdout
