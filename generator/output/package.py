"""One package's files: ``templates/`` rendered with the views of one document.

``templates/`` mirrors a package: a file ending in ``.jinja`` is rendered (once, once per
operation where its name holds ``{operation}``, or once per module of a split ``models.py`` where
it holds ``{part}``) to the path without the suffix; any other file is runtime code that is the
same in every package, copied as it is. ``templates/include/`` holds what templates include, and
is not a file of the package. The texts come out as the templates lay them out; the Python among
them is formatted once every package rendered (see :func:`generator.output.render.finish`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from together_rl_runtime.settings import Sets

from ..changes import changelog
from ..changes.versions import VersionedChanges
from ..errors import GeneratorError, SpecError
from ..findings import Finding
from ..reading import ir, runtime
from ..reading.revisions import Revision
from ..views.docpage import OperationPage, operation_pages
from ..views.pyclient import PyClient
from ..views.pymodel import PyModule
from ..views.pyparts import split_models
from ..views.reference import ReferenceView
from .templating import environment

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"
TEMPLATE_SUFFIX = ".jinja"
PER_OPERATION = "{operation}"
PER_PART = "{part}"
INCLUDES = "include/"
REQUIREMENT = "_requirement.py"
"""The module of a revision package that checks, when it is imported, the runtime's version."""


class RenderError(GeneratorError):
    """A template failed to render, or rendered something black cannot parse."""


@dataclass(frozen=True)
class Templates:
    """The files of ``templates/``: those to render, and the runtime files copied as they are."""

    environment: jinja2.Environment
    rendered: tuple[str, ...]
    """The names of the templates (``together_rl/models.py.jinja``), sorted."""
    static: dict[str, bytes]
    """The runtime files by their path in a package (``together_rl/_model.py``)."""


def load_templates(folder: Path = TEMPLATES_DIR, cache_dir: Path | None = None) -> Templates:
    """The templates of ``folder``. Their environment is made once per process for the same
    sources, so that a template is compiled once however many documents are rendered; a change
    of any file of ``folder`` makes a new one."""
    sources = {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    digest = hashlib.sha256()
    for name, content in sorted(sources.items()):
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    files = sorted(f for f in sources if not f.startswith(INCLUDES))
    return Templates(
        environment=_environment(folder, cache_dir, digest.hexdigest()),
        rendered=tuple(f for f in files if f.endswith(TEMPLATE_SUFFIX)),
        static={f: sources[f] for f in files if not f.endswith(TEMPLATE_SUFFIX)},
    )


@functools.lru_cache(maxsize=8)
def _environment(folder: Path, cache_dir: Path | None, sources: str) -> jinja2.Environment:
    """The environment of ``folder`` whose files have the digest ``sources`` (a key, unread)."""
    return environment(folder, cache_dir)


@dataclass(frozen=True)
class PackageInfo:
    """Who a generated package is."""

    import_name: str
    """The Python package (``together_rl``)."""
    distribution: str
    """The distribution on a package index (``together-rl``)."""
    title: str
    """The API, as the package's prose names it."""
    revisions: bool
    """A package of ``spec/``'s stream of revisions: with its changelog, its compatibility with
    earlier revisions, and the local reference of the optimizer; it depends on the runtime
    distribution. A package of one document carries a copy of the client core instead."""
    env_prefix: str = "TOGETHER"
    """The prefix of the environment variables the client reads (``TOGETHER_API_KEY``)."""

    @property
    def runtime(self) -> str:
        """Where the package's modules import the runtime from."""
        return runtime.IMPORT_NAME if self.revisions else f".{runtime.VENDORED}"

    @property
    def api_key_env(self) -> str:
        return f"{self.env_prefix}_API_KEY"

    @property
    def base_url_env(self) -> str:
        return f"{self.env_prefix}_BASE_URL"


REVISION_PACKAGE = PackageInfo("together_rl", "together-rl", "the Together RL API", True)
TEMPLATE_PACKAGE = "together_rl"
"""The folder of ``templates/`` that becomes the Python package."""


@dataclass(frozen=True)
class PackageFiles:
    """The files of one package: rendered texts, each ``(template name, text)`` (Python not yet
    formatted), and runtime files as they are, by path in the package's folder."""

    rendered: dict[str, tuple[str, str]]
    static: dict[str, bytes]
    warnings: list[Finding]
    notes: list[str] = field(default_factory=list)


@contextlib.contextmanager
def located(revision: Revision) -> Iterator[None]:
    """Name the document in an error the views raise with a pointer alone."""
    try:
        yield
    except SpecError as exc:
        if exc.source is not None:
            raise
        named = type(exc)(exc.pointer, exc.message, source=str(revision.file))
        raise named from None


def package_files(
    templates: Templates,
    doc: ir.Document,
    revision: Revision,
    module: PyModule,
    client: PyClient,
    context: dict[str, Any],
    history: Sequence[VersionedChanges],
    warnings: list[Finding],
) -> PackageFiles:
    """The files of the package of ``doc`` (its ``revision``), rendered with its models and
    client, the templates' ``context`` (the package's own part: its ``PackageInfo``, version,
    reference, ...), and ``history`` for the changes each operation page lists."""
    package: PackageInfo = context["package"]
    names = module.names
    assert names is not None
    pages = operation_pages(doc, [(op, names.pages.get(op.route)) for op in doc.operations])
    parts = split_models(module)
    releases = (*client.runtime_releases, *_since(context["reference"]))
    requirement = runtime.requirement(_settings_used(context["reference"]), releases=releases)
    context = {
        **context,
        "module": module,
        "parts": parts,
        "client": client,
        "pages": pages,
        "runtime": package.runtime,
        "runtime_requirement": requirement,
        "runtime_range": runtime.requirement_range(requirement),
        "package_data": _package_data(doc, package, pages),
        "upgrade": _upgrade_command(package, context["version"]) if package.revisions else None,
        "runtime_reference_requirement": runtime.requirement(
            _settings_used(context["reference"]), "reference", releases
        ),
    }
    inside = package.import_name
    rendered = {f"{inside}/openapi.yaml": ("", revision.file.read_text(encoding="utf-8"))}
    for name in doc.files:  # the files its $refs read, where they are beside it
        text = (revision.file.parent / name).read_text(encoding="utf-8")
        rendered[f"{inside}/{name}"] = ("", text)
    for template_name in templates.rendered:
        output = _output(template_name.removesuffix(TEMPLATE_SUFFIX), package)
        if not _wanted(output, package, context):
            continue
        template = templates.environment.get_template(template_name)
        if PER_OPERATION in output:
            for page in pages:
                changes = changelog.changes_section(
                    changelog.for_operation(history[1:], page.operation.key), limit=4
                )
                text = _render(template, page=page, changes=changes, **context)
                rendered[output.replace(PER_OPERATION, page.name)] = (template_name, text)
        elif PER_PART in output:
            for part in parts:
                text = _render(template, part=part, **context)
                rendered[output.replace(PER_PART, part.number)] = (template_name, text)
        else:
            rendered[output] = (template_name, _render(template, **context))
    static = {
        _output(path, package): content
        for path, content in templates.static.items()
        if _wanted(_output(path, package), package, context)
    }
    if not package.revisions:  # a package of one document carries the client core
        static |= {
            f"{package.import_name}/{path}": content
            for path, content in runtime.vendored_files().items()
            if _wanted(f"{package.import_name}/{path}", package, context)
        }
    return PackageFiles(rendered, static, warnings)


def _upgrade_command(package: PackageInfo, version: str) -> str:
    """The pip command that brings a package pinned to ``version`` the newest runtime it works
    with: naming the pinned package beside the runtime has pip resolve the two together, so that
    the runtime stays within the range the package declares (``pip install -U
    together-rl-runtime`` alone does not weigh what is installed, and would take a runtime of the
    next major version)."""
    return f"pip install -U {runtime.DISTRIBUTION} '{package.distribution}=={version}'"


def _package_data(
    doc: ir.Document, package: PackageInfo, pages: Sequence[OperationPage]
) -> list[str]:
    """The files of the Python package that are not Python, by path in it: what a reader of the
    package's README on an index finds in the installed package (``importlib.resources``)."""
    files = ["py.typed", "openapi.yaml", *doc.files, *(f"docs/{page.name}.md" for page in pages)]
    return [*files, "CHANGELOG.md"] if package.revisions else files


def _since(reference: ReferenceView | None) -> tuple[str, ...]:
    """The runtime releases the package's reference needs beyond its settings'."""
    return () if reference is None else reference.runtime_since


def _settings_used(reference: ReferenceView | None) -> set[str]:
    """The settings the package's request fields set in the local reference."""
    if reference is None:
        return set()
    return {
        setting
        for _, rules in reference.rules.sessions
        for _, rule in rules
        if isinstance(rule, Sets)
        for setting in rule.settings
    }


def _output(path: str, package: PackageInfo) -> str:
    """A template's path in the package: its Python package folder named as the package is."""
    head, _, rest = path.partition("/")
    return f"{package.import_name}/{rest}" if head == TEMPLATE_PACKAGE and rest else path


def _wanted(path: str, package: PackageInfo, context: dict[str, Any]) -> bool:
    """Whether a package has this file: the changelog, the check of the runtime's version and
    the local reference only a package of the revision stream, the license text only a package
    whose metadata names its copyright."""
    if path in (f"{package.import_name}/CHANGELOG.md", f"{package.import_name}/{REQUIREMENT}"):
        return package.revisions
    if path == "LICENSE":
        return context["metadata"].copyright is not None
    if path.startswith(f"{package.import_name}/reference/"):
        return context["reference"] is not None
    return True


def _render(template: jinja2.Template, **context: Any) -> str:
    try:
        return template.render(**context)
    except jinja2.TemplateError as exc:
        raise RenderError(f"{template.name}: {exc}") from exc
