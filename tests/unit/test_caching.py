"""The caches of ``generate``: a result taken again only for the same input under the same tools,
and a cache that cannot be used is no cache, never an error."""

from __future__ import annotations

import pytest

from generator import caching
from generator.output import smoke
from generator.reading import validate

INVALID = "openapi: 3.1.0\ninfo: {title: T}\npaths: {}\n"  # info has no version


def test_the_validator_s_findings_are_taken_again_for_the_same_document(tmp_path, monkeypatch):
    document = tmp_path / "api.yaml"
    document.write_text(INVALID)
    cache = tmp_path / "cache"
    assert validate.known_problems(document, cache) is None
    found = validate.file_problems(document, cache)
    assert any("version" in problem.message for problem in found)

    def no_validator(*args):
        raise AssertionError("the validator ran again")

    monkeypatch.setattr(validate, "schema_problems", no_validator)
    assert validate.known_problems(document, cache) == found
    moved = tmp_path / "moved.yaml"
    moved.write_text(INVALID)  # the same content elsewhere: the same findings, of that file
    assert [str(p) for p in validate.known_problems(moved, cache)] == [
        str(p).replace(str(document), str(moved)) for p in found
    ]
    document.write_text(INVALID.replace("{title: T}", "{title: T, version: '1'}"))
    assert validate.known_problems(document, cache) is None


def test_findings_that_depend_on_a_file_the_references_read_are_not_kept(tmp_path):
    """The validator reads the files a document's references name: its findings depend on them
    as well as on the document, whose content alone keys the cache."""
    types = tmp_path / "types.yaml"
    types.write_text("X: {type: string, minLength: -1}\n")
    document = tmp_path / "api.yaml"
    document.write_text(
        INVALID.replace("paths: {}", "components: {schemas: {A: {$ref: 'types.yaml#/X'}}}")
    )
    cache = tmp_path / "cache"
    found = validate.file_problems(document, cache)
    assert any("-1 is less than the minimum of 0" in problem.message for problem in found)
    assert validate.known_problems(document, cache) is None
    types.write_text("X: {type: string}\n")
    assert not any(
        "minimum" in problem.message for problem in validate.file_problems(document, cache)
    )


def test_an_unreadable_entry_is_a_miss(tmp_path):
    document = tmp_path / "api.yaml"
    document.write_text(INVALID)
    validate.file_problems(document, tmp_path)
    (entry,) = [p for p in tmp_path.glob("openapi-spec-validator-*/*")]
    entry.write_bytes(b"\xff not json")
    assert validate.known_problems(document, tmp_path) is None


def test_a_cache_that_cannot_be_written_is_no_cache(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    store = caching.Store(blocked, "kind", {"tool": "1"})
    store.put("key", b"value")
    assert store.get("key") is None


def test_a_store_keeps_to_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(caching, "_MAX_ENTRIES", 4)
    for n in range(6):
        caching.Store(tmp_path, "kind", {}).put(f"key{n}", b"x")  # a new store: trims once
    assert len(list((caching.Store(tmp_path, "kind", {}).path).iterdir())) <= 4


def test_results_under_other_tools_are_not_seen(tmp_path):
    caching.Store(tmp_path, "kind", {"tool": "1"}).put("key", b"one")
    assert caching.Store(tmp_path, "kind", {"tool": "2"}).get("key") is None
    assert caching.Store(tmp_path, "kind", {"tool": "1"}).get("key") == b"one"


def _package(folder, body):
    package = folder / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(body)
    (package / "models.py").write_text("")
    return folder, "pkg"


def test_a_package_that_imported_is_not_imported_again_until_it_changes(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    package = _package(tmp_path / "a", "VALUE = 1\n")
    smoke.import_packages([package], cache)
    ran = []
    real = smoke._run_script

    def counting(*args, **kwargs):
        ran.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(smoke, "_run_script", counting)
    smoke.import_packages([package], cache)
    assert ran == []
    _package(tmp_path / "a", "VALUE = 2\n")
    smoke.import_packages([package], cache)
    assert len(ran) == 1


def test_a_package_that_does_not_import_fails_every_time(tmp_path):
    cache = tmp_path / "cache"
    package = _package(tmp_path / "b", "import not_a_module_anywhere\n")
    for _ in range(2):
        with pytest.raises(smoke.SmokeTestError, match="not_a_module_anywhere"):
            smoke.import_packages([package], cache)


def test_what_a_package_prints_or_how_it_ends_the_process_is_no_result(tmp_path, capsys):
    # the import runs in a process of its own: a module that prints does not confuse the
    # result, and one that ends the process is a failure, not the generator's end
    smoke.import_packages([_package(tmp_path / "c", "print('[\"not a failure\"]')\n")])
    ended = _package(tmp_path / "d", "import os\nos._exit(3)\n")
    with pytest.raises(smoke.SmokeTestError, match="could not be imported"):
        smoke.import_packages([ended])
    assert capsys.readouterr().out == ""


def test_the_import_check_runs_without_the_cyclic_collector(tmp_path):
    """The check's process keeps everything it imports until it ends: collections would only
    walk it (and, forked, the generator's objects) again and again."""
    seen = tmp_path / "seen"
    body = f"import gc, pathlib\npathlib.Path({str(seen)!r}).write_text(str(gc.isenabled()))\n"
    smoke.import_packages([_package(tmp_path / "gc", body)])
    assert seen.read_text() == "False"


def _with_client_core(folder, init: str):
    """A package whose ``_runtime`` is the client core as a package of one document gets it."""
    from generator.reading.runtime import vendored_files

    folder, name = _package(folder, init)
    for path, content in vendored_files().items():
        (folder / name / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / name / path).write_bytes(content)
    return folder, name


def test_a_copy_of_the_client_core_is_checked_as_the_runtime_s_own_code(tmp_path):
    """A package's copy of the client core that is the runtime's, byte for byte, imports as the
    runtime's modules already loaded (not compiled and run again); what the copy lacks stays
    missing, and a copy that differs is imported from its own files."""
    package = _with_client_core(tmp_path / "e", "from ._runtime import UNSET, Model\n")
    assert smoke._copies_the_runtime(*package)
    smoke.import_packages([package])
    lacking = _with_client_core(tmp_path / "f", "from ._runtime.settings import SINCE\n")
    with pytest.raises(smoke.SmokeTestError, match="_runtime.settings"):
        smoke.import_packages([lacking])
    lacking = _with_client_core(tmp_path / "g", "from ._runtime import settings\n")
    with pytest.raises(smoke.SmokeTestError, match="cannot import name 'settings'"):
        smoke.import_packages([lacking])
    changed = _with_client_core(tmp_path / "h", "from ._runtime import UNSET\n")
    client = changed[0] / changed[1] / "_runtime" / "_client.py"
    client.write_text(client.read_text() + "\nraise RuntimeError('the copy ran')\n")
    assert not smoke._copies_the_runtime(*changed)
    with pytest.raises(smoke.SmokeTestError, match="_runtime/_client.py:.*the copy ran"):
        smoke.import_packages([changed])
