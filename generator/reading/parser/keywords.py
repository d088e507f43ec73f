"""The schema keywords the parser knows, by what it does with each."""

from __future__ import annotations

ANNOTATIONS = frozenset(
    {
        "title",
        "examples",
        "readOnly",
        "writeOnly",
        "externalDocs",
        "xml",
        "$comment",
        "contentMediaType",
        "contentEncoding",
        "$schema",
        "$id",
        "$defs",
        "definitions",
        "$anchor",
    }
)
"""Keywords that annotate a schema without changing what the generator produces."""
CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)
"""Validation keywords kept on the IR node as constraints."""
STRUCTURE = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "default",
        "example",
        "deprecated",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "oneOf",
        "anyOf",
        "allOf",
        "discriminator",
        "$ref",
    }
)
KNOWN = ANNOTATIONS | STRUCTURE | frozenset(CONSTRAINTS)
APPROXIMATED = frozenset(
    {
        "prefixItems",
        "unevaluatedProperties",
        "unevaluatedItems",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependentRequired",
    }
)
"""JSON Schema keywords the IR approximates: ``prefixItems`` as a tuple (or a list of its
items' union), ``unevaluatedProperties`` and ``unevaluatedItems`` as ``additionalProperties``
and ``items``, and the conditional ones (:data:`CONDITIONAL`) as the properties they may add,
with a note where the type widens."""
CONDITIONAL = ("if", "then", "else", "dependentSchemas", "dependentRequired")
"""Keywords that apply a schema only to some values: read as what they may add, unchecked."""
KNOWN |= APPROXIMATED
UNSUPPORTED = frozenset(
    {
        "not",
        "patternProperties",
        "propertyNames",
        "contains",
        "$dynamicRef",
    }
)
"""JSON Schema keywords the IR cannot represent: an error, never a silent skip."""
PRIMITIVES = ("string", "number", "integer", "boolean", "null")

BESIDE_REF = frozenset({"$ref", "type", "description", "nullable", "default", "example"})
BESIDE_REF |= frozenset({"deprecated"}) | ANNOTATIONS | frozenset(CONSTRAINTS)
"""Keywords beside a ``$ref`` that do not change what the reference means to the generator:
annotations, and validation keywords, which the reference then carries as its constraints."""
OPEN_OR_CLOSED = ("additionalProperties", "unevaluatedProperties", "unevaluatedItems")
"""``additionalProperties: false`` or ``true`` beside a ``$ref``, ``unevaluatedProperties``
likewise: request models reject unknown properties anyway, and response models keep them."""
SHAPING = frozenset(
    {"properties", "enum", "const", "type", "items", "additionalProperties", "format", "required"}
) | frozenset(CONSTRAINTS)
"""Keywords that make a schema beside ``allOf`` a part of its own."""
