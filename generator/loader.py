"""Reading spec documents from disk."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from .errors import SpecError

try:  # libyaml's loader is several times faster on large documents
    _Base: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader


class _Loader(_Base):  # type: ignore[misc]
    """YAML as JSON sees it: an unquoted date or timestamp (``2024-02-28T21:34:35Z`` in an
    example) stays the string it is, rather than becoming a ``datetime`` no JSON can hold."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: loading builds many containers and no cycles, and
    collections triggered by the allocations would make large documents load in more than
    linear time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_yaml(path: Path) -> Any:
    """Read a YAML (or JSON) document; a syntax error becomes a :class:`SpecError` with its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError("", f"cannot read the file: {exc.strerror}", source=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise SpecError("", f"not UTF-8 text ({exc.reason})", source=str(path)) from exc
    return parse_yaml(text, str(path))


def parse_yaml(text: str, source: str) -> Any:
    """Parse YAML text read from ``source``; errors as in :func:`load_yaml`."""
    try:
        with _collector_paused():
            return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise SpecError("", f"not valid YAML: {_yaml_problem(exc)}", source=source) from exc
    except ValueError as exc:  # a scalar YAML cannot construct, such as the date 2026-13-01
        raise SpecError("", f"not valid YAML: {exc}", source=source) from exc
    except RecursionError:
        raise SpecError("", "nested too deeply to be read", source=source) from None


def _where(mark: Any) -> str:
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's account of a syntax error: where the construct began that it could not finish
    (``while parsing a flow sequence ... line 105``, where the mistake usually is), then what it
    found and where."""
    problem = getattr(exc, "problem", None)
    if problem is None:
        return str(exc)
    found = f"{problem}{_where(getattr(exc, 'problem_mark', None))}"
    context = getattr(exc, "context", None)
    if context is None:
        return found
    return f"{context}{_where(getattr(exc, 'context_mark', None))}, {found}"


class _Dumper(yaml.SafeDumper):
    """Indents list items under their key, as the project's documents are written."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def dump_yaml(data: Any) -> str:
    """``data`` as YAML that :func:`load_yaml` reads back as the same data."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
