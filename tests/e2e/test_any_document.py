"""``generate --spec``: a package for any OpenAPI document, the API's whole public document first.

The corpus package must install, import, pass ``mypy --strict`` and call an operation of every
tag against a server on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from generator.reading.parser import is_json, parse_file
from generator.reading.values import sample
from generator.release.build import build_packages
from generator.views.pymodel import component_classes, operation_name
from support.loopback import LoopbackServer
from support.packages import load_package
from support.paths import CORPUS, ROOT, SHARED
from support.pycode import assert_tidy
from support.typecheck import mypy_strict
from support.wire import reply

pytestmark = pytest.mark.skipif(not CORPUS.is_file(), reason=f"no corpus at {SHARED}")
PACKAGE = "together_apis"


@pytest.fixture(scope="module")
def corpus_package(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus") / "package"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", str(CORPUS), "--out", str(out)]
        + ["--verbose"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        # as on a user's first run: Python writes bytecode where nothing says otherwise, and
        # the cache is empty (the import check runs)
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "TOGETHER_RL_CODEGEN_CACHE": str(tmp_path_factory.mktemp("cache")),
        },
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result


@pytest.fixture(scope="module")
def corpus():
    return parse_file(CORPUS, lenient=True)


def test_every_operation_has_a_method_and_every_schema_a_name(corpus_package, corpus):
    out, _ = corpus_package
    package = load_package(out, PACKAGE, "corpus_client")
    assert len(corpus.operations) == 99 and corpus.omitted == ()
    for op in corpus.operations:
        assert callable(getattr(package.Client, operation_name(op))), op.key
    models = sys.modules["corpus_client.models"]
    for name, python in component_classes(corpus).items():
        assert hasattr(models, python), name
    # the operations without an operationId are named from their method and path
    nameless = [op for op in corpus.operations if not op.operation_id]
    assert len(nameless) == 39
    assert hasattr(package.Client, "get_files_id_content")


def test_the_document_s_own_faults_are_warnings_and_the_package_says_so(corpus_package):
    out, result = corpus_package
    assert "is not of type 'number'" in result.stderr  # openapi-spec-validator's findings
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# together-apis 2.0.0\n")
    assert "## Left out" not in readme  # nothing of the corpus is left out


def test_the_folder_holds_what_was_rendered_and_no_bytecode_of_the_import_check(corpus_package):
    out, result = corpus_package
    files = [path for path in out.rglob("*") if path.is_file()]
    assert files and not [path for path in files if "__pycache__" in path.parts]
    assert f"rendered {len(files)} files" in result.stdout + result.stderr


def test_the_package_is_laid_out_as_black_does_and_uses_what_it_imports(corpus_package):
    assert_tidy(corpus_package[0])


def test_it_installs_imports_and_passes_mypy_strict(corpus_package, tmp_path, venv, mypy_cache):
    out, _ = corpus_package
    (wheel,) = [a for a in build_packages([out], tmp_path / "dist", wheel_only=True)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv),
            "install",
            "--no-deps",
            "--quiet",
            str(wheel),
        ],
        check=True,
    )
    probe = subprocess.run(
        [str(venv), "-c", f"import {PACKAGE}, {PACKAGE}.models; print({PACKAGE}.__version__)"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert probe.stdout.strip() == "2.0.0", probe.stderr
    typed = mypy_strict(out, PACKAGE, cache=mypy_cache)
    assert typed.returncode == 0, typed.stdout[-3000:]


def _arguments(doc, op) -> dict:
    """The required arguments of an operation's method, with sample values (bytes for files)."""
    arguments = {}
    for p in op.parameters:
        if p.required and p.location != "path":
            arguments[p.name.replace("-", "_").lower()] = sample(doc, p.schema)
    body = op.request_body
    if body is None or body.schema is None:
        return arguments
    value = sample(doc, body.schema)
    schema = doc.resolve(body.schema)
    if isinstance(value, dict) and hasattr(schema, "properties"):
        for prop in schema.properties:
            resolved = doc.resolve(prop.schema)
            if getattr(resolved, "format", None) == "binary" and prop.name in value:
                value[prop.name] = b"file bytes"
        arguments.update(value)
    else:
        arguments["body"] = value
    return arguments


def test_an_operation_of_every_tag_runs_against_a_server(corpus_package, corpus):
    out, _ = corpus_package
    package = load_package(out, PACKAGE, "corpus_client")
    chosen = {}
    for op in corpus.operations:
        for tag in op.tags:
            chosen.setdefault(tag, op)
    assert set(chosen) == {tag for op in corpus.operations for tag in op.tags}
    with LoopbackServer() as server:
        client = package.Client(api_key="k", base_url=server.url, max_retries=0)
        for tag, op in sorted(chosen.items()):
            server.script(reply(corpus, op))
            path_arguments = ["x-1" for p in op.parameters if p.location == "path"]
            result = getattr(client, operation_name(op))(*path_arguments, **_arguments(corpus, op))
            seen = server.seen[-1]
            assert seen.method == op.method.upper(), tag
            expected = "/v1" + op.path
            for p in op.parameters:
                if p.location == "path":
                    expected = expected.replace("{" + p.name + "}", "x-1")
            assert seen.path.partition("?")[0] == expected, tag
            success = next((r for r in op.responses if r.status.startswith("2")), None)
            if success is not None and success.schema is not None and success.content_type:
                assert result is not None, tag
            body = op.request_body
            if body is not None and body.content_type.startswith("multipart/"):
                assert seen.headers["content-type"].startswith("multipart/form-data"), tag
                assert b"file bytes" in seen.body, tag
            elif body is not None and is_json(body.content_type):
                assert isinstance(json.loads(seen.body), (dict, list)), tag
        client.close()
