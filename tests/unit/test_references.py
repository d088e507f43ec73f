"""What a document's ``$ref`` s may make the generator read: places in the document and files
within its folder, by one rule (``generator.reading.loader.referenced_file``) that the parser follows and
openapi-spec-validator is held to, in ``validate``, ``generate --spec`` and ``diff``. Any other
reference is refused with its JSON pointer before anything is read or fetched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.cli import main
from generator.pointer import join
from generator.reading.validate import schema_problems
from support.audits import watched
from support.loopback import LoopbackServer, Reply
from support.paths import ROOT
from support.specdocs import document, obj

MARKER = "MARKER-6c1e0f"
"""The content of every file, and of every reply, that a reference must not read."""
SECRET = f"X: {{type: {MARKER}, description: {MARKER}}}\n"
RESPONSE = "/paths/~1things~1{thing_id}/post/responses/200/content/application~1json/schema"


def opened(events: list[tuple[str, tuple[Any, ...]]]) -> set[Path]:
    return {
        Path(os.fsdecode(args[0])).resolve()
        for event, args in events
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike))
    }


def connections(events: list[tuple[str, tuple[Any, ...]]]) -> list[tuple[str, tuple[Any, ...]]]:
    """The requests for anything but a file (openapi-spec-validator reads its own schemas with
    urllib: the files urllib opens are among the ``open`` events)."""
    return [
        (event, args)
        for event, args in events
        if event in ("socket.connect", "socket.getaddrinfo")
        or (event == "urllib.Request" and args[0][:5] != "file:")
    ]


@dataclass
class Place:
    """A document's folder, ``api/``, beside files it must not read."""

    folder: Path
    secret: Path
    """``secret.yaml`` beside the folder, whose content is :data:`MARKER`."""
    server: LoopbackServer
    """A server on 127.0.0.1 that replies :data:`MARKER` to anything."""

    def write(self, raw: dict[str, Any], name: str = "doc.json") -> Path:
        path = self.folder / name
        path.write_text(json.dumps(raw))
        return path


@pytest.fixture
def place(tmp_path) -> Iterator[Place]:
    folder = tmp_path / "api"
    folder.mkdir()
    secret = tmp_path / "secret.yaml"
    secret.write_text(SECRET)
    (folder / "types.yaml").write_text("X: {type: string}\n")
    (folder / "link.yaml").symlink_to(secret)
    (folder / "inside.yaml").write_text("X: {$ref: '../secret.yaml#/X'}\n")
    with LoopbackServer() as server:
        server.script(*[Reply(200, SECRET, {"Content-Type": "application/yaml"})] * 8)
        yield Place(folder, secret, server)


HOSTILE = {
    "http": ("{url}/x.yaml#/X", "to a URL is not supported"),
    "https": ("https://example.invalid/x.yaml#/X", "to a URL is not supported"),
    "network-path": ("//{host}/x.yaml#/X", "to a URL is not supported"),
    "file-url": ("{secret_uri}#/X", "to a URL is not supported"),
    "dot-dot": ("../secret.yaml#/X", "leads outside the folder of the document ({folder})"),
    "symlink": (
        "link.yaml#/X",
        "leads outside the folder of the document ({folder}) through a symbolic link",
    ),
    "absolute": ("{secret}#/X", "is not a relative path"),
}


def hostile(place: Place, case: str) -> tuple[str, str]:
    """The ``$ref`` of ``case`` in :data:`HOSTILE`, and the words of its refusal."""
    template, words = HOSTILE[case]
    url = place.server.url
    ref = template.format(
        url=url,
        host=url.removeprefix("http://"),
        secret=place.secret,
        secret_uri=place.secret.as_uri(),
    )
    return ref, words.format(folder=place.folder.resolve())


def assert_nothing_read(place: Place, output: str, events: list | None = None) -> None:
    assert MARKER not in output
    assert place.server.seen == []
    if events is not None:
        assert place.secret.resolve() not in opened(events)
        assert connections(events) == []


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_validate_refuses_a_reference_out_of_the_folder_with_its_pointer(place, capsys, case):
    ref, words = hostile(place, case)
    doc = place.write(document(response={"$ref": ref}))
    with watched() as events:
        status = main(["validate", str(doc)])
    out, err = capsys.readouterr()
    assert status == 1
    assert f"{doc}#{RESPONSE}/$ref: the $ref {ref!r} {words}" in out, out
    assert_nothing_read(place, out + err, events)


def test_a_reference_in_a_file_the_document_reads_is_held_to_the_same_rule(place, capsys):
    doc = place.write(document(response={"$ref": "inside.yaml#/X"}))
    with watched() as events:
        assert main(["validate", str(doc)]) == 1
    out, err = capsys.readouterr()
    assert (
        f"{place.folder}/inside.yaml#/X/$ref: the $ref '../secret.yaml#/X' leads outside the "
        "folder of the document" in out
    ), out
    assert_nothing_read(place, out + err, events)


def test_a_reference_the_parser_never_follows_is_refused_too(place, capsys):
    """openapi-spec-validator follows a ``$ref`` wherever it is, in a ``default`` too."""
    url = f"{place.server.url}/x.yaml"
    doc = place.write(document(response=obj(a={"type": "object", "default": {"$ref": url}})))
    with watched() as events:
        assert main(["validate", str(doc)]) == 1
    out, err = capsys.readouterr()
    assert f"{doc}#{RESPONSE}/properties/a/default/$ref: the $ref {url!r} to a URL" in out, out
    assert_nothing_read(place, out + err, events)


@pytest.mark.parametrize("base", ["server", "beside"])
def test_the_validator_reads_nothing_else_whatever_base_an_id_gives(place, base):
    """A schema's ``$id`` changes the base its references are read against, which the rule (that
    reads them against their file, as the parser does) lets pass: the validator's retriever
    refuses what the reference then names, before fetching or reading it."""
    (place.folder / "secret.yaml").write_text("X: {type: string}\n")  # what the rule reads
    where = f"{place.server.url}/" if base == "server" else place.secret.parent.as_uri() + "/"
    inner = {"$id": where, "type": "object", "properties": {"b": {"$ref": "secret.yaml#/X"}}}
    raw = document(schemas={"A": obj(c=inner) | {"default": {"c": {"b": 3}}}})
    doc = place.write(raw)
    with watched() as events:
        problems = schema_problems(raw, str(doc))
    refused = where + "secret.yaml"
    assert [str(p) for p in problems] == [
        f"{doc}#/: openapi-spec-validator was refused {refused!r} (a reference read against "
        "another base, such as a schema's $id): only files within the folder of the document "
        "are read"
    ]
    assert_nothing_read(place, "".join(map(str, problems)), events)


@pytest.mark.parametrize(
    "ref",
    ["types.yaml#/X", "./types.yaml#/X", "sub/../types.yaml#/X", "doc.json#/components/schemas/T"],
)
def test_a_reference_within_the_folder_validates(place, capsys, ref):
    (place.folder / "sub").mkdir()
    doc = place.write(document(response={"$ref": ref}, schemas={"T": {"type": "string"}}))
    assert main(["validate", str(doc)]) == 0, capsys.readouterr().out
    assert capsys.readouterr().out == f"{doc}: valid\n"


def test_the_validator_reads_the_files_within_the_folder(place, capsys):
    (place.folder / "types.yaml").write_text("X: {type: string, minLength: -1}\n")
    doc = place.write(document(response={"$ref": "types.yaml#/X"}))
    assert main(["validate", str(doc)]) == 1
    # named in the file the reference reads, where the mistake is
    assert capsys.readouterr().out == (
        f"{place.folder}/types.yaml#/X/minLength: -1 is less than the minimum of 0\n"
    )


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_generate_reads_nothing_out_of_the_folder_and_writes_nothing(
    place, capsys, monkeypatch, case
):
    monkeypatch.setenv("TOGETHER_RL_CODEGEN_CACHE", "")  # the validator runs
    ref, words = hostile(place, case)
    doc = place.write(document(response={"$ref": ref}))
    out = place.folder.parent / "out"
    assert main(["generate", "--spec", str(doc), "--out", str(out), "--package", "p"]) == 1
    printed, err = capsys.readouterr()
    assert f"{doc}#{RESPONSE}/$ref: the $ref {ref!r} {words}" in err, err
    assert not out.exists()
    assert_nothing_read(place, printed + err)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_diff_reads_nothing_out_of_the_folder(place, capsys, case):
    ref, words = hostile(place, case)
    doc = place.write(document(response={"$ref": ref}))
    with watched() as events:
        status = main(["diff", str(doc), str(doc)])
    printed, err = capsys.readouterr()
    if "URL" in words:  # a construct it does not support: kept as an opaque schema
        assert status == 0
    else:
        assert status == 1
        assert f"{doc}#{RESPONSE}/$ref: the $ref {ref!r} {words}" in err, err
    assert_nothing_read(place, printed + err, events)


def test_the_command_lists_every_reference_refused_and_exits_1(place):
    refs = {case: hostile(place, case) for case in HOSTILE}
    raw = document(response=obj(**{case: {"$ref": ref} for case, (ref, _) in refs.items()}))
    doc = place.write(raw)
    result = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(doc)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    for case, (ref, words) in refs.items():
        pointer = join(RESPONSE, "properties", case, "$ref")
        assert f"{doc}#{pointer}: the $ref {ref!r} {words}" in result.stdout, result.stdout
    assert_nothing_read(place, result.stdout + result.stderr)
