"""What recording a version of the runtime takes: within a major version, the surface of the
release before it (see :mod:`generator.release.surface`); for a new major version, revision
packages that accept it, each released again (a post-release) with a range that includes it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..reading import runtime
from ..reading.revisions import RevisionIndex
from .records import Release, Releases
from .surface import Surface, SurfaceError, breaks, describe, load_surfaces


def runtime_surface(
    spec_dir: Path, releases: Releases, index: RevisionIndex, generated: Path
) -> Surface:
    """The surface of this checkout's runtime, to record with its version; refused (SurfaceError,
    naming each difference and what to do, nothing recorded) where the version is a minor or
    patch release whose surface breaks that of the release before it, or a new major version
    that a revision's package in ``generated`` does not accept."""
    version = _version(runtime.version(), "runtime/together_rl_runtime/_version.py")
    earlier = [
        (_version(r.version, str(releases.source)), r)
        for r in releases.releases
        if r.distribution == runtime.DISTRIBUTION
    ]
    earlier = [(v, r) for v, r in earlier if v < version]
    surface = describe()
    if not earlier:
        return surface
    before, previous = max(earlier, key=lambda pair: pair[0])
    if version.major > before.major:
        _refuse_unaccepted(version, previous, index, generated)
        return surface
    recorded = load_surfaces(spec_dir).get(previous.version)
    if recorded is None:
        raise SurfaceError(
            f"{spec_dir.name}/runtime-surface.yaml has no surface of {runtime.DISTRIBUTION} "
            f"{previous.version}, the release before {version}: `release` records one with each "
            "runtime version; restore it from the repository's history"
        )
    found = breaks(recorded, surface)
    if found:
        listed = "\n".join(str(difference) for difference in found)
        raise SurfaceError(
            f"{runtime.DISTRIBUTION} {version} removes or changes what revision packages use of "
            f"{previous.version}:\n{listed}\nWithin a major version the runtime only adds and "
            "fixes: keep each of these as it was (a new name, or an optional parameter, may go "
            f"beside it), or, on purpose, make this release {version.major + 1}.0.0, released "
            "together with post-releases of the revision packages that accept it "
            '(runtime/README.md, "Compatibility"). Nothing was recorded'
        )
    return surface


def _refuse_unaccepted(
    version: Version, previous: Release, index: RevisionIndex, generated: Path
) -> None:
    """Refuse a new major version of the runtime while a revision's package does not accept it."""
    refusing = [
        line
        for line in (_refused_by(generated / revision.id, version) for revision in index)
        if line is not None
    ]
    if refusing:
        listed = "\n".join(refusing)
        raise SurfaceError(
            f"{runtime.DISTRIBUTION} {version} is a new major version (after {previous.version}), "
            f"and these revision packages do not accept it:\n{listed}\nA major version may remove "
            "or change what revision packages use of the runtime, so it is released together "
            "with new releases of the revision packages that accept it: post-release each of "
            f"them (`python -m generator post-release ID`) with a range that includes {version}, "
            "generate, review, and release them with the runtime. Nothing was recorded"
        )


def _refused_by(package: Path, version: Version) -> str | None:
    """``  generated/ID (together-rl X.Y.Z): REQUIREMENTS`` where the package in the folder
    ``package`` requires the runtime in a range that leaves ``version`` out; ``None`` where it
    accepts it, or is not generated (the check of ``generated/`` that follows names it)."""
    pyproject = package / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SurfaceError(f"{pyproject}: not TOML: {exc}") from None
    if not isinstance(project, dict):
        raise SurfaceError(f"{pyproject}: no [project] table")
    lists = [project.get("dependencies", [])]
    extras = project.get("optional-dependencies", {})
    lists += extras.values() if isinstance(extras, dict) else [extras]
    if not all(isinstance(texts, list) for texts in lists) or not all(
        isinstance(text, str) for texts in lists for text in texts
    ):
        raise SurfaceError(f"{pyproject}: expected lists of requirements in [project]")
    refusing = []
    for text in (text for texts in lists for text in texts):
        try:
            requirement = Requirement(text)
        except InvalidRequirement as exc:
            raise SurfaceError(f"{pyproject}: the requirement {text!r} is not one: {exc}") from None
        if canonicalize_name(requirement.name) == runtime.DISTRIBUTION and not (
            requirement.specifier.contains(version, prereleases=True)
        ):
            refusing.append(text)
    if not refusing:
        return None
    name = f"{project.get('name')} {project.get('version')}"
    return f"  {package.parent.name}/{package.name} ({name}): {', '.join(refusing)}"


def _version(text: str, where: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise SurfaceError(f"{where}: {text!r} is not a version") from None
