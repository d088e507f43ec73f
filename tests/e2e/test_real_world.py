"""``generate --spec`` and ``diff`` on the public documents of ``../shared/corpus/real-world/``, as
their projects publish them: every operation becomes a method, an operation of every tag runs
against a server on loopback with its arguments' wire format checked, and each pair of versions
diffs.

The packages are rendered in process and written as the templates lay them out (black's layout
and ``mypy --strict`` on them are the corpus tier's: tests/corpus/test_real_world_packages.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from generator.changes import diff
from generator.output.document import render_document
from generator.output.package import PackageInfo, load_templates
from generator.reading import ir
from generator.reading.loader import load_yaml
from generator.reading.parser import parse_file
from generator.reading.revisions import Revision
from generator.views.pyclient import build_client
from generator.views.pymodel import build_module
from support.loopback import LoopbackServer
from support.packages import generate_spec, load_package
from support.realworld import REAL_WORLD, document_id, documents
from support.wire import call_and_check, one_per_tag

pytestmark = pytest.mark.skipif(not REAL_WORLD.is_dir(), reason=f"no {REAL_WORLD}")

DOCUMENTS = documents()
PAIRS = [
    (
        "blockfrost-0.1.86.yaml",
        "blockfrost-0.1.93.yaml",
        [
            "info endpoint-added GET /assets/{asset}/utxos: endpoint added",
            "warning response-property-enum-value-added GET /txs/{hash}/redeemers: added the new "
            "`vote` enum value to the `items/purpose` response property for the response status "
            "`200`",
        ],
    ),
    (
        "rclone-rc-1.74.1.yaml",
        "rclone-rc-1.75.0.yaml",
        [
            "info endpoint-added POST /config/oauthstatus: endpoint added",
            "warning response-optional-property-removed POST /config/create: removed the optional "
            "response property `jobid` for the response status `200`",
        ],
    ),
    (
        "open-payments-6.0.0/resource-server.yaml",
        "open-payments-resource-server-7.4.0.yaml",
        [
            "info endpoint-added GET /outgoing-payment-grant: endpoint added",
            "error response-required-property-removed GET /incoming-payments/{id}: removed the "
            "required response property `updatedAt` for the response status `200`",
        ],
    ),
]


def _operations_written(path: Path) -> int:
    """How many operations the document's paths hold (path items that ``$ref`` another within
    the document counted as what they name)."""
    raw = load_yaml(path)
    count = 0
    for item in raw["paths"].values():
        while "$ref" in item:
            target = raw
            for token in item["$ref"].removeprefix("#/").split("/"):
                target = target[token]
            item = target
        count += sum(1 for key in item if key in ir.HTTP_METHODS)
    return count


@pytest.fixture(scope="module", params=DOCUMENTS, ids=document_id)
def package(request, tmp_path_factory):
    """The document, its package's views and the package, imported from where it was written."""
    path: Path = request.param
    doc = parse_file(path, lenient=True)
    revision = Revision.of_document(doc, path)
    import_name = "rw_" + "".join(c if c.isalnum() else "_" for c in document_id(path))
    info = PackageInfo(import_name, import_name, "the API", False)
    files = render_document(load_templates(), revision, info, "1.0.0")
    out = tmp_path_factory.mktemp("real-world")
    for name, (_, text) in files.rendered.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    for name, content in files.static.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(content)
    module = build_module([revision], 0)
    view = build_client(doc, module)
    pkg = load_package(out, import_name, import_name)
    return path, doc, view, pkg, sys.modules[f"{import_name}.models"], files.warnings


def test_every_operation_becomes_a_method(package):
    path, doc, view, pkg, _, _ = package
    assert doc.omitted == ()
    assert len(doc.operations) == _operations_written(path)
    methods = {m.key: m.method_name for m in view.operations}
    for op in doc.operations:
        assert callable(getattr(pkg.Client, methods[op.key])), op.key
        assert callable(getattr(pkg.AsyncClient, methods[op.key])), op.key


def test_an_operation_of_every_tag_sends_its_arguments_as_the_document_says(package):
    path, doc, view, pkg, models, _ = package
    prefix = _server_path(doc)
    with LoopbackServer() as server:
        # a key that is also basic credentials, for the operations whose scheme takes those
        client = pkg.Client(api_key="user:k", base_url=server.url, max_retries=0)
        for tag, op in sorted(one_per_tag(doc).items()):
            call_and_check(server, client, models, doc, view, op, prefix)
        client.close()


def _server_path(doc: ir.Document) -> str:
    """The path of the document's first server (``/api/v0``), which every request starts with."""
    return view_prefix(doc.servers[0]) if doc.servers else ""


def view_prefix(server: str) -> str:
    from generator.views.pyclient import PyClient

    return PyClient((), (), server, (), ()).path_prefix


@pytest.mark.parametrize("old, new, expected", PAIRS, ids=[new for _, new, _ in PAIRS])
def test_each_pair_of_versions_diffs_with_changes_a_reader_can_check(old, new, expected):
    changes = diff.diff_documents(
        parse_file(REAL_WORLD / old, mode="complete"), parse_file(REAL_WORLD / new, mode="complete")
    )
    lines = {f"{c.level.value} {c.check} {c.operation}: {c.message}" for c in changes}
    assert set(expected) <= lines
    # each checked against the documents as written: an added endpoint is only in the new one
    for line in expected:
        if " endpoint-added " in line:
            path = line.split(" ")[3].removesuffix(":")
            assert path in load_yaml(REAL_WORLD / new)["paths"]
            assert path not in load_yaml(REAL_WORLD / old)["paths"]


def test_the_command_line_generates_a_real_document(tmp_path):
    source = REAL_WORLD / "petstore-schemathesis-3.0.yaml"
    _, stderr = generate_spec(source, tmp_path / "out")
    assert (
        "#/paths/~1user~1{username}/put/requestBody: the body field 'username' is named "
        "`username_`: `username` is taken by the path parameter 'username'" in stderr
    )
