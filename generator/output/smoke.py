"""Import generated packages once, in a process of their own (a child forked from the
generator's, else a fresh interpreter), before they are written: code that does not import (a
name clash, a syntax error in a corner of a template) stops the generation with the file and
line, rather than reaching users."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ..caching import Store, digest
from ..errors import GeneratorError
from ..reading.runtime import (
    DISTRIBUTION,
    IMPORT_NAME,
    VENDORED,
    project_files,
    python_path,
    vendored_files,
    version,
)

# Each package is imported under a name of its own, so that several load side by side; its
# client and models modules too (the reference needs torch and is left out). A package whose
# copy of the client core is this checkout's runtime, byte for byte but its docstring (see
# _copies_the_runtime), gets the runtime's modules this process has imported as that copy's, in
# a package of the copy's own folder (so that a module the copy lacks is still missing): the
# same code, not compiled and run again. The cyclic garbage collector is off: what the imports
# make (modules, classes, functions) lives until the process ends, moments later, and each
# collection would walk it and all the generator's objects a forked child holds (a tenth of the
# check of a package of thousands of models).
_SCRIPT = """
import gc
gc.disable()
import importlib, importlib.util, json, os, sys, traceback, types
_OWN = {"__name__", "__spec__", "__loader__", "__path__", "__file__", "__package__", "__cached__"}
def _runtime_as(package, folder):
    import together_rl_runtime as runtime
    def absent(value):  # a module of the runtime the copy does not hold
        name = getattr(value, "__name__", "") if isinstance(value, types.ModuleType) else ""
        prefix, _, short = name.partition(".")
        return prefix == runtime.__name__ and not os.path.isfile(f"{folder}/{short}.py")
    copy = types.ModuleType(package, runtime.__doc__)
    copy.__dict__.update(
        (k, v) for k, v in vars(runtime).items() if k not in _OWN and not absent(v)
    )
    copy.__path__ = [folder]
    copy.__file__ = f"{folder}/__init__.py"
    copy.__package__ = package
    sys.modules[package] = copy
    for name, module in list(sys.modules.items()):
        prefix, _, short = name.partition(".")
        if prefix == runtime.__name__ and short and "." not in short and not absent(module):
            sys.modules[f"{package}.{short}"] = module
failures = []
for number, (folder, name, copies) in enumerate(json.loads(sys.argv[1])):
    alias = f"_smoke_{number}"
    try:
        if copies:
            _runtime_as(f"{alias}._runtime", f"{folder}/{name}/_runtime")
        spec = importlib.util.spec_from_file_location(
            alias, f"{folder}/{name}/__init__.py", submodule_search_locations=[f"{folder}/{name}"]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module
        spec.loader.exec_module(module)
        importlib.import_module(f"{alias}.models")
    except BaseException as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = frame.filename.replace(f"{folder}/", "")
        failures.append(f"{where}:{frame.lineno}: {type(exc).__name__}: {exc}")
print(json.dumps(failures))
"""


class SmokeTestError(GeneratorError):
    """A rendered package does not import."""


def import_packages(packages: Sequence[tuple[Path, str]], cache_dir: Path | None = None) -> None:
    """Import each ``(folder, import name)``; raise :class:`SmokeTestError` naming the file and
    line of every failure. With a ``cache_dir``, a package whose files imported before, with
    this interpreter and this runtime, is not imported again."""
    store = None
    keys = [""] * len(packages)
    if cache_dir is not None:
        interpreter = {"python": sys.executable, "version": sys.version, "httpx": _httpx()}
        store = Store(cache_dir, "imported", interpreter)
        runtime = _runtime_fingerprint()
        keys = [_fingerprint(folder, name, runtime) for folder, name in packages]
    todo = [
        (package, key)
        for package, key in zip(packages, keys)
        if store is None or store.get(key) != b"ok"
    ]
    if not todo:
        return
    argument = json.dumps(
        [[str(folder), name, _copies_the_runtime(folder, name)] for (folder, name), _ in todo]
    )
    with tempfile.TemporaryDirectory() as metadata:
        output, errors = _run_script(argument, _with_runtime_metadata(Path(metadata)))
    try:
        failures = json.loads(output.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise SmokeTestError(
            f"the rendered packages could not be imported: {errors[-2000:]}"
        ) from None
    if failures:
        raise SmokeTestError(
            "a rendered package does not import, so nothing was written:\n  "
            + "\n  ".join(failures)
        )
    if store is not None:
        for _, key in todo:
            store.put(key, b"ok")


def _run_script(argument: str, path: str) -> tuple[str, str]:
    """The output and errors of the import script on ``argument`` with ``path`` first on the
    module search path: in a child forked from this process where the platform forks (the
    interpreter, httpx and the runtime are loaded already: a fresh interpreter spends longer
    starting than importing a small package), else in a fresh interpreter. Neither writes
    bytecode: the folder keeps what was rendered, and writing it would add a tenth to the
    import of a large package."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        result = subprocess.run(
            [sys.executable, "-c", _SCRIPT, argument],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        return result.stdout, result.stderr
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # what is buffered is written once, by this process
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        output, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, measured by its output
            _child(argument, path, write, errors.fileno())
        os.close(write)
        with os.fdopen(output, encoding="utf-8") as reader:
            text = reader.read()
        os.waitpid(pid, 0)
        errors.seek(0)
        return text, errors.read()


def _child(argument: str, path: str, write: int, errors: int) -> NoReturn:  # pragma: no cover
    """Run the import script in a forked child, its output to ``write`` and its errors to
    ``errors``; never returns (nothing of the parent's exit runs twice)."""
    status = 1
    try:
        os.dup2(errors, 2)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)  # what a module prints is not the script's output
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
        sys.stdout = open(write, "w", encoding="utf-8")
        sys.path[:0] = path.split(os.pathsep)
        sys.argv = ["-c", argument]
        sys.dont_write_bytecode = True  # a check, not an install: no bytecode left behind
        importlib.invalidate_caches()
        exec(compile(_SCRIPT, "<smoke>", "exec"), {"__name__": "__main__"})
        sys.stdout.flush()
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(status)


def _copies_the_runtime(folder: Path, name: str) -> bool:
    """Whether the package's copy of the client core is what :func:`vendored_files` copies of
    this checkout's runtime, file for file and byte for byte (its ``__init__`` differs from the
    runtime's in its docstring alone)."""
    copy = folder / name / VENDORED
    if not copy.is_dir():
        return False
    files = {
        f"{VENDORED}/{path.name}": path.read_bytes() for path in copy.iterdir() if path.is_file()
    }
    return files == vendored_files()


def _with_runtime_metadata(folder: Path) -> str:
    """``PYTHONPATH`` for the smoke import: the metadata of this checkout's runtime at the version
    its source states, then the runtime itself. A package checks the runtime's version as
    installed (its metadata) when it is imported; an editable install's metadata (in
    site-packages, and the ``.egg-info`` beside the runtime's sources) keeps the version it was
    installed at, which a runtime being bumped has left behind. The folder holds no code."""
    current = version()
    info = folder / f"{IMPORT_NAME}-{current}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {current}\n", encoding="utf-8"
    )
    return os.pathsep.join([str(folder), python_path()])


def _httpx() -> str:
    from importlib import metadata

    try:
        return metadata.version("httpx")
    except metadata.PackageNotFoundError:
        return ""


def _runtime_fingerprint() -> str:
    return digest(*(part for item in sorted(project_files().items()) for part in item))


def _fingerprint(folder: Path, name: str, runtime: str) -> str:
    """The hash of what importing a package reads: its files and the runtime's."""
    parts: list[bytes | str] = [_SCRIPT, runtime, name]
    for file in sorted(p for p in (folder / name).rglob("*") if p.is_file()):
        if "__pycache__" not in file.parts:
            parts += [file.relative_to(folder).as_posix(), file.read_bytes()]
    return digest(*parts)
