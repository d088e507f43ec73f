"""The uploads of a real-world document reach a real HTTP server as a server reads them: each
field its own part of a multipart/form-data body (read by python-multipart, Starlette's
parser), a file with its name and type, a list of files a part each and sent again intact on a
retry, and a body of no file still multipart."""

from __future__ import annotations

import io

import pytest

from support.loopback import LoopbackServer, Reply
from support.multipart import parts
from support.packages import generate_package
from support.realworld import REAL_WORLD

DOCUMENT = REAL_WORLD.parent / "real-world-next" / "readme-file-uploads-3.0.json"

pytestmark = pytest.mark.skipif(not DOCUMENT.is_file(), reason=f"no {DOCUMENT}")


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    out = tmp_path_factory.mktemp("readme") / "package"
    return generate_package(DOCUMENT, out, "readme_uploads_served")


def received(seen):
    return [
        (p.name, p.filename, p.content_type, p.data)
        for p in parts(seen.headers["content-type"], seen.body)
    ]


def test_a_file_and_fields_arrive_as_parts(uploads, tmp_path):
    path = tmp_path / "invoice.pdf"
    path.write_bytes(b"%PDF-1.7 invoice")
    with LoopbackServer() as server, uploads.Client(base_url=server.url) as client:
        server.script(Reply(200, ""))
        with path.open("rb") as document:
            client.post_anything_multipart_formdata(order_id=7, document_file=document)
    (seen,) = server.seen
    assert received(seen) == [
        ("orderId", None, None, b"7"),
        ("documentFile", "invoice.pdf", "application/pdf", b"%PDF-1.7 invoice"),
    ]


def test_a_body_of_no_file_is_multipart_still(uploads):
    with LoopbackServer() as server, uploads.Client(base_url=server.url) as client:
        server.script(Reply(200, ""))
        client.post_anything_multipart_formdata(order_id=7, user_id=8)
    (seen,) = server.seen
    assert received(seen) == [("orderId", None, None, b"7"), ("userId", None, None, b"8")]


def test_a_list_of_files_is_a_part_each_and_sent_again_intact(uploads):
    files = [io.BytesIO(b"first file"), io.BytesIO(b"second file")]
    with LoopbackServer() as server, uploads.Client(base_url=server.url, max_retries=1) as client:
        server.script(Reply(503, "", headers={"retry-after-ms": "1"}), Reply(200, ""))
        client.put_anything_multipart_formdata(filename=files)
    first, again = server.seen
    expected = [
        ("filename", "upload", "application/octet-stream", b"first file"),
        ("filename", "upload", "application/octet-stream", b"second file"),
    ]
    assert received(first) == expected
    assert received(again) == expected


def test_an_image_body_goes_as_its_media_type(uploads):
    with LoopbackServer() as server, uploads.Client(base_url=server.url) as client:
        server.script(Reply(200, ""))
        client.post_anything_image_png(body=b"\x89PNG\r\n")
    (seen,) = server.seen
    assert (seen.headers["content-type"], seen.body) == ("image/png", b"\x89PNG\r\n")
