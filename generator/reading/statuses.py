"""What each value of an operation's status means to a waiter, from ``spec/statuses.yaml``.

Whether a status is still in progress, or a terminal success, failure or cancellation, is a fact
of the API, kept as data beside the documents: a waiter stops on every terminal value, and a
value the data does not know is reported by ``generate`` (and polled on, as in progress).

A document outside ``spec/`` (``generate --spec``) has no such data: its waiters read the kinds
from the values' names (:func:`by_name`), and the package says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from ..errors import GeneratorError
from ..pointer import join
from . import ir
from .loader import load_yaml

STATUSES_FILE = "statuses.yaml"
STATUSES_PATH = f"spec/{STATUSES_FILE}"
"""The file as the packages' docs name it."""

Kind: TypeAlias = Literal["in-progress", "succeeded", "failed", "cancelled"]
KINDS: tuple[Kind, ...] = ("in-progress", "succeeded", "failed", "cancelled")
TERMINAL: tuple[Kind, ...] = ("succeeded", "failed", "cancelled")


class StatusesError(GeneratorError):
    """The status data file is missing or malformed."""


@dataclass(frozen=True)
class StatusKinds:
    """The kind of every status value the data knows."""

    source: str
    """Where the kinds come from: the data file, or a sentence for kinds read from names."""
    kinds: Mapping[str, Kind]
    from_names: bool = False

    def kind(self, value: str) -> Kind | None:
        return self.kinds.get(value)


def load_statuses(spec_dir: Path) -> StatusKinds:
    """Read and check ``spec_dir/statuses.yaml``."""
    path = spec_dir / STATUSES_FILE
    source = str(path)
    raw = load_yaml(path)
    if not isinstance(raw, dict) or set(raw) != {"statuses"}:
        raise StatusesError(f"{source}#/: expected a mapping with one key, `statuses`")
    entries = raw["statuses"]
    if not isinstance(entries, dict) or not entries:
        raise StatusesError(
            f"{source}#/statuses: expected a mapping of status values to their kinds"
        )
    kinds: dict[str, Kind] = {}
    for value, kind in entries.items():
        if kind not in KINDS:
            raise StatusesError(
                f"{source}#{join('/statuses', str(value))}: the kind is one of "
                f"{', '.join(KINDS)}, got {kind!r}"
            )
        kinds[str(value)] = kind
    return StatusKinds(source=source, kinds=kinds)


_NAMES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("succeeded", re.compile(r"(?:^|_)(?:COMPLETED?|SUCCEEDED|SUCCESS|SUCCESSFUL|DONE)$", re.I)),
    ("failed", re.compile(r"(?:^|_)(?:FAILED|FAILURE|ERROR|ERRORED)$", re.I)),
    ("cancelled", re.compile(r"(?:^|_)(?:CANCELL?ED|ABORTED)$", re.I)),
)


def by_name(values: Iterable[str]) -> StatusKinds:
    """Kinds read from the values' names, for a document without status data: ``..._COMPLETED``
    (``succeeded``, ``done``, ...) succeeds, ``..._FAILED`` (``error``) fails, ``..._CANCELLED``
    (``canceled``, ``aborted``) is a cancellation; any other value is in progress."""
    kinds: dict[str, Kind] = {}
    for value in values:
        kinds[value] = next((k for k, p in _NAMES if p.search(value)), "in-progress")
    return StatusKinds(
        source="the values' names (the document comes with no status data)",
        kinds=kinds,
        from_names=True,
    )


def status_enum(doc: ir.Document, operation: ir.Operation) -> ir.Enum | None:
    """The enum of the ``status`` field of the operation's success answer, where it has one."""
    reply = next(
        (r.schema for r in operation.responses if r.status.startswith("2") and r.schema), None
    )
    model = doc.resolve(reply) if reply is not None else None
    status = model.property("status") if isinstance(model, ir.Object) else None
    enum = doc.resolve(status.schema) if status is not None else None
    return enum if isinstance(enum, ir.Enum) else None


def unclassified(
    doc: ir.Document, operation: ir.Operation, kinds: StatusKinds
) -> list[tuple[str, str]]:
    """The status values of the operation's answers that ``kinds`` has no entry for, each with
    its JSON pointer."""
    enum = status_enum(doc, operation)
    if enum is None:
        return []
    return [
        (join(enum.pointer, "enum", position), str(value))
        for position, value in enumerate(enum.values)
        if kinds.kind(str(value)) is None
    ]
