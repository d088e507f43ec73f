"""The command line: ``python -m generator COMMAND``."""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .changes import changelog
from .changes.diff import Change, diff_documents
from .errors import GeneratorError
from .findings import Finding, summary
from .literals import terminal_text
from .pointer import locate
from .reading.ir import Document
from .reading.parser import parse_file
from .reading.revisions import load_index

DEFAULT_SPEC_DIR = Path("spec")
DEFAULT_OUT = Path("generated")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
        return result
    except GeneratorError as exc:
        print(terminal_text(f"error: {exc}"), file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__)
    parser.add_argument(
        "--spec-dir",
        type=Path,
        default=DEFAULT_SPEC_DIR,
        help="folder with revisions.yaml (default: spec)",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="validate spec documents")
    validate.add_argument(
        "files", nargs="*", type=Path, help="documents to validate (default: every revision)"
    )
    validate.set_defaults(run=_validate)

    diff = commands.add_parser("diff", help="list the changes between two revisions")
    diff.add_argument("old", help="revision id from revisions.yaml, or a document's path")
    diff.add_argument("new", help="revision id from revisions.yaml, or a document's path")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff.add_argument(
        "--descriptions",
        action="store_true",
        help="also list changed descriptions and summaries (the changelog leaves them out)",
    )
    diff.set_defaults(run=_diff)

    history = commands.add_parser("changelog", help="an operation's change history, in markdown")
    history.add_argument(
        "--operation",
        required=True,
        help='"METHOD /path" or an operationId, e.g. "POST /rl/training-sessions/{session_id}/operations/optim-step"',
    )
    history.set_defaults(run=_changelog)

    compat_command = commands.add_parser(
        "compat",
        help="the compatibility matrix: clients of each revision against servers of each",
    )
    compat_command.add_argument("--format", choices=("markdown", "json"), default="markdown")
    compat_command.set_defaults(run=_compat)

    add = commands.add_parser(
        "add-revision",
        help="add a revision to spec/ from the API's published OpenAPI document",
        description="Keep the operations listed in spec/operations.yaml (with every component "
        "they reach) from DOCUMENT, normalise them as the project's documents are, validate, "
        "write spec/ID.yaml, append the revision to spec/revisions.yaml and print the diff "
        "against the previous revision. Nothing is written when anything fails.",
    )
    add.add_argument("document", type=Path, help="the published OpenAPI document (YAML or JSON)")
    add.add_argument("--id", required=True, dest="revision_id", help="the API's revision key")
    add.add_argument(
        "--date",
        type=_revision_date,
        required=True,
        help="the revision's date, YYYY-MM-DD, or `unknown` for a revision whose date is not "
        "known (a dated revision may not come before the newest dated one)",
    )
    add.add_argument(
        "--note", help="where the document's content comes from (default: the document's name)"
    )
    add.set_defaults(run=_add_revision)

    remove = commands.add_parser(
        "remove-revision",
        help="take back the newest revision, while it is not released",
        description="Delete the newest revision's document and its entry in spec/revisions.yaml, "
        "its package in generated/, and its rows in the README's table and COMPATIBILITY.md. "
        "Refused for any other revision, and for a revision recorded as released in "
        "spec/releases.yaml.",
    )
    remove.add_argument("revision_id", metavar="ID", help="the newest revision's id")
    remove.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the generated packages (default: generated)"
    )
    remove.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="README whose revision table to update",
    )
    remove.set_defaults(run=_remove_revision)

    generate = commands.add_parser(
        "generate",
        help="render every revision's package into generated/ (or one document's package)",
    )
    generate.add_argument(
        "--out", type=Path, help="output folder (default: generated; required with --spec)"
    )
    generate.add_argument(
        "--spec",
        type=Path,
        metavar="DOCUMENT",
        help="render the package of this OpenAPI 3.0/3.1 document alone, whatever its API",
    )
    generate.add_argument(
        "--package", help="with --spec: the Python package's name (default: from the title)"
    )
    generate.add_argument(
        "--distribution", help="with --spec: the distribution's name (default: from the package)"
    )
    generate.add_argument(
        "--env-prefix",
        help="with --spec: the prefix of the environment variables the client reads, "
        "PREFIX_API_KEY and PREFIX_BASE_URL (default: the package's name in capitals)",
    )
    generate.add_argument(
        "--version",
        dest="package_version",
        help="with --spec: the package's version (default: the document's, where pip accepts it)",
    )
    generate.add_argument(
        "--verbose",
        action="store_true",
        help="print every warning (default: one line per kind of warning, with its count and "
        "its first place, where a kind has several; a warning that asks for a decision is "
        "always printed)",
    )
    generate.add_argument(
        "--revision",
        action="append",
        dest="revisions",
        metavar="ID",
        help="only this revision (repeatable)",
    )
    generate.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="README whose revision table to update",
    )
    generate.set_defaults(run=_generate)

    check = commands.add_parser(
        "check", help="exit 1 with a diff if generated/ is not what generate renders"
    )
    check.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the folder to check (default: generated)"
    )
    check.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="README whose revision table to check",
    )
    check.set_defaults(run=_check)

    build = commands.add_parser(
        "build",
        help="build the sdist and wheel of the runtime and of every generated package, as "
        "spec/releases.yaml records them",
        description="Build the sdist and wheel of the runtime and of every package in "
        "generated/, reproducibly, where spec/releases.yaml records the version with exactly "
        "its files; anything else is refused, and nothing is built. `python -m generator "
        "release` records a version.",
    )
    build.add_argument(
        "--out", type=Path, default=Path("dist"), help="where the artifacts go (default: dist)"
    )
    build.add_argument(
        "--generated",
        type=Path,
        default=DEFAULT_OUT,
        help="the generated packages (default: generated)",
    )
    build.add_argument(
        "--unreleased",
        action="store_true",
        help="also build the versions spec/releases.yaml does not record yet, to try them "
        "locally (publish refuses them)",
    )
    build.set_defaults(run=_build)

    release = commands.add_parser(
        "release",
        help="record packages as released (frozen), before publishing them",
        description="Record in spec/releases.yaml the sha256 of every file of the packages of "
        "the given revisions (none: every revision whose version is not recorded yet) and of "
        "the runtime's version where it is not recorded yet. generate and check then refuse "
        "any change that would alter them. generated/ must be what generate renders.",
    )
    release.add_argument("revisions", nargs="*", metavar="ID", help="the revisions to release")
    release.add_argument(
        "--no-runtime",
        dest="runtime",
        action="store_false",
        help="do not record the runtime's version",
    )
    release.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the generated packages (default: generated)"
    )
    release.set_defaults(run=_release)

    post = commands.add_parser(
        "post-release",
        help="render a released revision's package again, as a post-release (X.Y.Z.postN)",
        description="For a change that must reach a released revision's package itself (not "
        "the runtime): its package is rendered again at the next post-release version; "
        "generate, review, then release it.",
    )
    post.add_argument("revision_id", metavar="ID", help="the released revision")
    post.set_defaults(run=_post_release)

    publish = commands.add_parser(
        "publish",
        help="upload the built artifacts to a package index, never changing a published version",
        description="Upload the wheels and sdists of --dist that the index does not have yet. "
        "An artifact that is not a release spec/releases.yaml records, byte for byte, is "
        "refused, and so is any change to a version the index has; then nothing is uploaded.",
    )
    publish.add_argument(
        "--repository-url",
        required=True,
        metavar="URL",
        help="the index's upload URL, e.g. https://upload.pypi.org/legacy/ (credentials from "
        "TWINE_USERNAME and TWINE_PASSWORD)",
    )
    publish.add_argument(
        "--index-url",
        metavar="URL",
        help="the index's simple API (default: https://pypi.org/simple/ for PyPI, "
        "https://test.pypi.org/simple/ for TestPyPI, else URL/simple/ as pypiserver serves it)",
    )
    publish.add_argument(
        "--dist", type=Path, default=Path("dist"), help="the artifacts to upload (default: dist)"
    )
    publish.set_defaults(run=_publish)
    return parser


def _validate(args: argparse.Namespace) -> int:
    # openapi-spec-validator is slow to import; only here
    from .reading.validate import validate_file

    files = args.files or [revision.file for revision in load_index(args.spec_dir)]
    failed = 0
    for path in files:
        problems = validate_file(path)
        if problems:
            failed += 1
            for problem in problems:
                print(terminal_text(str(problem)))
        else:
            print(terminal_text(f"{path}: valid"))
    if failed:
        print(f"{failed} of {len(files)} documents are invalid", file=sys.stderr)
    return 1 if failed else 0


def _document(spec_dir: Path, name: str) -> Document:
    path = Path(name)
    if path.suffix in (".yaml", ".yml", ".json") or path.is_file():
        return parse_file(path, mode="complete")
    return load_index(spec_dir).get(name).document


def _diff(args: argparse.Namespace) -> int:
    old, new = _document(args.spec_dir, args.old), _document(args.spec_dir, args.new)
    for name, doc in ((args.old, old), (args.new, new)):
        for omission in doc.omitted:  # an operation the parser could not read at all
            print(
                terminal_text(
                    f"warning: not compared: {locate(name, omission.pointer)}: {omission.reason}"
                ),
                file=sys.stderr,
            )
    changes = diff_documents(old, new, descriptions=args.descriptions)
    print(_FORMATS[args.format](changes), end="")
    return 0


def _text(changes: list[Change]) -> str:
    from .stream import text_lines

    return text_lines(changes)


def _markdown(changes: list[Change]) -> str:
    if not changes:
        return "No changes.\n"
    sections = []
    for operation, group in itertools.groupby(changes, key=lambda c: c.operation):
        items = "".join(f"- **{c.level.value}** `{c.check}`: {c.message}\n" for c in group)
        sections.append(f"## `{operation}`\n\n{items}")
    return "\n".join(sections)


def _json(changes: list[Change]) -> str:
    return json.dumps([c.to_dict() for c in changes], indent=2) + "\n"


_FORMATS = {"text": _text, "markdown": _markdown, "json": _json}


def _changelog(args: argparse.Namespace) -> int:
    index = load_index(args.spec_dir)
    try:
        operation = changelog.find_operation(index, args.operation)
    except LookupError as exc:
        raise GeneratorError(str(exc)) from None
    entries = changelog.for_operation(changelog.history(index), operation.key)
    print(changelog.operation_markdown(operation, entries, len(index)), end="")
    return 0


def _revision_date(text: str) -> datetime.date | None:
    if text == "unknown":
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (YYYY-MM-DD, or `unknown`)"
        ) from None


def _add_revision(args: argparse.Namespace) -> int:
    from .stream import add_revision

    add_revision(args.spec_dir, args.document, args.revision_id, args.date, args.note)
    return 0


def _remove_revision(args: argparse.Namespace) -> int:
    from .stream import remove_revision

    readme = args.readme if args.readme.is_file() else None
    remove_revision(args.spec_dir, args.revision_id, args.out, readme)
    return 0


def _compat(args: argparse.Namespace) -> int:
    from .changes import compat
    from .reading.fieldroles import load_field_roles

    index = load_index(args.spec_dir)
    if args.format == "json":
        print(compat.as_json(compat.matrix(list(index), load_field_roles(args.spec_dir))), end="")
    else:
        print(compat.compatibility_text(list(index), load_field_roles(args.spec_dir)), end="")
    return 0


class _Printed:
    """A recipe's report on the terminal: warnings and notes on stderr, what it did on stdout;
    the warnings summarised kind by kind (see :func:`~generator.findings.summary`), or, where
    ``verbose``, each of them."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose

    def warnings(self, found: Sequence[Finding]) -> None:
        lines = [f.text for f in found] if self.verbose else summary(found)
        for line in lines:
            print(terminal_text(f"warning: {line}"), file=sys.stderr)

    def note(self, text: str) -> None:
        print(terminal_text(f"note: {text}"), file=sys.stderr)

    def done(self, text: str) -> None:
        print(terminal_text(text))


def _generate(args: argparse.Namespace) -> int:
    from .project import DocumentPackage, Project

    if args.spec is None:
        project = Project(args.spec_dir, args.out or DEFAULT_OUT, args.readme)
        project.build(_Printed(args.verbose), args.revisions)
        return 0
    if args.out is None:
        raise GeneratorError("--spec needs --out: the folder to write the package into")
    if args.revisions:
        raise GeneratorError("--revision is for the revisions of spec/, not with --spec")
    package = DocumentPackage(
        args.spec,
        args.out,
        package=args.package,
        distribution=args.distribution,
        env_prefix=args.env_prefix,
        version=args.package_version,
    )
    package.build(_Printed(args.verbose))
    return 0


def _check(args: argparse.Namespace) -> int:
    from .project import Project

    expected = Project(args.spec_dir, args.out, args.readme).expected()
    differences = [difference for files in expected for difference in files.differences()]
    for difference in differences:
        print(difference, end="" if difference.endswith("\n") else "\n")
    if differences:
        print(
            f"{len(differences)} files in {args.out} differ from what the generator renders; "
            "run `python -m generator generate` (or `nox -s generate`) and commit the result",
            file=sys.stderr,
        )
        return 1
    print(f"{args.out} matches what the generator renders")
    return 0


def _build(args: argparse.Namespace) -> int:
    from .release.recorded import build_recorded
    from .release.records import load_releases

    releases = load_releases(args.spec_dir)
    for artifact in build_recorded(args.generated, args.out, releases, unreleased=args.unreleased):
        print(artifact)
    return 0


def _release(args: argparse.Namespace) -> int:
    from .release.freezing import release

    recorded = release(args.spec_dir, args.out, args.revisions, include_runtime=args.runtime)
    for entry in recorded:
        what = f" (revision {entry.revision})" if entry.revision else ""
        print(f"released {entry.distribution} {entry.version}{what}: {len(entry.files)} files")
    if not recorded:
        print("nothing to release: every version is recorded already")
    return 0


def _post_release(args: argparse.Namespace) -> int:
    from .release.freezing import post_release

    version = post_release(args.spec_dir, args.revision_id)
    print(
        f"revision {args.revision_id}'s package is now rendered as together-rl {version}: run "
        "`python -m generator generate`, review the change, then `python -m generator release "
        f"{args.revision_id}`"
    )
    return 0


def _publish(args: argparse.Namespace) -> int:
    from .release.publish import publish
    from .release.records import load_releases

    releases = load_releases(args.spec_dir)
    publish(args.dist, args.repository_url, args.index_url, record=releases)
    return 0
