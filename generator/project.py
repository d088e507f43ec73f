"""The recipes: what the generator makes, each output listed once.

A :class:`Project` is what the generator makes of ``spec/``: the package of every revision (in
``generated/``), then the documents beside them (the README's table of revisions and
``COMPATIBILITY.md``). ``generate`` builds it (:meth:`Project.build`), ``check`` compares what
it would build with the files on disk (:meth:`Project.expected`), and ``remove-revision`` brings
its documents up to date (:meth:`Project.documents`). ``spec/``'s data files are read once, here,
and handed to the renderer.

A :class:`DocumentPackage` is what ``generate --spec`` makes: the package of one OpenAPI
document, whatever its API.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import keyword
import multiprocessing
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .caching import default_cache_dir
from .changes import compat
from .errors import GeneratorError
from .findings import VALIDATOR, Finding
from .output import readme
from .output.document import render_one_document
from .output.package import REVISION_PACKAGE, TEMPLATES_DIR, PackageInfo
from .output.render import Rendering
from .output.smoke import import_packages
from .output.tree import check_output_folder, read_tree, recover, tree_differences, write_tree
from .reading.parser import parse_file
from .release.packages import put_back, render_packages
from .release.sources import Sources
from .views.naming import shorten

if TYPE_CHECKING:
    from .reading.validate import Problem


class Report(Protocol):
    """Where a recipe tells its user what it found and what it did, as it goes."""

    def warnings(self, found: Sequence[Finding]) -> None:
        """What the user should know (a request field the local reference ignores...), all
        together once it is known: the report may summarise it kind by kind (see
        :mod:`generator.findings`)."""

    def note(self, text: str) -> None:
        """Something worth a line that needs no action."""

    def done(self, text: str) -> None:
        """Something the recipe wrote."""


@dataclass(frozen=True)
class Expected:
    """Files as the generator would write them, and the files on disk they must match."""

    label: str
    """The folder, as a difference names it."""
    files: dict[str, bytes]
    """What the generator writes, by path in the folder."""
    on_disk: dict[str, bytes]
    """What the folder holds of those (and, for a folder the generator writes whole, the rest)."""

    def differences(self) -> list[str]:
        """A unified diff for each file that differs, is missing or is extra."""
        return list(tree_differences(self.files, self.on_disk, label=self.label))


@dataclass(frozen=True)
class Document:
    """A file of the project that the generator keeps up to date beside the packages."""

    path: Path
    text: str
    """What the file should hold."""
    current: bytes | None
    """What it holds, as ``check`` compares it (``None`` where it is missing)."""
    name: str
    """How a report names what the generator updates in it."""

    def expected(self) -> Expected:
        """The file as it should be, beside the file on disk."""
        have = {self.path.name: self.current} if self.current is not None else {}
        return Expected(".", {self.path.name: self.text.encode()}, have)

    def write(self) -> bool:
        """Write the text where the file does not hold it yet; whether the file changed."""
        if self.path.is_file() and self.path.read_text(encoding="utf-8") == self.text:
            return False
        self.path.write_text(self.text, encoding="utf-8")
        return True


class Project:
    """What the generator makes of ``spec_dir``: the packages in ``out`` and, where ``readme`` is
    a file, the documents beside it, from the templates in ``templates``."""

    def __init__(
        self,
        spec_dir: Path,
        out: Path,
        readme: Path | None = None,
        *,
        templates: Path = TEMPLATES_DIR,
    ) -> None:
        self.sources = Sources(spec_dir)
        self.out = out
        self.readme = readme
        self.templates = templates

    def build(self, report: Report, revision_ids: Sequence[str] | None = None) -> None:
        """Render every package (or those of ``revision_ids``, whose folders alone are replaced)
        and write them, all or nothing, once they import; then update the documents.

        A released package found unchanged in ``out`` is kept as it is, not rendered again (see
        :func:`~generator.release.packages.render_packages`), and black formats only the
        statements the templates could not fit: ``check`` renders and formats everything."""
        index = self.sources.index
        out = self.out.resolve()
        recover(out)
        check_output_folder(out)  # before the work, not only before the writing
        cache_dir = default_cache_dir()
        rendering = self.packages(
            revision_ids, cache_dir=cache_dir, black_everything=False, reuse=out
        )
        report.warnings(rendering.warnings)
        for note in rendering.notes:
            report.note(note)
        written = sorted({path.split("/")[0] for path in rendering.files})

        def verify(staging: Path) -> None:
            packages = [(staging / name, REVISION_PACKAGE.import_name) for name in written]
            import_packages(packages, cache_dir)

        restored = put_back(self.sources, rendering.files, self.out)
        write_tree(rendering.files, self.out, only=revision_ids, verify=verify)
        report.warnings(restored)
        for document in self.documents():
            if document.write():
                report.done(f"updated {document.name}")
        count = len(revision_ids) if revision_ids else len(index)
        kept = len(rendering.confirmed)
        how = (
            f"{count - kept} rendered, {kept} released packages kept as their releases recorded "
            "them (`check` renders them all)"
            if kept
            else "every one rendered"
        )
        report.done(f"{self.out}: {len(rendering.files)} files of {count} revisions; {how}")

    def expected(self) -> list[Expected]:
        """What :meth:`build` would write, every package rendered and formatted in full, beside
        what is on disk."""
        packages = Expected(str(self.out), self.packages().files, read_tree(self.out))
        return [packages, *(document.expected() for document in self.documents())]

    def packages(
        self,
        revision_ids: Sequence[str] | None = None,
        *,
        cache_dir: Path | None = None,
        black_everything: bool = True,
        reuse: Path | None = None,
    ) -> Rendering:
        """Every package's files (or those of ``revision_ids``), by path relative to ``out``;
        see :func:`~generator.release.packages.render_packages`."""
        return render_packages(
            self.sources,
            revision_ids,
            templates=self.templates,
            cache_dir=cache_dir,
            black_everything=black_everything,
            reuse=reuse,
        )

    def documents(self) -> Iterator[Document]:
        """The documents beside the packages, where there is a README: its table of revisions,
        and ``COMPATIBILITY.md`` beside it. Each is made as it is asked for, so that one is
        written before the next is made."""
        if self.readme is None or not self.readme.is_file():
            return
        text = self.readme.read_text(encoding="utf-8")
        table = readme.revision_table(self.sources.history, self.sources.releases.post_releases)
        wanted = readme.with_table(text, table, source=str(self.readme))
        yield Document(self.readme, wanted, text.encode(), f"the revision table in {self.readme}")
        matrix = self.readme.parent / compat.COMPATIBILITY_FILE
        have = matrix.read_bytes() if matrix.is_file() else None
        matrix_text = compat.compatibility_text(list(self.sources.index), self.sources.roles)
        yield Document(matrix, matrix_text, have, str(matrix))


@dataclass(frozen=True)
class DocumentPackage:
    """The package of the OpenAPI 3.0/3.1 document at ``path``, whatever its API, written to
    ``out`` (which holds that package alone)."""

    path: Path
    out: Path
    package: str | None = None
    """The Python package's name (default: from the document's title)."""
    distribution: str | None = None
    """The distribution's name (default: from the package's)."""
    env_prefix: str | None = None
    """The prefix of the environment variables the client reads (default: the package's name
    in capitals)."""
    version: str | None = None
    """The package's version (default: the document's, where pip accepts it)."""

    def build(self, report: Report) -> None:
        """Render the package and write it, all or nothing, once it imports.

        What openapi-spec-validator finds is reported; the generator reads what it can
        leniently, and what would give wrong code stops it (located errors from the parser and
        the views). The validator takes as long as the rest together on a large document: it
        runs beside, and its warnings come when it is done (they do not stop the generation);
        what it found in the same document before is taken from the cache."""
        from .reading.validate import known_problems, worker_problems  # slow to import

        cache_dir = default_cache_dir()
        known = known_problems(self.path, cache_dir)
        found: list[Finding] = []
        with contextlib.ExitStack() as stack:
            if known is None:
                pool = stack.enter_context(
                    concurrent.futures.ProcessPoolExecutor(1, mp_context=_worker_context())
                )
                problems = pool.submit(worker_problems, self.path, cache_dir)
            try:
                document = parse_file(self.path, lenient=True)
                package = self.info(document.title)
                recover(self.out.resolve())
                check_output_folder(self.out.resolve(), package.import_name)
                rendering = render_one_document(
                    self.path, document, package, self.version, cache_dir=cache_dir
                )
                found += rendering.warnings

                def verify(staging: Path) -> None:
                    import_packages([(staging, package.import_name)], cache_dir)

                write_tree(rendering.files, self.out, package=package.import_name, verify=verify)
            finally:
                found += _findings(known if known is not None else problems)
                report.warnings(found)
        report.done(f"rendered {len(rendering.files)} files of {self.path} into {self.out}")

    def info(self, title: str) -> PackageInfo:
        """The package's names: given, else from the document's title (else its file's name)."""
        title = title or self.path.stem
        words = re.findall(r"[0-9A-Za-z]+", title.lower()) or ["api"]
        name = self.package or shorten("_".join(words))
        if not name.isidentifier() or keyword.iskeyword(name):
            raise GeneratorError(f"--package {name!r} is not a Python package name")
        distribution = self.distribution or name.replace("_", "-")
        prose = title if title.lower().endswith(("api", "apis")) else f"{title} API"
        prefix = self.env_prefix or name.upper()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
            raise GeneratorError(f"--env-prefix {prefix!r} is not the start of a variable's name")
        return PackageInfo(name, distribution, f"the {prose}", False, env_prefix=prefix)


def _findings(problems: list[Problem] | concurrent.futures.Future[list[Problem]]) -> list[Finding]:
    """The validator's findings, as warnings; a worker that died is a warning too (its findings
    never stop a generation)."""
    try:
        found = problems if isinstance(problems, list) else problems.result()
    except Exception as exc:  # the worker was killed (out of memory, a signal)
        return [Finding(VALIDATOR, f"openapi-spec-validator did not finish: {exc!r}")]
    return [Finding(VALIDATOR, str(problem)) for problem in found]


def _worker_context() -> multiprocessing.context.BaseContext:
    """Fork where the platform has it (the worker starts at once, with the modules loaded)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)
