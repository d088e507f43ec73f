"""The runtime distribution beside the generator (``runtime/``): what every revision package
depends on, and the one source of the lists the generator and the runtime share (the settings,
roles and rules of the local reference, and the names generated code imports).

The generator always uses the runtime of its own checkout, never another one that happens to
be installed: the packages it renders declare that runtime's version.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

from ..errors import GeneratorError

RUNTIME_DIR = Path(__file__).resolve().parents[2] / "runtime"
"""The runtime's project folder (its ``pyproject.toml`` and package)."""
IMPORT_NAME = "together_rl_runtime"
DISTRIBUTION = "together-rl-runtime"
VENDORED = "_runtime"
"""Where a package of one document (``generate --spec``) keeps its copy of the client core."""
_NOT_VENDORED = ("reference", "optimizers.py", "settings.py")
"""What of the runtime a package of one document does not get: the local reference, its
optimizers and their settings, which belong to the revisions of ``spec/``."""


class RuntimeMissingError(GeneratorError):
    """The runtime is not beside the generator, or another copy of it is imported."""


@cache
def runtime() -> ModuleType:
    """The runtime package of this checkout, imported (RuntimeMissingError, naming the pip
    command that installs it, where it is not installed or another copy is imported)."""
    package = RUNTIME_DIR / IMPORT_NAME
    if not (package / "__init__.py").is_file():
        raise RuntimeMissingError(f"the runtime is not at {package}")
    install = f"pip install -e {RUNTIME_DIR}"
    try:
        module = importlib.import_module(IMPORT_NAME)
    except ModuleNotFoundError as exc:
        if exc.name != IMPORT_NAME:
            raise
        raise RuntimeMissingError(
            f"{IMPORT_NAME} is not installed: the generator needs this checkout's runtime; "
            f"install it with `{install}`"
        ) from None
    where = Path(module.__file__ or "").resolve().parent
    if where != package.resolve():
        raise RuntimeMissingError(
            f"{IMPORT_NAME} is imported from {where}, not from this checkout's {package}: "
            f"install this checkout's with `{install}` (a copy of the project: put {RUNTIME_DIR} "
            "first on PYTHONPATH)"
        )
    return module


def version() -> str:
    """The runtime's version (``1.2.0``)."""
    value: str = runtime().__version__
    return value


def requirement(settings: Iterable[str] = (), extra: str = "", releases: Iterable[str] = ()) -> str:
    """What a revision package declares of the runtime: any release of the runtime's major
    version from the oldest that applies every setting its fields set (``settings``, such as
    ``<optimizer>.beta1``; see ``together_rl_runtime.settings.SINCE``) and is at least each
    release of ``releases`` (``major.minor``: what else its client and its reference use):
    ``together-rl-runtime>=1.0,<2``.

    It depends on the package alone, never on the runtime's newest release, so that a new
    runtime release changes no byte of a released package."""
    from together_rl_runtime.settings import SINCE

    major = int(version().split(".")[0])
    needed = [(major, 0), *(_minor(SINCE[s]) for s in settings if s in SINCE)]
    low = max(needed + [_minor(r) for r in releases])
    name = f"{DISTRIBUTION}[{extra}]" if extra else DISTRIBUTION
    return f"{name}>={low[0]}.{low[1]},<{major + 1}"


_RANGE = re.compile(re.escape(DISTRIBUTION) + r">=(\d+)\.(\d+),<(\d+)", re.ASCII)


def requirement_range(text: str) -> tuple[tuple[int, int], tuple[int]]:
    """The bounds of a requirement :func:`requirement` writes (``together-rl-runtime>=1.0,<2``):
    the oldest release it takes and the first it does not, ``((1, 0), (2,))``, as the check a
    package makes of its runtime compares them (:data:`~generator.output.package.REQUIREMENT`).
    A requirement of any other form is refused."""
    match = _RANGE.fullmatch(text)
    if match is None:
        raise GeneratorError(
            f"{text!r} is not a requirement of the form {DISTRIBUTION}>=X.Y,<Z, the one a "
            "package's check of its runtime reads"
        )
    major, minor, below = (int(group) for group in match.groups())
    return (major, minor), (below,)


def _minor(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


CLIENT_HELPERS = frozenset(
    {
        "wire",
        "form",
        "status_error",
        "parameter",
        "path_parameter",
        "idempotency_key_of",
        "joined",
        "query",
        "cookie",
        "styled",
        "styled_path",
    }
)
"""The runtime's functions that a generated client's methods call: the client module imports
them under a leading underscore (``wire as _wire``), so that no argument shadows them."""


def interface() -> tuple[str, ...]:
    """The names generated code may import from the runtime (its ``__all__``)."""
    return tuple(runtime().__all__)


SURFACE_MODULES: tuple[tuple[str, str | tuple[str, ...]], ...] = (
    (IMPORT_NAME, "__all__"),
    (f"{IMPORT_NAME}.reference", "__all__"),
    (f"{IMPORT_NAME}.reference.serve", ("main",)),
    (f"{IMPORT_NAME}.settings", "classes"),
)
"""Where the names are that revision packages use of the runtime, and which of each module's:
every name of the package's :func:`interface` and of its reference's ``__all__``, the server's
``main``, and the classes of ``settings`` (the rules a revision's ``reference/_fields.py``
builds). These, with :data:`SUBCLASS_MEMBERS`, are the runtime's surface, recorded with each of
its releases (see :mod:`generator.release.surface`)."""

_CLIENT_MEMBERS = (
    "_build_request", "_events", "_parse", "_send", "_spec", "_wait", "_warn_not_applied"
)  # fmt: skip

SUBCLASS_MEMBERS: dict[str, tuple[str, ...]] = {
    f"{IMPORT_NAME}.Model": ("_FIELDS", "_OTHER_REVISIONS", "_STRICT", "_fields_of"),
    f"{IMPORT_NAME}.SyncAPIClient": _CLIENT_MEMBERS,
    f"{IMPORT_NAME}.AsyncAPIClient": _CLIENT_MEMBERS,
}
"""The members with a leading underscore that generated classes use of the runtime's classes
they derive from: the attributes they set (a client's ``_spec``, a model's ``_FIELDS``) and the
methods they call (``self._send``)."""

OVERRIDDEN: dict[str, frozenset[str]] = {
    f"{IMPORT_NAME}.Model": frozenset({"from_dict", "to_dict"})
}
"""The runtime's methods that generated classes define again, and the runtime calls: their
parameters stay as they are within a major version (an optional one added would be passed to a
generated method that does not take it)."""


def vendored_files() -> dict[str, bytes]:
    """The client core's files, by path in a package of one document (``_runtime/...``); the
    copy's ``__init__`` says what it is in place of the runtime's own docstring."""
    package = RUNTIME_DIR / IMPORT_NAME
    files = {
        f"{VENDORED}/{path.name}": path.read_bytes()
        for path in sorted(package.iterdir())
        if path.is_file() and path.name not in _NOT_VENDORED and path.suffix == ".py"
    }
    key = f"{VENDORED}/__init__.py"
    init = files[key].decode()
    start = init.index('"""')
    end = init.index('"""', start + 3) + 3
    files[key] = (init[:start] + _VENDORED_DOC.format(version=version()) + init[end:]).encode()
    return files


_VENDORED_DOC = '''"""The client core of this package: configuration, retries, credentials, reading responses,
waiting, the models' base and the errors. It is a copy of the generator's runtime (version {version}),
which the package's modules import from here, so that the package needs nothing more."""'''


def python_path() -> str:
    """``PYTHONPATH`` for a process that imports generated packages: the runtime first."""
    rest = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(RUNTIME_DIR), *([rest] if rest else [])])


def project_files() -> dict[str, bytes]:
    """The runtime's files as a release holds them (its project metadata, docs and package; not
    its tests), by path in ``runtime/``."""
    files = {name: (RUNTIME_DIR / name).read_bytes() for name in _PROJECT_FILES}
    package = RUNTIME_DIR / IMPORT_NAME
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files[path.relative_to(RUNTIME_DIR).as_posix()] = path.read_bytes()
    return files


_PROJECT_FILES = ("pyproject.toml", "README.md", "CHANGELOG.md")
