"""Only recorded releases reach an index: ``build`` builds a package only where
``spec/releases.yaml`` records its version with exactly its files, and ``publish`` uploads an
artifact only where it holds what the record holds of its version.

The record holds the sha256 of every file of each released package (see
:mod:`generator.release.records`); a post-release (``X.Y.Z.postN``) is recorded by ``release``
as any other version of its revision's package. An artifact is a recorded release where:

- every file it took from the package folder is a file of the release, byte for byte;
- it holds every file of the release's Python packages (the folders at the top of the package
  folder with an ``__init__.py``), and an sdist the ``pyproject.toml`` too;
- its core metadata names the release's distribution and version, and its description is the
  release's ``README.md``;
- a wheel's metadata is that of its version's sdist, beside it in the same folder: the sdist
  holds the ``pyproject.toml`` that metadata is written from, the wheel does not.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from pathlib import Path

from ..errors import GeneratorError
from ..output.tree import read_tree
from ..reading import runtime
from .archives import (
    ArchiveError,
    Contents,
    is_wheel,
    normalise_project,
    parse_filename,
    read_contents,
)
from .build import BuildError, build_packages
from .records import Release, Releases, differences, frozen_error

RELEASE_COMMAND = "python -m generator release"
README = "README.md"
"""The file every package's ``pyproject.toml`` names as its readme: its metadata's description."""


class UnrecordedError(GeneratorError):
    """A package or an artifact is not a release that ``spec/releases.yaml`` records."""


@dataclass(frozen=True)
class PackageTree:
    """A package folder of the project: the runtime's, or a revision's package in generated/."""

    folder: Path
    label: str
    """Where it is, as messages name it (``runtime``, ``generated/ID``)."""
    distribution: str
    version: str
    revision: str | None
    files: Mapping[str, bytes]
    """Its files as a release records them, by path in the folder."""

    @property
    def release_command(self) -> str:
        """The command that records it as released."""
        return f"{RELEASE_COMMAND} {self.revision}" if self.revision else RELEASE_COMMAND


def build_recorded(
    generated: Path, out: Path, releases: Releases, *, unreleased: bool = False
) -> list[Path]:
    """Build the runtime and every package in ``generated`` into ``out``, each where
    ``releases`` records its version with exactly its files; return the artifacts, sorted.

    With ``unreleased``, a package whose version is not recorded is built too (to try it
    locally: publish refuses it); a recorded version whose files differ is refused always.
    Where anything is refused nothing is built, and where a built artifact is not what the
    record holds (the build took in a file the record does not, such as a license file)
    nothing is written to ``out``.
    """
    trees = package_trees(generated)
    problems = []
    for tree in trees:
        release = releases.find(tree.distribution, tree.version)
        if release is None:
            if not unreleased:
                problems.append(
                    f"{tree.distribution} {tree.version} ({tree.label}) is not recorded in "
                    f"{releases.source}: `{tree.release_command}` records it"
                )
            continue
        changed = differences(release, tree.files)
        if changed:
            problems.append(frozen_error(release, tree.label, changed))
    if problems:
        raise UnrecordedError(
            f"refusing to build what {releases.source} does not record; nothing was built:\n\n"
            + "\n\n".join(problems)
            + "\n\nOnly recorded releases are built, so that only they can be published; "
            "`build --unreleased` builds the versions not recorded yet too, to try them "
            "locally (publish refuses those)"
        )
    with tempfile.TemporaryDirectory() as scratch:
        built = build_packages([tree.folder for tree in trees], Path(scratch))
        recorded = [path for path in built if _recorded_release(releases, path) is not None]
        problems = artifact_problems(recorded, releases)
        if problems:
            raise UnrecordedError(
                f"the artifacts built are not what {releases.source} records; nothing was "
                f"written to {out}:\n"
                + "\n".join(f"  {problem}" for problem in problems)
                + "\nThe build took in files that the record does not hold (setuptools also "
                "takes license files by their names): remove them from the package folder"
            )
        out.mkdir(parents=True, exist_ok=True)
        for path in built:
            shutil.copyfile(path, out / path.name)
    return sorted(out / path.name for path in built)


def package_trees(generated: Path) -> list[PackageTree]:
    """The runtime's folder and every package folder in ``generated``, with their files."""
    folders = []
    if generated.is_dir():
        folders = sorted(p for p in generated.iterdir() if (p / "pyproject.toml").is_file())
    if not folders:
        raise BuildError(
            f"no generated packages in {generated}; run `python -m generator generate`"
        )
    trees = [
        PackageTree(
            runtime.RUNTIME_DIR,
            "runtime",
            runtime.DISTRIBUTION,
            runtime.version(),
            None,
            runtime.project_files(),
        )
    ]
    for folder in folders:
        distribution, version = _project(folder / "pyproject.toml")
        trees.append(
            PackageTree(folder, str(folder), distribution, version, folder.name, read_tree(folder))
        )
    return trees


def artifact_problems(paths: Sequence[Path], releases: Releases) -> list[str]:
    """Why the wheels and sdists at ``paths`` are not releases that ``releases`` records, one
    line per problem, each naming the artifact, in the order of ``paths`` (none where all are)."""
    problems: dict[Path, list[str]] = {}
    held: dict[Path, Contents] = {}
    for path in paths:
        release = _recorded_release(releases, path)
        if release is None:
            problems[path] = [_unrecorded(path, releases)]
            continue
        try:
            held[path] = read_contents(path)
        except ArchiveError as exc:
            problems[path] = [exc.reason]
            continue
        problems[path] = _differences(release, held[path], path)
    for wheel in (path for path in paths if is_wheel(path.name) and path in held):
        sdist = next(
            (
                path
                for path in paths
                if not is_wheel(path.name)
                and parse_filename(path.name) == parse_filename(wheel.name)
            ),
            None,
        )
        if sdist is None:
            problems[wheel].append(
                "its version's sdist is not beside it, and the wheel alone does not hold the "
                "pyproject.toml its metadata is written from: publish the two that "
                "`python -m generator build` writes"
            )
        elif sdist in held and held[sdist].metadata != held[wheel].metadata:
            problems[wheel].append(
                f"its metadata differs from {sdist.name}'s: the two were not built from one "
                "package folder"
            )
    return [f"{path.name}: {problem}" for path in paths for problem in problems[path]]


def _recorded_release(releases: Releases, path: Path) -> Release | None:
    """The release that the artifact at ``path`` is named as, where it is recorded."""
    parsed = parse_filename(path.name)
    return next(
        (
            release
            for release in releases.releases
            if (normalise_project(release.distribution), release.version.lower()) == parsed
        ),
        None,
    )


def _unrecorded(path: Path, releases: Releases) -> str:
    project, version = parse_filename(path.name) or (path.name, "")
    if project == normalise_project(runtime.DISTRIBUTION):
        command = f"`{RELEASE_COMMAND}` records the runtime's version"
    else:
        command = f"`{RELEASE_COMMAND} ID` records the package of revision ID"
    return f"{project} {version} is not recorded in {releases.source}: {command}"


def _differences(release: Release, contents: Contents, path: Path) -> list[str]:
    """Where ``contents`` of the artifact at ``path`` differ from ``release``."""
    what = f"{release.distribution} {release.version} as released"
    problems = []
    for name, sha256 in sorted(contents.files.items()):
        recorded = release.files.get(name)
        if recorded is None:
            problems.append(f"{name} is not a file of {what}")
        elif recorded != sha256:
            problems.append(f"{name} differs from {what}")
    expected = _python_files(release)
    if not is_wheel(path.name) and "pyproject.toml" in release.files:
        expected.add("pyproject.toml")
    problems += [
        f"{name} of {what} is missing" for name in sorted(expected - contents.files.keys())
    ]
    if contents.metadata is None:
        return [*problems, "holds no core metadata (PKG-INFO, or METADATA in a wheel)"]
    headers = BytesHeaderParser().parsebytes(contents.metadata)
    name, version = str(headers.get("Name", "")), str(headers.get("Version", ""))
    if (normalise_project(name), version) != (
        normalise_project(release.distribution),
        release.version,
    ):
        problems.append(f"its metadata says {name} {version}, not {what}")
    _, _, description = contents.metadata.partition(b"\n\n")
    if README in release.files and hashlib.sha256(description).hexdigest() != release.files[README]:
        problems.append(f"its metadata's description differs from the {README} of {what}")
    return problems


def _python_files(release: Release) -> set[str]:
    """The release's files in its Python packages: the folders at the top of the package
    folder that hold an ``__init__.py``."""
    packages = {
        name.partition("/")[0]
        for name in release.files
        if name.count("/") == 1 and name.endswith("/__init__.py")
    }
    return {name for name in release.files if name.partition("/")[0] in packages}


def _project(pyproject: Path) -> tuple[str, str]:
    """The distribution and version a package folder's ``pyproject.toml`` declares."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BuildError(f"{pyproject}: cannot read it: {exc}") from None
    if not isinstance(project, dict) or not all(
        isinstance(project.get(key), str) for key in ("name", "version")
    ):
        raise BuildError(f"{pyproject}#/project: expected a name and a version, as strings")
    return project["name"], project["version"]
