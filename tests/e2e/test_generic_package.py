"""A package of one document speaks of its own API: its environment variables are named after
the package, it sends credentials as the document's security schemes say (and asks for none
where the API takes none), and nothing of the Together RL API appears in it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from support.packages import load_package
from support.paths import ROOT
from support.realworld import REAL_WORLD

pytestmark = pytest.mark.skipif(not REAL_WORLD.is_dir(), reason=f"no {REAL_WORLD}")


def generate(document: str, out: Path, *options: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", str(REAL_WORLD / document)]
        + ["--out", str(out), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def galaxy(tmp_path_factory):
    """Scalar's Galaxy: operations that take no credentials, a bearer token, basic credentials."""
    out = generate("scalar-galaxy-0.2.20.yaml", tmp_path_factory.mktemp("galaxy") / "galaxy")
    return out, load_package(out, "scalar_galaxy", "galaxy_generic")


@pytest.fixture(scope="module")
def petstore(tmp_path_factory):
    """Petstore 3.1: a document with no security scheme."""
    out = generate("petstore-3.1.yaml", tmp_path_factory.mktemp("petstore") / "petstore")
    (name,) = [p.name for p in out.iterdir() if (p / "__init__.py").is_file()]
    return out, load_package(out, name, "petstore_generic")


def answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={})


def test_nothing_of_the_together_rl_api_is_in_a_package_of_another_api(galaxy, petstore):
    for out, package in (galaxy, petstore):
        for path in out.rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".toml"):
                text = path.read_text(encoding="utf-8").lower()
                assert "together" not in text and "optimizer" not in text, path
        exported = set(package.__all__)
        assert not {"UnknownOperationError", "IdempotencyKeyReusedError"} & exported


def test_a_document_without_security_needs_no_key(petstore, monkeypatch):
    out, package = petstore
    for name in list(__import__("os").environ):
        if name.endswith("_API_KEY"):
            monkeypatch.delenv(name)
    seen = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[])

    with package.Client(base_url="http://api.test", transport=httpx.MockTransport(record)) as c:
        method = next(m for m in ("list_pets", "get_pets", "pets") if hasattr(c, m))
        getattr(c, method)()
    assert "authorization" not in seen[0].headers
    assert "The API takes no credentials" in (out / "README.md").read_text()


def test_credentials_follow_each_operation_s_scheme_and_the_package_s_variable(galaxy, monkeypatch):
    out, package = galaxy
    monkeypatch.delenv("SCALAR_GALAXY_API_KEY", raising=False)
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": 1, "name": "Mars"})

    transport = httpx.MockTransport(record)
    with package.Client(transport=transport) as anonymous:  # no key: the public operations work
        anonymous.get_all_data()
        assert "authorization" not in seen[-1].headers
        with pytest.raises(package.ConfigurationError) as caught:
            anonymous.create_planet(id=1, name="Mars")
        assert "SCALAR_GALAXY_API_KEY" in str(caught.value) and "POST /planets" in str(caught.value)
    assert len(seen) == 1  # the refused call sent nothing
    monkeypatch.setenv("SCALAR_GALAXY_API_KEY", "ada:secret")
    with package.Client(transport=transport) as client:
        client.create_planet(id=1, name="Mars")
        assert seen[-1].headers["authorization"] == "Bearer ada:secret"
        client.get_me()
        assert seen[-1].headers["authorization"] == "Basic YWRhOnNlY3JldA=="


def test_the_environment_prefix_can_be_chosen(tmp_path):
    out = generate("petstore-schemathesis-3.0.yaml", tmp_path / "pets", "--env-prefix", "PETS")
    client = next(out.glob("*/_client.py")).read_text()
    assert 'api_key_env="PETS_API_KEY"' in client and 'base_url_env="PETS_BASE_URL"' in client
