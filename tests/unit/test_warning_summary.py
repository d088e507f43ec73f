"""``generate`` prints one line per kind of warning, with its count and its first place, so that
hundreds of names renamed do not bury the rest; ``--verbose`` prints every warning; a warning
that asks for a decision is printed each time; every warning names its place."""

from __future__ import annotations

import json

import pytest

from generator.cli import main
from generator.findings import DECISION, READ, RENAMED, STATUS, Finding, summary
from support.specdocs import document, obj

RESERVED = ("class", "bytes", "def", "import", "return")
"""Property names Python reserves: each is renamed (``class_``)."""


def test_many_warnings_of_a_kind_are_one_line_with_their_count_and_first_place(
    tmp_path, capsys, monkeypatch
):
    verbose, every = _generated(tmp_path / "verbose", capsys, monkeypatch, "--verbose")
    renames = [line.removeprefix("warning: ") for line in every if "warning: renamed " in line]
    # each property renamed, in the models and as an argument of the method, named at its place
    assert len(renames) == 2 * len(RESERVED)
    assert [line.split("#", 1)[1].split(":")[0] for line in renames[: len(RESERVED)]] == [
        f"/components/schemas/Reserved/properties/{name}" for name in RESERVED
    ]
    assert renames[0] == (
        f"renamed {verbose}#/components/schemas/Reserved/properties/class: the property 'class' "
        "of Reserved is named `class_`: `class` is reserved (Python's, or a name the generated "
        "code uses)"
    )
    (read,) = [line for line in every if line.startswith("warning: read ")]
    assert read.startswith(f"warning: read {verbose}#/components/schemas/Rate/default: ")
    assert len(every) == len(renames) + 2  # and the validator's finding
    source, lines = _generated(tmp_path / "summary", capsys, monkeypatch)
    # one line for the kind, with its count and its first place; a kind of one warning is that
    # warning, named where it is in the document
    assert lines == [
        read.replace(str(verbose), str(source)),
        f"warning: {len(renames)} names renamed (--verbose lists each), e.g. "
        + renames[0].replace(str(verbose), str(source)),
        f"warning: {source}#/components/schemas/Rate/default: 'fast' is not of type 'number'",
    ]


def _generated(folder, capsys, monkeypatch, *options: str):
    """Generate the package of a document with property names Python reserves and a default
    that is not of its type; the document and the warnings printed."""
    folder.mkdir()
    monkeypatch.setenv("TOGETHER_RL_CODEGEN_CACHE", "")  # the validator runs
    properties = {name: {"type": "string"} for name in RESERVED}
    schemas = {
        "Reserved": obj(**properties),
        "Rate": {"type": "number", "default": "fast"},  # not a number: openapi-spec-validator's
    }
    raw = document(body={"$ref": "#/components/schemas/Reserved"}, schemas=schemas)
    source = folder / "doc.json"
    source.write_text(json.dumps(raw))
    args = ["generate", "--spec", str(source), "--out", str(folder / "out"), "--package", "p"]
    assert main([*args, *options]) == 0
    err = capsys.readouterr().err
    return source, [line for line in err.splitlines() if line.startswith("warning: ")]


def test_a_warning_that_asks_for_a_decision_is_printed_each_time():
    """The warnings a maintainer answers one by one (a field's role, a status's kind) are never
    summarised: the summary still says everything to act on."""
    found = [
        Finding(DECISION, "spec/x.yaml#/a: the request field `a` has no role"),
        Finding(READ, "read spec/x.yaml#/b: string '1' read as the integer 1"),
        Finding(DECISION, "spec/x.yaml#/c: the request field `c` has no role"),
        Finding(STATUS, "spec/x.yaml#/d: the status value `X` has no entry"),
        Finding(READ, "read spec/x.yaml#/e: string '2' read as the integer 2"),
        Finding(RENAMED, "renamed spec/x.yaml#/f: the property 'class' is named `class_`"),
    ]
    assert list(summary(found)) == [
        "spec/x.yaml#/a: the request field `a` has no role",
        "spec/x.yaml#/c: the request field `c` has no role",
        "2 places read leniently (--verbose lists each), e.g. read spec/x.yaml#/b: string '1' "
        "read as the integer 1",
        "spec/x.yaml#/d: the status value `X` has no entry",
        "renamed spec/x.yaml#/f: the property 'class' is named `class_`",
    ]


def test_one_decision_that_several_revisions_need_is_one_line_naming_them():
    """A field without a role in three revisions (every revision rendered, as on a cold cache)
    is one decision: the newest revision's warning, with the others named."""
    found = [
        Finding(
            DECISION,
            f"spec/{r}.yaml#/x: the request field `x` of revision {r} has no role",
            decision="field x",
            revision=r,
        )
        for r in ("r1", "r2", "r3")
    ]
    found.insert(1, Finding(DECISION, "spec/r1.yaml#/y: `y` of revision r1", "field y", "r1"))
    assert list(summary(found)) == [
        "spec/r3.yaml#/x: the request field `x` of revision r3 has no role (the same decision "
        "for revisions r1, r2)",
        "spec/r1.yaml#/y: `y` of revision r1",
    ]
    assert list(summary(found[:2])) == [found[0].text, found[1].text]


def test_the_command_s_help_names_verbose(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    assert "--verbose" in capsys.readouterr().out
