"""Import generated packages once, in a fresh interpreter, before they are written: code that
does not import (a name clash, a syntax error in a corner of a template) stops the generation
with the file and line, rather than reaching users."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..caching import Store, digest
from ..errors import GeneratorError
from ..reading.runtime import DISTRIBUTION, IMPORT_NAME, project_files, python_path, version

# Each package is imported under a name of its own, so that several load side by side; its
# client and models modules too (the reference needs torch and is left out).
_SCRIPT = """
import importlib, importlib.util, json, sys, traceback
failures = []
for number, (folder, name) in enumerate(json.loads(sys.argv[1])):
    alias = f"_smoke_{number}"
    try:
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
    argument = json.dumps([[str(folder), name] for (folder, name), _ in todo])
    with tempfile.TemporaryDirectory() as metadata:
        result = subprocess.run(
            [sys.executable, "-c", _SCRIPT, argument],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": _with_runtime_metadata(Path(metadata))},
        )
    try:
        failures = json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise SmokeTestError(
            f"the rendered packages could not be imported: {result.stderr[-2000:]}"
        ) from None
    if failures:
        raise SmokeTestError(
            "a rendered package does not import, so nothing was written:\n  "
            + "\n  ".join(failures)
        )
    if store is not None:
        for _, key in todo:
            store.put(key, b"ok")


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
