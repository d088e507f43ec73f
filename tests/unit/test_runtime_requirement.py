"""A revision package refuses, when it is imported, a runtime it was not made for: its check
(``together_rl/_requirement.py``) takes exactly the runtime releases its pyproject declares,
names both versions and the pip command that fixes it, and needs only the standard library."""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

from generator.errors import GeneratorError
from generator.reading.runtime import DISTRIBUTION, requirement_range
from support.paths import ROOT

PACKAGES = sorted(p for p in (ROOT / "generated").iterdir() if (p / "pyproject.toml").is_file())
RELEASES = ["0.9.9", "1.0.0", "1.0.0.post2", "1.1.0", "1.2.0", "1.2.1", "1.99.0", "2.0.0"]
RELEASES += ["2.0.0.post1", "10.0.0"]
NOT_RELEASES = ["1.3.0rc1", "1.3.0.dev0", "1.3", "1.3.0+local", "1.3.0.post", "x"]


def check_module(package: Path) -> ModuleType:
    """The package's check, imported on its own (it imports nothing of the runtime)."""
    path = package / "together_rl" / "_requirement.py"
    spec = importlib.util.spec_from_file_location(f"_requirement_of_{package.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def declared(package: Path) -> Requirement:
    """The runtime dependency of the package's pyproject.toml."""
    pyproject = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
    (found,) = [
        Requirement(r)
        for r in pyproject["project"]["dependencies"]
        if Requirement(r).name == DISTRIBUTION
    ]
    return found


def installed_as(monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    """Make the runtime's installed version ``version`` (None: not installed)."""
    real = metadata.version

    def version_of(name: str) -> str:
        if name != DISTRIBUTION:
            return real(name)
        if version is None:
            raise metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(metadata, "version", version_of)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_the_check_takes_exactly_the_releases_the_package_declares(package, monkeypatch):
    module = check_module(package)
    requirement = declared(package)
    assert Requirement(module.REQUIRES) == requirement
    for version in RELEASES:
        installed_as(monkeypatch, version)
        if requirement.specifier.contains(version):
            module.check_runtime()
            continue
        with pytest.raises(ImportError) as refused:
            module.check_runtime()
        message = str(refused.value)
        version_line = (package / "together_rl" / "_revision.py").read_text(encoding="utf-8")
        own = re.search(r'__version__ = "([^"]+)"', version_line)
        assert own is not None
        assert f"together-rl {own.group(1)} needs {module.REQUIRES}" in message
        assert f"together-rl-runtime {version} is installed" in message
        (command,) = re.findall(r"`(pip install [^`]+)`", message)
        assert shlex.split(command) == ["pip", "install", module.REQUIRES]


def test_a_version_that_is_no_release_or_no_runtime_at_all_is_refused_naming_the_fix(
    monkeypatch,
):
    module = check_module(PACKAGES[0])
    fix = f"`pip install '{module.REQUIRES}'`"
    for version in NOT_RELEASES:
        installed_as(monkeypatch, version)
        with pytest.raises(ImportError, match="is not a release version") as refused:
            module.check_runtime()
        assert f"together-rl-runtime {version} " in str(refused.value)
        assert fix in str(refused.value)
    installed_as(monkeypatch, None)
    with pytest.raises(ImportError, match="no together-rl-runtime is installed") as refused:
        module.check_runtime()
    assert fix in str(refused.value)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_the_check_needs_only_the_standard_library_and_runs_first(package):
    tree = ast.parse((package / "together_rl" / "_requirement.py").read_text(encoding="utf-8"))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
        )
    }
    assert imported <= sys.stdlib_module_names | {"__future__"}
    init = ast.parse((package / "together_rl" / "__init__.py").read_text(encoding="utf-8"))
    statements = [
        node for node in init.body if not isinstance(node, ast.Expr) or node is not init.body[0]
    ]
    first, call = statements[:2]
    assert isinstance(first, ast.ImportFrom) and first.module == "_requirement"
    assert ast.unparse(call) == "check_runtime()"  # before anything of the runtime is imported


def test_a_requirement_of_another_form_is_refused_by_the_generator():
    assert requirement_range("together-rl-runtime>=1.1,<2") == ((1, 1), (2,))
    for text in ("together-rl-runtime>=1.1", "together-rl-runtime~=1.1", "other>=1.0,<2"):
        with pytest.raises(GeneratorError, match="is not a requirement of the form"):
            requirement_range(text)
