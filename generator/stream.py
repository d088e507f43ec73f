"""The stream of revisions, as a maintainer keeps it: add a revision from the API's published
document (``add-revision``), and take back the newest one before it is released
(``remove-revision``)."""

from __future__ import annotations

import datetime
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .changes import changelog
from .changes.diff import Change, diff_documents
from .errors import GeneratorError, RevisionError
from .literals import terminal_text
from .pointer import locate
from .reading import ir
from .reading.revisions import (
    Revision,
    RevisionIndex,
    append_revision,
    check_new_revision,
    load_index,
)
from .release.records import load_releases


def text_lines(changes: Iterable[Change]) -> str:
    """One line per change: level, check id, operation and message."""
    return "".join(f"{c.level.value:<7} {c.check}  {c.operation}  {c.message}\n" for c in changes)


def add_revision(
    spec_dir: Path, document: Path, revision_id: str, date: datetime.date | None, note: str | None
) -> Revision:
    """Add ``document`` (the API's whole published document, or one already normalised) as
    revision ``revision_id``; print the normalisations, the diff against the previous revision,
    and what the maintainer should look at. Nothing is written when anything fails."""
    from .reading.fieldroles import load_field_roles, resolve
    from .reading.loader import dump_yaml, load_yaml, parse_yaml
    from .reading.statuses import STATUSES_FILE, load_statuses, unclassified
    from .reading.upstream import extract, load_operations
    from .reading.validate import validate_document

    index = load_index(spec_dir)
    check_new_revision(index, revision_id, date)
    previous = index[-1]
    result = extract(
        load_yaml(document),
        load_operations(spec_dir),
        revision_id=revision_id,
        previous=load_yaml(previous.file),
        source=str(document),
    )
    for line in result.notes:
        print(terminal_text(f"normalised {line}"))
    target = spec_dir / f"{revision_id}.yaml"
    header = f"# Revision {revision_id} of the API, from {document.name}.\n"
    text = header + dump_yaml(result.document)
    # named as the file given, with the pointers of its normalised text (a schema renamed by
    # normalising is found under its new name)
    source = f"{document} (normalised)"
    problems = validate_document(parse_yaml(text, source), source)
    if problems:
        for problem in problems:
            print(terminal_text(str(problem)))
        raise GeneratorError(
            f"{document} is not valid, normalised as revision {revision_id}; spec/ is unchanged"
        )
    note = note or f"From {document.name}, normalised by `python -m generator add-revision`."
    append_revision(index, revision_id, date, note, text)
    print(f"wrote {target} and appended revision {revision_id} to {spec_dir}/revisions.yaml")
    index = load_index(spec_dir)
    new = index.get(revision_id)
    changes = diff_documents(previous.document, new.document, descriptions=True)
    print(f"\nchanges from {previous.id} to {revision_id} (descriptions included):")
    if changes:
        print(text_lines(changes), end="")
    else:
        print(
            "none: the kept operations are as in the previous revision (the API changes "
            "elsewhere too; its package gets a new patch version)"
        )
    for line in dropped_additions(index, changes):
        _warn(line)
    rules = resolve(new.document, load_field_roles(spec_dir))
    for field in rules.unassigned:
        _warn(
            f"{locate(str(new.file), field.pointer)}: the request field `{field.path}` has no "
            f"role in the local reference ({field.reason})"
        )
    statuses = load_statuses(spec_dir)
    for pointer, value in unclassified(new.document, rules.operation, statuses):
        _warn(
            f"{locate(str(new.file), pointer)}: the status value `{value}` has no entry in "
            f"{spec_dir / STATUSES_FILE}; give it its kind there"
        )
    return new


def _warn(text: str) -> None:
    print(terminal_text(f"warning: {text}"), file=sys.stderr)


@dataclass(frozen=True)
class _Added:
    revision: Revision
    change: Change


def _subject(change: Change) -> tuple[str, str, str]:
    """What a change is about: its operation's route, path, and the first name it quotes (a
    property, an enum value, a parameter)."""
    quoted = change.message.split("`")
    return ir.route(change.operation), change.path, quoted[1] if len(quoted) > 2 else ""


def _adds(change: Change) -> bool:
    return change.check.startswith("new-") or change.check.endswith("-added")


def dropped_additions(index: RevisionIndex, changes: Sequence[Change]) -> list[str]:
    """What the newest revision's ``changes`` remove that an earlier revision's changelog added:
    a sign that the document is older than the revision before it."""
    added: dict[tuple[str, str, str], _Added] = {}
    for entry in changelog.history(index[:-1]):
        for change in entry.changes:
            if _adds(change):
                added[_subject(change)] = _Added(entry.revision, change)
    lines = []
    for change in changes:
        if "removed" not in change.check:
            continue
        earlier = added.get(_subject(change))
        if earlier is None:
            continue
        when = f", {earlier.revision.date.isoformat()}" if earlier.revision.date else ""
        lines.append(
            f"{change.operation}: the document {change.message.replace('removed', 'removes', 1)}"
            f", which revision {earlier.revision.id}{when} added "
            f"({earlier.change.message}); is the document older than revision "
            f"{index[-2].id}? Check where it comes from before generating"
        )
    return lines


def remove_revision(spec_dir: Path, revision_id: str, generated: Path, readme: Path | None) -> None:
    """Take back the newest revision while it is not released: its document, its entry in the
    index, its generated package, and its rows in the README's table and COMPATIBILITY.md."""
    from .project import Project

    index = load_index(spec_dir)
    revision = index.get(revision_id)
    if revision is not index[-1]:
        raise RevisionError(
            f"revision {revision_id} is not the newest ({index[-1].id}); only the newest revision "
            "can be taken back, since the packages of later ones were rendered with it"
        )
    if len(index) == 1:
        raise RevisionError(f"revision {revision_id} is the only one; the index cannot be empty")
    release = load_releases(spec_dir).of_revision(revision_id)
    if release is not None:
        raise RevisionError(
            f"revision {revision_id} was released as {release.distribution} {release.version} "
            f"(recorded in {spec_dir}/releases.yaml); a released revision stays, and a fix "
            "ships as a new revision or a post-release"
        )
    package = generated / revision_id
    remove_entry(index, revision_id)
    print(
        f"removed revision {revision_id} from {spec_dir}/revisions.yaml and deleted {revision.file}"
    )
    if (package / "pyproject.toml").is_file():
        shutil.rmtree(package)
        print(f"deleted {package}")
    remaining = Project(spec_dir, generated, readme)  # read again: without the revision
    for document in remaining.documents():
        if document.write():
            print(
                f"removed the revision's row from {readme}"
                if document.path == readme
                else f"updated {document.name}"
            )


def remove_entry(index: RevisionIndex, revision_id: str) -> None:
    """Delete the newest revision's document and its entry (the last of the index), keeping the
    rest of the index as it is written."""
    from .reading.revisions import INDEX_NAME, write_atomically

    path = index.spec_dir / INDEX_NAME
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("- id:")]
    last = starts[-1] if starts else -1
    if last < 0 or lines[last].split(":", 1)[1].strip().strip("'\"") != revision_id:
        raise RevisionError(f"{path}: the last entry is not revision {revision_id}")
    write_atomically(path, "".join(lines[:last]))
    try:
        load_index(index.spec_dir)
    except GeneratorError:
        write_atomically(path, text)
        raise
    index.get(revision_id).file.unlink()
