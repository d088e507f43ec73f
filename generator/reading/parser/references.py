"""Where a ``$ref`` leads: a place in the document or in a file beside it, read on first use,
and the name under which a schema outside ``#/components/schemas`` is kept."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...pointer import in_file, join, split
from ..loader import read_referenced
from .context import Context, json_kind

SCHEMA_REF_PREFIX = "#/components/schemas/"


class References:
    """The documents read, and the schemas that ``$ref`` s name outside the components."""

    def __init__(self, ctx: Context, raw: Any) -> None:
        self.ctx = ctx
        self.files: dict[str, Any] = {"": raw}
        """The documents read, by path relative to the root document's folder (``""`` for the
        root document)."""
        self.component_names: set[str] = set()
        self.targets: dict[str, str] = {}
        """The schema name of each place a ``$ref`` names outside ``#/components/schemas``."""
        self.places: dict[str, str] = {}
        """The place of each of those schema names."""
        self.queue: list[tuple[str, str]] = []
        """``(name, place)`` of the schemas of :attr:`targets` not parsed yet."""

    def follow(self, node: Any, pointer: str) -> tuple[Any, str]:
        """Resolve a ``$ref`` (of a parameter, a request body, a response, a path item) to what
        it names, through as many as there are; other nodes pass through."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and "$ref" in node:
            at = join(pointer, "$ref")
            ref = node["$ref"]
            place = self.target(ref, at)
            if place in seen:
                raise self.ctx.error(at, f"$ref cycle through {ref}")
            seen.add(place)
            node, pointer = self.node_at(place, at, ref), place
        return node, pointer

    def target(self, ref: Any, at: str) -> str:
        """The place a ``$ref`` names: a JSON pointer into the file that holds it, or into a file
        beside it (``other.yaml#/...``, read on first use, by the loader's rule of what a
        document may refer to: :func:`~generator.reading.loader.referenced_file`)."""
        if not isinstance(ref, str):
            raise self.ctx.error(at, f"$ref must be a string, got {json_kind(ref)}")
        location, _, fragment = ref.partition("#")
        fragment = urllib.parse.unquote(fragment)
        if fragment and not fragment.startswith("/"):
            raise self.ctx.unsupported(
                at, f"the $ref {ref!r} (a fragment that is not a JSON pointer)"
            )
        here, _ = in_file(at)
        if not location:
            return _place(here, fragment)
        name = read_referenced(self.files, self.ctx.source, here, location, ref=ref, at=at)
        return _place(name, fragment)

    def node_at(self, place: str, at: str, ref: str) -> Any:
        """The node at a place (see :meth:`target`)."""
        file, fragment = in_file(place)
        node = self.files[file]
        for token in split(fragment):
            if isinstance(node, Mapping) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise self.ctx.error(at, f"$ref target {ref} does not exist")
        return node

    def schema_name(self, place: str, at: str, ref: str) -> str:
        """The name in :attr:`ir.Document.schemas` of the schema at ``place``: a component's own
        name, else (a schema elsewhere in the document or in another file) the last token of
        its pointer, or the whole place where a component or another schema has that name."""
        file, fragment = in_file(place)
        tokens = split(fragment)
        self.node_at(place, at, ref)  # it must exist
        if not file and len(tokens) == 3 and tokens[:2] == ["components", "schemas"]:
            return tokens[2]
        if place not in self.targets:
            token = tokens[-1] if tokens else Path(file).stem
            taken = self.component_names | self.places.keys()
            name = token if token and token not in taken else place or "/"
            self.targets[place] = name
            self.places[name] = place
            self.queue.append((name, place))
        return self.targets[place]

    def place(self, name: str) -> str:
        """Where the schema named ``name`` is."""
        return self.places.get(name) or join("/components/schemas", name)

    def raw_component(self, name: str) -> Any:
        """The schema named ``name`` as written."""
        place = self.place(name)
        return self.node_at(place, place, place)


def _place(file: str, fragment: str) -> str:
    return f"{file}#{fragment}" if file else fragment
