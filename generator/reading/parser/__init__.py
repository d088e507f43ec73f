"""Parse an OpenAPI 3.x document (already loaded as plain data) into the IR of
:mod:`generator.reading.ir`.

The parser is lenient where real documents are commonly sloppy and says so: a string default on a
number (``default: "0.9"``) is coerced and reported as a :class:`~generator.reading.ir.Diagnostic`.
It is strict about structure: a construct it cannot represent raises
:class:`~generator.errors.UnsupportedConstructError` naming its JSON pointer, and a malformed one
raises :class:`~generator.errors.SpecError`. Nothing is skipped silently.

Where each part is read:

- :mod:`.document`: :func:`parse_document` and :func:`parse_file`, the document's top level;
- :mod:`.context`: what one parse shares (the mode, its notes and omissions) and its errors;
- :mod:`.references`: where a ``$ref`` leads, in the document or in a file beside it;
- :mod:`.operations`: paths, operations and parameters; :mod:`.bodies`: request bodies and
  responses; :mod:`.security`: security schemes and requirements; :mod:`.http`: media types;
- :mod:`.schemas`: the reader of schemas (primitives and arrays itself), which hands each other
  schema to the module of its construct: :mod:`.refs` (``$ref``), :mod:`.allof` (``allOf``,
  merged), :mod:`.unions` (``oneOf``, ``anyOf``), :mod:`.enums` (``enum``, ``const``),
  :mod:`.objects` (objects and maps), :mod:`.scalars` (the declared ``type``, a list of
  several types), :mod:`.arrays` (arrays, ``prefixItems`` as tuples), :mod:`.conditional`
  (``if``/``then``/``else``, ``dependentSchemas``: the properties they may add);
  :mod:`.polymorphism` reads a discriminated base object as the union of its subtypes where it
  is referred to; :mod:`.common` reads what every schema carries (description, constraints,
  default, example; :mod:`.coercion` reads the last two as the schema's type), and
  :mod:`.keywords` lists the schema keywords known;
- :mod:`.unsupported`: what the generator does not support, kept opaque or left out.
"""

from __future__ import annotations

from .coercion import coerce_value
from .context import Mode
from .document import parse_document, parse_file
from .http import FORM, MULTIPART, is_json, media_essence
from .references import SCHEMA_REF_PREFIX
from .schemas import MAX_DEPTH

__all__ = [
    "FORM",
    "MULTIPART",
    "MAX_DEPTH",
    "SCHEMA_REF_PREFIX",
    "Mode",
    "coerce_value",
    "is_json",
    "media_essence",
    "parse_document",
    "parse_file",
]
