"""What a package index shows of a package beside its README, from ``spec/package.yaml``: who
makes it, its license, its keywords and its links (``[project]`` of each package's
``pyproject.toml``, and the license text each one carries).

A document outside ``spec/`` (``generate --spec``) has no such file: its package gets
:data:`GENERIC`, which names no one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import GeneratorError
from ..pointer import join
from .loader import load_yaml

METADATA_FILE = "package.yaml"
_KEYS = frozenset({"authors", "license", "copyright", "keywords", "urls"})
_KEYWORD = re.compile(r"[a-z0-9][a-z0-9-]*")
_LICENSES = frozenset({"MIT"})
"""The licenses whose text the templates hold (``templates/LICENSE.jinja``)."""


class MetadataError(GeneratorError):
    """The package metadata file is missing or malformed."""


@dataclass(frozen=True)
class PackageMetadata:
    """The project metadata of a package."""

    license: str = "MIT"
    """An SPDX expression the templates have the text of."""
    copyright: str | None = None
    """The license's copyright line (``2026 The ... authors``); with one, the package carries
    the license text as its ``LICENSE`` file."""
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    urls: tuple[tuple[str, str], ...] = ()
    """The package's links (``Documentation``, ``Source``, ...), each an absolute https URL."""


GENERIC = PackageMetadata(keywords=("openapi", "api-client"))
"""The metadata of a package of one document (``generate --spec``)."""


def load_metadata(spec_dir: Path) -> PackageMetadata:
    """Read and check ``spec_dir/package.yaml``."""
    path = spec_dir / METADATA_FILE
    source = str(path)
    raw = load_yaml(path)
    if not isinstance(raw, dict) or not set(raw) <= _KEYS or "license" not in raw:
        raise MetadataError(
            f"{source}#/: expected a mapping with `license` and any of "
            f"{', '.join(sorted(_KEYS - {'license'}))}"
        )
    if raw["license"] not in _LICENSES:
        raise MetadataError(
            f"{source}#/license: one of {', '.join(sorted(_LICENSES))}, got {raw['license']!r}"
        )
    holder = raw.get("copyright")
    if holder is not None and not _line(holder):
        raise MetadataError(f"{source}#/copyright: expected one line of text, got {holder!r}")
    authors = _strings(raw.get("authors", []), f"{source}#/authors")
    keywords = _strings(raw.get("keywords", []), f"{source}#/keywords")
    for position, word in enumerate(keywords):
        if not _KEYWORD.fullmatch(word):
            raise MetadataError(
                f"{source}#/keywords/{position}: lower-case letters, digits and `-`, got {word!r}"
            )
    urls = raw.get("urls", {})
    if not isinstance(urls, dict):
        raise MetadataError(f"{source}#/urls: expected a mapping of labels to URLs")
    for label, url in urls.items():
        where = f"{source}#{join('/urls', str(label))}"
        if not _line(label) or not isinstance(url, str) or not _absolute(url):
            raise MetadataError(f"{where}: expected a label and an absolute https URL, got {url!r}")
    return PackageMetadata(
        license=raw["license"],
        copyright=holder,
        authors=authors,
        keywords=keywords,
        urls=tuple((str(label), url) for label, url in urls.items()),
    )


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(_line(item) for item in value):
        raise MetadataError(f"{where}: expected a list of one-line texts, got {value!r}")
    return tuple(value)


def _line(value: object) -> bool:
    """Whether ``value`` is a text of one line, not blank."""
    return isinstance(value, str) and bool(value.strip()) and value.isprintable()


def _absolute(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.netloc) and url.isprintable() and " " not in url
