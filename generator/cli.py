"""The command line: ``python -m generator COMMAND``."""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import itertools
import json
import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import datetime
import keyword
import re

from .changes import changelog
from .changes.diff import Change, diff_documents
from .errors import GeneratorError
from .reading.ir import Document
from .reading.loader import load_yaml
from .views.naming import shorten
from .reading.parser import parse_file
from .pointer import locate
from .reading.revisions import load_index

if TYPE_CHECKING:
    from .output.package import PackageInfo
    from .reading.validate import Problem

DEFAULT_SPEC_DIR = Path("spec")
DEFAULT_OUT = Path("generated")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
        return result
    except GeneratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
        "build", help="build the sdist and wheel of the runtime and of every generated package"
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
    from .reading.validate import (
        validate_file,
    )  # openapi-spec-validator is slow to import; only here

    files = args.files or [revision.file for revision in load_index(args.spec_dir)]
    failed = 0
    for path in files:
        problems = validate_file(path)
        if problems:
            failed += 1
            for problem in problems:
                print(problem)
        else:
            print(f"{path}: valid")
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
                f"warning: not compared: {locate(name, omission.pointer)}: {omission.reason}",
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


def _generate(args: argparse.Namespace) -> int:
    from .changes import compat
    from .output import readme
    from .caching import default_cache_dir
    from .output.package import REVISION_PACKAGE
    from .output.smoke import import_packages
    from .release.packages import render_packages
    from .release.sources import Sources
    from .output.tree import check_output_folder, recover, write_tree

    if args.spec is not None:
        return _generate_document(args)
    out = args.out or DEFAULT_OUT
    sources = Sources(args.spec_dir)
    index = sources.index
    recover(out.resolve())
    check_output_folder(out.resolve())  # before the work, not only before the writing
    cache_dir = default_cache_dir()
    rendering = render_packages(
        sources, args.revisions, cache_dir=cache_dir, black_everything=False, reuse=out.resolve()
    )
    for warning in rendering.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for note in rendering.notes:
        print(f"note: {note}", file=sys.stderr)
    written = sorted({path.split("/")[0] for path in rendering.files})

    def verify(staging: Path) -> None:
        packages = [(staging / name, REVISION_PACKAGE.import_name) for name in written]
        import_packages(packages, cache_dir)

    write_tree(rendering.files, out, only=args.revisions, verify=verify)
    if args.readme.is_file():
        posts = sources.releases.post_releases
        if readme.update(args.readme, sources.history, posts):
            print(f"updated the revision table in {args.readme}")
        if compat.write_compatibility(index, args.readme.parent):
            print(f"updated {args.readme.parent / compat.COMPATIBILITY_FILE}")
    count = len(args.revisions) if args.revisions else len(index)
    kept = len(rendering.confirmed)
    how = (
        f"{count - kept} rendered, {kept} released packages kept as their releases recorded them "
        "(`check` renders them all)"
        if kept
        else "every one rendered"
    )
    print(f"{out}: {len(rendering.files)} files of {count} revisions; {how}")
    return 0


def _generate_document(args: argparse.Namespace) -> int:
    from .caching import default_cache_dir
    from .output.document import render_one_document
    from .output.smoke import import_packages
    from .output.tree import check_output_folder, recover, write_tree
    from .reading.validate import file_problems, known_problems

    if args.out is None:
        raise GeneratorError("--spec needs --out: the folder to write the package into")
    if args.revisions:
        raise GeneratorError("--revision is for the revisions of spec/, not with --spec")
    # What openapi-spec-validator finds is reported; the generator reads what it can leniently,
    # and what would give wrong code stops it (located errors from the parser and the views).
    # The validator takes as long as the rest together on a large document: it runs beside, and
    # its warnings come when it is done (they do not stop the generation); what it found in the
    # same document before is taken from the cache.
    cache_dir = default_cache_dir()
    known = known_problems(args.spec, cache_dir)
    with contextlib.ExitStack() as stack:
        if known is None:
            pool = stack.enter_context(
                concurrent.futures.ProcessPoolExecutor(1, mp_context=_worker_context())
            )
            problems = pool.submit(file_problems, args.spec, cache_dir)
        try:
            document = parse_file(args.spec, lenient=True)
            package = _package_info(args, document.title)
            recover(args.out.resolve())
            check_output_folder(args.out.resolve(), package.import_name)
            rendering = render_one_document(
                args.spec, document, package, args.package_version, cache_dir=cache_dir
            )
            for warning in rendering.warnings:
                print(f"warning: {warning}", file=sys.stderr)

            def verify(staging: Path) -> None:
                import_packages([(staging, package.import_name)], cache_dir)

            write_tree(rendering.files, args.out, package=package.import_name, verify=verify)
        finally:
            _report_problems(known if known is not None else problems)
    print(f"rendered {len(rendering.files)} files of {args.spec} into {args.out}")
    return 0


def _report_problems(problems: list[Problem] | concurrent.futures.Future[list[Problem]]) -> None:
    """Print the validator's findings as warnings; a worker that died is a warning too (its
    findings never stop a generation)."""
    try:
        found = problems if isinstance(problems, list) else problems.result()
    except Exception as exc:  # the worker was killed (out of memory, a signal)
        print(f"warning: openapi-spec-validator did not finish: {exc!r}", file=sys.stderr)
        return
    for problem in found:
        print(f"warning: {problem}", file=sys.stderr)


def _worker_context() -> multiprocessing.context.BaseContext:
    """Fork where the platform has it (the worker starts at once, with the modules loaded)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _package_info(args: argparse.Namespace, title: str) -> PackageInfo:
    """The package's names: given, else from the document's title (else its file's name)."""
    from .output.package import PackageInfo

    title = title or args.spec.stem
    words = re.findall(r"[0-9A-Za-z]+", title.lower()) or ["api"]
    name = args.package or shorten("_".join(words))
    if not name.isidentifier() or keyword.iskeyword(name):
        raise GeneratorError(f"--package {name!r} is not a Python package name")
    distribution = args.distribution or name.replace("_", "-")
    prose = title if title.lower().endswith(("api", "apis")) else f"{title} API"
    prefix = args.env_prefix or name.upper()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
        raise GeneratorError(f"--env-prefix {prefix!r} is not the start of a variable's name")
    return PackageInfo(name, distribution, f"the {prose}", False, env_prefix=prefix)


def _check(args: argparse.Namespace) -> int:
    from .changes import compat
    from .output import readme
    from .output.tree import read_tree, tree_differences
    from .release.packages import render_packages
    from .release.sources import Sources

    sources = Sources(args.spec_dir)
    index = sources.index
    expected = render_packages(sources).files
    differences = list(tree_differences(expected, read_tree(args.out), label=str(args.out)))
    if args.readme.is_file():
        text = args.readme.read_text(encoding="utf-8")
        posts = sources.releases.post_releases
        wanted = readme.with_table(
            text, readme.revision_table(sources.history, posts), source=str(args.readme)
        )
        differences += tree_differences(
            {args.readme.name: wanted.encode()}, {args.readme.name: text.encode()}, label="."
        )
        matrix = args.readme.parent / compat.COMPATIBILITY_FILE
        have = {matrix.name: matrix.read_bytes()} if matrix.is_file() else {}
        wanted_matrix = compat.compatibility_text(list(index), sources.roles)
        differences += tree_differences({matrix.name: wanted_matrix.encode()}, have, label=".")
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
    from .release.build import build_packages
    from .reading.runtime import RUNTIME_DIR

    packages = sorted(p for p in args.generated.iterdir() if (p / "pyproject.toml").is_file())
    if not packages:
        raise GeneratorError(
            f"no generated packages in {args.generated}; run `python -m generator generate`"
        )
    for artifact in build_packages([RUNTIME_DIR, *packages], args.out):
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

    publish(args.dist, args.repository_url, args.index_url)
    return 0
