"""A package whose path parameter has checks parses on every supported Python: before 3.12 an
f-string's replacement field may hold no double quote or backslash, so a path parameter's checks
(an enum's values, a pattern) stay outside any f-string. Each package is parsed by the older
interpreters of this machine, in processes of their own."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

import httpx
import pytest

from support.generatedcode import (
    assert_only_generator_code,
    import_without_effects,
    one_path_document,
    render,
)

CONSTRAINED = {
    "enum": ({"type": "string", "enum": ["a", 'b"', "c'"]}, "z"),
    "pattern": ({"type": "string", "pattern": "^[a-z\"']+$"}, "A1"),
    "const": ({"type": "string", "const": "a"}, "b"),
    "maxLength": ({"type": "string", "maxLength": 3}, "abcd"),
}
"""A path parameter's schema with checks, and a value they refuse."""


@pytest.mark.parametrize("keyword", sorted(CONSTRAINED))
def test_a_constrained_path_parameter_parses_on_every_supported_python(tmp_path, keyword):
    """Before Python 3.12 an f-string's replacement field may hold no double quote or backslash:
    a path parameter's checks (an enum's values, a pattern) are then outside any f-string."""
    name = f"constrained_{keyword.lower()}"
    schema, refused = CONSTRAINED[keyword]
    out = render(tmp_path, one_path_document("/items/{item_id}", schema=schema), name)
    assert out is not None
    assert_only_generator_code(out / name, name)
    client = (out / name / "_client.py").read_text()
    for python in older_pythons():
        compiled = subprocess.run(
            [*python, "-c", "import ast, sys; ast.parse(sys.stdin.read())"],
            input=client,
            capture_output=True,
            text=True,
            env=python_environment(),
        )
        assert compiled.returncode == 0, (python, compiled.stderr)
    module = import_without_effects(out, name, f"{name}_{tmp_path.name}")
    sent = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, json={}))
    module.Client(api_key="k", transport=transport).call("a")
    assert sent[0].url.raw_path == b"/items/a"
    with pytest.raises(module.ValidationError):
        module.Client(api_key="k", transport=transport).call(refused)


@functools.cache
def python_environment() -> dict[str, str]:
    """The environment with every interpreter pyenv manages selected, where pyenv does (its
    shims find only the selected versions otherwise): asked once a test process."""
    environment = dict(os.environ)
    if shutil.which("pyenv"):
        versions = subprocess.run(
            ["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False
        ).stdout.split()
        environment["PYENV_VERSION"] = ":".join(versions)
    return environment


@functools.cache
def older_pythons() -> list[list[str]]:
    """The interpreters on this machine older than 3.12 that the packages support (3.10 and
    3.11), whose parser holds an f-string's replacement fields to the old rules: found once a
    test process."""
    found = []
    for version in ("3.10", "3.11"):
        command = shutil.which(f"python{version}")
        if command is None:
            continue
        probe = subprocess.run(
            [command, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
            env=python_environment(),
        )
        if probe.returncode == 0:
            found.append([command])
    return found
