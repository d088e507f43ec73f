"""``spec/package.yaml``: what a package index shows of every revision's package, read and
checked, a malformed entry refused naming its place."""

from __future__ import annotations

import pytest

from generator.reading.metadata import GENERIC, MetadataError, load_metadata
from support.paths import SPEC_DIR


def test_the_projects_metadata_names_its_license_holder_keywords_and_links():
    metadata = load_metadata(SPEC_DIR)
    assert metadata.license == "MIT" and metadata.copyright
    assert metadata.keywords and metadata.authors
    assert all(url.startswith("https://") for _, url in metadata.urls)
    assert GENERIC.copyright is None and not GENERIC.urls and not GENERIC.authors


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("authors: [someone]\n", "#/: expected a mapping with `license`"),
        ("license: GPL-3.0-only\n", "#/license: one of MIT"),
        ("license: MIT\ncopyright: ''\n", "#/copyright: expected one line"),
        ("license: MIT\nauthors: someone\n", "#/authors: expected a list"),
        ("license: MIT\nkeywords: [Not A Keyword]\n", "#/keywords/0: lower-case letters"),
        ("license: MIT\nurls: {Source: 'ftp://example.org/'}\n", "#/urls/Source: expected"),
        ("license: MIT\nurls: {Source: /relative}\n", "#/urls/Source: expected"),
        ("license: MIT\nurls: [https://example.org/]\n", "#/urls: expected a mapping"),
    ],
)
def test_a_malformed_entry_is_refused_naming_its_place(tmp_path, text, where):
    (tmp_path / "package.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(MetadataError) as refused:
        load_metadata(tmp_path)
    assert f"{tmp_path / 'package.yaml'}{where}" in str(refused.value)
