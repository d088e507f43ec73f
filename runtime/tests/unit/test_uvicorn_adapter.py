"""The adapter of uvicorn's internals (``together_rl_runtime.reference._uvicorn``), on the uvicorn
installed: what it builds on is there, and the range it is tested with is the range the runtime
declares (what each of its names does over a real server: ../e2e/test_uvicorn_adapter_served.py).
``nox -s uvicorn`` runs both on each end of that range."""

from __future__ import annotations

import ast
import asyncio
import re
import tomllib
from typing import Any

import uvicorn
from packaging.specifiers import SpecifierSet

from support.paths import ROOT
from together_rl_runtime.reference import _uvicorn

INTERNALS = ["send_400_response", "on_response_complete", "_unset_keepalive_if_required"]


def test_the_uvicorn_installed_has_what_the_adapter_builds_on():
    lacking = _uvicorn.missing()
    assert lacking == [], f"uvicorn {uvicorn.__version__} lacks H11Protocol's {lacking}"
    assert _uvicorn.missing(asyncio.Protocol) == INTERNALS  # the check sees what is not there


def test_the_range_tested_is_the_range_the_runtime_declares():
    """The runtime's ``reference`` extra and the tests' requirements ask for the range the
    adapter says it is tested with, and ``nox -s uvicorn`` tests its oldest release and the
    newest minor below its bound."""
    runtime = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = f"uvicorn{_uvicorn.SUPPORTED}"
    assert wanted in runtime["project"]["optional-dependencies"]["reference"]
    assert wanted in project["project"]["optional-dependencies"]["test"]
    assert uvicorn.__version__ in SpecifierSet(_uvicorn.SUPPORTED), uvicorn.__version__
    low, high = re.fullmatch(r">=(\d+\.\d+),<(\d+\.\d+)", _uvicorn.SUPPORTED).groups()
    tested = _noxfile_constant("UVICORNS")
    assert tested[0] == f"{low}.0"
    major, minor = high.split(".")
    assert tested[-1].startswith(f"{major}.{int(minor) - 1}."), (tested, high)
    assert all(version in SpecifierSet(_uvicorn.SUPPORTED) for version in tested)


def _noxfile_constant(name: str) -> Any:
    """The value of ``noxfile.py``'s constant ``name`` (read, not imported: nox need not be
    installed where the tests run)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            name
        ]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"noxfile.py has no {name}")
