"""The golden packages of ``generate --spec`` (tests/golden/): each small public document of
``tests/golden/specs/`` renders, byte for byte, the package committed beside it. A difference is
a change of what ``--spec`` renders: review it, then record it with ``nox -s golden`` (see
docs/testing.md)."""

from __future__ import annotations

import pytest

from support.golden import PACKAGES, differences, documents


def test_there_are_golden_documents_each_with_its_package():
    names = [d.stem for d in documents()]
    assert len(names) >= 2
    assert sorted(p.name for p in PACKAGES.iterdir() if p.is_dir()) == sorted(names)


@pytest.mark.parametrize("document", documents(), ids=lambda d: d.stem)
def test_the_document_renders_its_golden_package_byte_for_byte(document, tmp_path):
    found = differences(document, tmp_path / "out")
    assert not found, (
        f"{len(found)} files of the package of {document.name} differ from its golden package "
        "(a change of what --spec renders: review it, then `nox -s golden` records it):\n"
        + "".join(found)
    )
