"""The index of spec revisions, ``spec/revisions.yaml``."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from ..errors import GeneratorError, RevisionError
from . import ir
from .loader import load_yaml
from .parser import parse_file

INDEX_NAME = "revisions.yaml"


@dataclass(frozen=True)
class Revision:
    """One revision of the API: its id, date, document and where the document's content comes from."""

    id: str
    date: datetime.date | None
    file: Path
    note: str

    @cached_property
    def document(self) -> ir.Document:
        """The parsed document (parsed once, on first use)."""
        return parse_file(self.file)

    @classmethod
    def of_document(cls, document: ir.Document, file: Path) -> Revision:
        """A revision of a document parsed already, outside ``spec/`` (``generate --spec``'s):
        no date, the document's version as its id."""
        revision = cls(document.version or "unversioned", None, file, "")
        revision.__dict__["document"] = document  # what the cached property holds once parsed
        return revision

    @property
    def label(self) -> str:
        """``"f26a23fab8e0, 2026-08-08"``, or the id alone where the date is unknown."""
        return f"{self.id}, {self.date.isoformat()}" if self.date else self.id


@dataclass(frozen=True)
class RevisionIndex(Sequence[Revision]):
    """The revisions of ``spec/``, oldest first."""

    revisions: tuple[Revision, ...]
    spec_dir: Path
    """The folder of the index and the documents."""

    def __len__(self) -> int:
        return len(self.revisions)

    def __getitem__(self, index: Any) -> Any:
        return self.revisions[index]

    def __iter__(self) -> Iterator[Revision]:
        return iter(self.revisions)

    def get(self, revision_id: str) -> Revision:
        """The revision of that id, spelled with its case: ids are file and folder names, so
        an id in another case is refused, naming the revision it would be."""
        for revision in self.revisions:
            if revision.id == revision_id:
                return revision
        for revision in self.revisions:
            if revision.id.casefold() == revision_id.casefold():
                raise RevisionError(
                    f"unknown revision {revision_id!r}; did you mean {revision.id!r}? Revision "
                    "ids are written with their case"
                )
        known = ", ".join(r.id for r in self.revisions)
        raise RevisionError(f"unknown revision {revision_id!r}; known revisions: {known}")


def load_index(spec_dir: Path) -> RevisionIndex:
    """Read and check ``spec_dir/revisions.yaml``."""
    path = spec_dir / INDEX_NAME
    where = str(path)
    try:
        raw = load_yaml(path)
    except GeneratorError as exc:
        raise RevisionError(str(exc)) from exc
    entries = raw.get("revisions") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or not entries:
        raise RevisionError(f"{where}: expected a non-empty list under 'revisions'")
    revisions: list[Revision] = []
    for position, entry in enumerate(entries):
        at = f"{where}: revisions[{position}]"
        if not isinstance(entry, dict):
            raise RevisionError(f"{at}: expected a mapping with id, date, file and note")
        missing = [key for key in ("id", "date", "file", "note") if key not in entry]
        if missing:
            raise RevisionError(f"{at}: missing {', '.join(missing)}")
        revision_id, date, file, note = entry["id"], entry["date"], entry["file"], entry["note"]
        if not isinstance(revision_id, str) or not revision_id:
            raise RevisionError(f"{at}.id: expected a non-empty string, got {revision_id!r}")
        if isinstance(date, str):
            try:
                date = datetime.date.fromisoformat(date)
            except ValueError:
                raise RevisionError(
                    f"{at}.date: {date!r} is not an ISO date (YYYY-MM-DD)"
                ) from None
        if date is not None and not isinstance(date, datetime.date):
            raise RevisionError(f"{at}.date: expected an ISO date or null, got {date!r}")
        if not isinstance(file, str) or not (spec_dir / file).is_file():
            raise RevisionError(f"{at}.file: {file!r} is not a file in {spec_dir}")
        if any(r.id == revision_id for r in revisions):
            raise RevisionError(f"{at}.id: revision {revision_id!r} is listed twice")
        same = _same_but_case(revisions, revision_id)
        if same is not None:
            raise RevisionError(
                f"{at}.id: revision {revision_id!r} differs only in case from revision "
                f"{same.id!r}; on a case-insensitive file system one's document and package "
                "would overwrite the other's"
            )
        dated = [r.date for r in revisions if r.date]
        if date and dated and date < dated[-1]:
            raise RevisionError(
                f"{at}.date: {date} is earlier than the revision before it ({dated[-1]})"
            )
        revisions.append(Revision(revision_id, date, spec_dir / file, str(note).strip()))
    if revisions[0].id != "baseline":
        raise RevisionError(
            f"{where}: the first revision must be 'baseline', got {revisions[0].id!r}"
        )
    return RevisionIndex(tuple(revisions), spec_dir)


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_new_revision(index: RevisionIndex, revision_id: str, date: datetime.date | None) -> None:
    """Refuse an id that exists or cannot name a file, and a date before the newest known one."""
    if not _ID.fullmatch(revision_id):
        raise RevisionError(
            f"{revision_id!r} is not a revision id: letters, digits, '.', '_' and '-', "
            "starting with a letter or digit"
        )
    if any(r.id == revision_id for r in index):
        raise RevisionError(f"revision {revision_id!r} is already in {index.spec_dir / INDEX_NAME}")
    same = _same_but_case(index, revision_id)
    if same is not None:
        raise RevisionError(
            f"revision {revision_id!r} differs only in case from revision {same.id!r} of "
            f"{index.spec_dir / INDEX_NAME}; on a case-insensitive file system its document and "
            "package would overwrite that revision's"
        )
    if (index.spec_dir / f"{revision_id}.yaml").exists():
        raise RevisionError(f"{index.spec_dir / revision_id}.yaml exists already")
    dated = [r for r in index if r.date]
    if date is not None and dated and date < dated[-1].date:  # type: ignore[operator]
        raise RevisionError(
            f"the date {date} is before that of revision {dated[-1].id} ({dated[-1].date}); "
            "revisions are appended in order"
        )


def _same_but_case(revisions: Iterable[Revision], revision_id: str) -> Revision | None:
    """The revision whose id is ``revision_id`` in another case, if any."""
    folded = revision_id.casefold()
    return next((r for r in revisions if r.id.casefold() == folded and r.id != revision_id), None)


def append_revision(
    index: RevisionIndex, revision_id: str, date: datetime.date | None, note: str, document: str
) -> Path:
    """Write ``document`` as ``spec/<id>.yaml`` and append its entry to the index, keeping the
    index's comments; both files are replaced with a rename, so a failure leaves spec/ as it was."""
    check_new_revision(index, revision_id, date)
    spec_dir = index.spec_dir
    path = spec_dir / f"{revision_id}.yaml"
    entry = yaml.safe_dump(
        [{"id": revision_id, "date": date, "file": path.name, "note": note}],
        sort_keys=False,
        allow_unicode=True,
        width=96,
    )
    index_path = spec_dir / INDEX_NAME
    text = index_path.read_text(encoding="utf-8")
    new_index = text.rstrip("\n") + "\n" + "".join(f"  {line}\n" for line in entry.splitlines())
    write_atomically(path, document)
    try:
        write_atomically(index_path, new_index)
        load_index(spec_dir)  # the index still reads, with the new entry last
    except BaseException:
        write_atomically(index_path, text)
        path.unlink(missing_ok=True)
        raise
    return path


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` by a rename, so that it is never half written."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
