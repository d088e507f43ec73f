"""The Python view of a revision: the model classes, enums and fields the templates render.

Built from the IR, so that templates hold layout only: every name, annotation and
reader/writer expression is decided here.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from ..changes.diff import renamed_schemas
from ..literals import pyrepr
from ..pointer import join
from ..reading import ir
from ..reading.parser import FORM, MULTIPART, is_json, media_essence
from ..reading.revisions import Revision
from ..reading.runtime import CLIENT_HELPERS, interface
from ..reading.values import constraints_of
from .cycles import strongly_connected
from .naming import Claim, Namespace, Rename

_PYTHON_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "datetime": "datetime.datetime",
    "date": "datetime.date",
}
_FORMATS = {"date-time": "datetime", "date": "date"}
"""The string formats read as Python values other than ``str``: a ``date-time`` is a
``datetime.datetime``, read from ISO 8601 and written back (``check_datetime``,
``write_datetime``)."""
_WRAPPERS = {"list": "list_of", "tuple": "tuple_of", "dict": "dict_of", "union": "one_of"}
"""The runtime's function that checks each kind of container, by the :class:`PyType` kind."""


@dataclass(frozen=True)
class PyType:
    """The Python type of a value of a model, and how it is read from and written to JSON.

    ``kind`` is ``primitive`` (``name`` the JSON type: string, integer, number, boolean), ``any``,
    ``enum`` or ``model`` (``name`` the class), ``alias`` (``name`` the type alias of a schema
    that refers to itself, read and written by the functions ``models.py`` defines for it),
    ``list`` (of ``args[0]``), ``tuple`` (of ``args``, in order), ``dict`` (of ``args[0]``) or
    ``union`` (of ``args``). The expressions the templates write come from this structure;
    nothing reads them back.
    """

    kind: Literal[
        "primitive",
        "any",
        "null",
        "file",
        "enum",
        "model",
        "alias",
        "list",
        "tuple",
        "dict",
        "union",
    ]
    name: str = ""
    args: tuple[PyType, ...] = ()
    strict: bool = True
    """For enums: whether unknown values are an error (requests) or kept as received (responses)."""
    integer: bool = False
    """For enums: an ``IntEnum`` (else a ``StrEnum``)."""
    nullable: bool = False
    constraints: tuple[tuple[str, Any], ...] = ()
    """The schema's validation keywords as ``constrained`` takes them (``("minimum", 0)``, ...),
    checked on what requests send."""
    discriminator: tuple[str, tuple[tuple[str, int], ...]] | None = None
    """For unions: the property that names the variant, and each value's variant (by index)."""

    @property
    def annotation(self) -> str:
        return self._annotation(reading=False)

    @property
    def read_annotation(self) -> str:
        """The type of what the reader returns: as :attr:`annotation`, but for an enum of
        unknown values kept as received, which the runtime's reader types as the enum, a
        string or an integer (what a response read on its own is annotated with)."""
        return self._annotation(reading=True)

    def _annotation(self, *, reading: bool) -> str:
        return " | ".join(self.members(reading=reading))

    @property
    def optional_annotation(self) -> str:
        """The annotation of a value that may also be left out as ``None`` (an optional
        argument): ``None`` once, where the type already allows it too."""
        return " | ".join(dict.fromkeys([*self.members(reading=False), "None"]))

    def members(self, *, reading: bool) -> list[str]:
        """The types the annotation joins with ``|``, each once (a union's variants are
        flattened, so that a nullable union of a nullable variant says ``None`` once)."""
        if self.kind == "primitive":
            own = [_PYTHON_TYPES[self.name]]
        elif self.kind == "any":
            own = ["Any"]
        elif self.kind == "file":
            own = ["bytes", "IO[bytes]"]
        elif self.kind == "null":
            own = ["None"]
        elif self.kind in ("model", "alias") or (self.kind == "enum" and self.strict):
            own = [self.name]
        elif self.kind == "enum":
            own = [self.name, *(["str", "int"] if reading else ["int" if self.integer else "str"])]
        elif self.kind == "list":
            own = [f"list[{self.args[0]._annotation(reading=reading)}]"]
        elif self.kind == "tuple":
            own = [f"tuple[{', '.join(a._annotation(reading=reading) for a in self.args)}]"]
        elif self.kind == "dict":
            own = [f"dict[str, {self.args[0]._annotation(reading=reading)}]"]
        else:
            own = [member for a in self.args for member in a.members(reading=reading)]
        return list(dict.fromkeys([*own, "None"] if self.nullable else own))

    @property
    def reader(self) -> str:
        """An expression: a callable ``(value, path) -> Python value`` that checks JSON."""
        return self._expression(reading=True)

    @property
    def writer(self) -> str:
        """An expression: a callable ``(value, path) -> JSON value`` that checks the value."""
        return self._expression(reading=False)

    def _expression(self, *, reading: bool) -> str:
        if self.kind == "primitive":
            text = self._primitive(reading=reading)
        elif self.kind in ("any", "file", "null"):
            text = f"check_{self.kind}"
        elif self.kind == "enum":
            if self.strict:
                text = f"strict_enum({self.name})"
            else:
                text = f"open_enum({self.name})" if reading else "write_enum"
        elif self.kind == "model":
            text = f"{self.name}.from_dict" if reading else f"write_model({self.name})"
        elif self.kind == "alias":
            text = alias_function(self.name, reading=reading)
        else:
            wrapper = _WRAPPERS[self.kind]
            text = f"{wrapper}({', '.join(a._expression(reading=reading) for a in self.args)})"
            if self.discriminator is not None:
                name, values = self.discriminator
                each = ", ".join(
                    f"{pyrepr(v)}: {self.args[i]._expression(reading=reading)}" for v, i in values
                )
                text = f"discriminated({pyrepr(name)}, {{{each}}}, {text})"
        if self.constraints:
            limits = ", ".join(f"{k}={pyrepr(v)}" for k, v in self.constraints)
            text = f"constrained({text}, {limits})"
        return f"nullable({text})" if self.nullable else text

    def _primitive(self, *, reading: bool) -> str:
        """The check of a primitive: ``check_string``, ...; a date's writer is its own."""
        writes = not reading and self.name in _FORMATS.values()
        return f"{'write' if writes else 'check'}_{self.name}"

    @property
    def helpers(self) -> frozenset[str]:
        """The functions of ``_model`` that the reader and writer use."""
        return self.helpers_of(reading=True) | self.helpers_of(reading=False)

    def helpers_of(self, *, reading: bool) -> frozenset[str]:
        """The functions of ``_model`` that the reader (or the writer) uses."""
        own: set[str] = {"nullable"} if self.nullable else set()
        if self.constraints:
            own.add("constrained")
        if self.kind == "primitive":
            own.add(self._primitive(reading=reading))
        elif self.kind in ("any", "file", "null"):
            own.add(f"check_{self.kind}")
        elif self.kind == "enum":
            if self.strict:
                own.add("strict_enum")
            else:
                own.add("open_enum" if reading else "write_enum")
        elif self.kind == "model":
            if not reading:
                own.add("write_model")
        elif self.kind == "alias":
            pass
        else:
            own.add(_WRAPPERS[self.kind])
            if self.discriminator is not None:
                own.add("discriminated")
        return frozenset(own).union(*(a.helpers_of(reading=reading) for a in self.args))

    @property
    def files(self) -> bool:
        """Whether the type holds files (``bytes | IO[bytes]``), anywhere in it."""
        return self.kind == "file" or any(a.files for a in self.args)

    @property
    def classes(self) -> frozenset[str]:
        """The generated enums, models and aliases of recursive schemas the type names."""
        own = {self.name} if self.kind in ("enum", "model", "alias") else set()
        return frozenset(own).union(*(a.classes for a in self.args))

    @property
    def aliases(self) -> frozenset[str]:
        """The aliases of recursive schemas the type names (defined after the classes)."""
        own = {self.name} if self.kind == "alias" else set()
        return frozenset(own).union(*(a.aliases for a in self.args))

    def functions_of(self, *, reading: bool) -> frozenset[str]:
        """The functions of ``models.py`` that the reader (or the writer) calls: those of the
        aliases of recursive schemas."""
        return frozenset(alias_function(name, reading=reading) for name in self.aliases)

    @property
    def functions(self) -> frozenset[str]:
        """The functions of ``models.py`` that the reader and the writer call."""
        return self.functions_of(reading=True) | self.functions_of(reading=False)


def primitive_type(schema: ir.Primitive) -> PyType:
    """The type of a string, number, integer or boolean: a ``date-time`` or ``date`` string is a
    ``datetime`` or ``date``."""
    if schema.type == "string" and schema.format in _FORMATS:
        return PyType("primitive", _FORMATS[schema.format])
    return PyType("primitive", schema.type)


def alias_function(alias: str, *, reading: bool) -> str:
    """The function of ``models.py`` that reads (or writes) the values of a recursive schema's
    alias: ``_read_Tree``, ``_write_Tree`` (class names never begin with an underscore)."""
    return f"_{'read' if reading else 'write'}_{alias}"


@dataclass(frozen=True)
class PyField:
    """A field of a generated model."""

    name: str
    """The Python attribute name."""
    key: str
    """The JSON property name."""
    type: PyType
    required: bool
    doc: str | None

    @property
    def annotation(self) -> str:
        return self.type.annotation if self.required else f"{self.type.annotation} | Unset"

    @property
    def model(self) -> str | None:
        """The model class the field holds (read with its ``from_dict``), if it holds one."""
        return self.type.name if self.type.kind == "model" and not self.type.nullable else None


@dataclass(frozen=True)
class PyModel:
    """A generated dataclass for an object schema."""

    name: str
    doc: str
    fields: tuple[PyField, ...]
    strict: bool
    """Request models reject unknown fields; response models keep them in ``extra``."""
    other_revisions: tuple[tuple[str, str], ...]
    """``(json name, "was removed in revision ...")`` for fields of earlier revisions."""


@dataclass(frozen=True)
class PyEnum:
    """A generated ``StrEnum`` or ``IntEnum``."""

    name: str
    doc: str
    members: tuple[tuple[str, str | int], ...]
    """``(member name, value)``."""
    base: Literal["StrEnum", "IntEnum"] = "StrEnum"


@dataclass(frozen=True)
class PyAlias:
    """A component schema that is not an object or an enum (a union, a list, a primitive, ...),
    as a type alias, so that it can be named too.

    A ``recursive`` one refers to itself (through lists, maps, unions or the inline objects in
    them): fields name it rather than spell it out, and ``models.py`` defines a reader and a
    writer for it (:func:`alias_function`), which call each other's kind by name."""

    name: str
    type: PyType
    doc: str
    recursive: bool = False

    @property
    def value(self) -> str:
        """The alias's value: its type, as a string where it names an alias of a recursive
        schema (which may be defined after it, or be itself)."""
        text = self.type.annotation
        return pyrepr(text) if self.recursive or self.type.aliases else text

    @property
    def functions(self) -> tuple[str, str]:
        """The names of its reader and writer, where it is recursive."""
        return alias_function(self.name, reading=True), alias_function(self.name, reading=False)


@dataclass(frozen=True)
class PyRenamed:
    """A name an earlier revision gave a class of ``models.py`` (a component schema since
    renamed), kept importable as a deprecated alias of the class."""

    name: str
    target: str
    """The class the name stands for now."""
    revision: str
    """The revision that renamed the schema."""


@dataclass(frozen=True)
class OperationTypes:
    """The types of an operation's request body and success response, where they are JSON (or a
    form); ``None`` where the operation has none or its content is not JSON."""

    body: PyType | None
    response: PyType | None
    parameters: dict[tuple[str, str], PyType] = field(default_factory=dict)
    """The types of the parameters that are not sent as plain values (see
    :func:`plain_parameter`), by ``(location, name)``: objects, unions, JSON content."""


@dataclass
class Names:
    """Every Python name of a package, by the rule of :mod:`generator.views.naming`: one namespace for
    the classes of ``models.py``, one per model for its attributes and per enum for its members,
    one for the client's methods, one per method for its arguments, one for the pages of
    ``docs/`` (compared without case)."""

    classes: Namespace
    attributes: dict[Hashable, Namespace]
    members: dict[Hashable, Namespace]
    methods: Namespace
    arguments: dict[str, Namespace]
    pages: Namespace
    earlier: Names | None = None

    @classmethod
    def following(cls, earlier: Names | None) -> Names:
        """The namespaces of a revision, holding what ``earlier`` (its previous one) named."""
        return cls(
            classes=Namespace(_reserved_class, _carried(earlier.classes if earlier else None)),
            attributes={},
            members={},
            methods=Namespace(_reserved_method, _carried(earlier.methods if earlier else None)),
            arguments={},
            pages=Namespace(
                lambda name: False, _carried(earlier.pages if earlier else None), fold=str.lower
            ),
            earlier=earlier,
        )

    def attributes_of(self, key: Hashable) -> Namespace:
        if key not in self.attributes:
            before = self.earlier.attributes.get(key) if self.earlier else None
            self.attributes[key] = Namespace(_reserved_attribute, _carried(before))
        return self.attributes[key]

    def members_of(self, key: Hashable) -> Namespace:
        if key not in self.members:
            before = self.earlier.members.get(key) if self.earlier else None
            self.members[key] = Namespace(lambda name: False, _carried(before))
        return self.members[key]

    def arguments_of(self, key: str) -> Namespace:
        if key not in self.arguments:
            before = self.earlier.arguments.get(key) if self.earlier else None
            self.arguments[key] = Namespace(_reserved_argument, _carried(before))
        return self.arguments[key]

    @property
    def renames(self) -> list[Rename]:
        """Every name of this revision that is not its plain name, in the order given."""
        spaces = [self.classes, *self.attributes.values(), *self.members.values()]
        spaces += [self.methods, *self.arguments.values(), self.pages]
        return [rename for space in spaces for rename in space.renames]


def _carried(space: Namespace | None) -> dict[Hashable, str]:
    return space.current() if space is not None else {}


@dataclass(frozen=True)
class PyModule:
    """Everything ``models.py`` defines, in a stable order, and the types of the operations'
    bodies."""

    enums: tuple[PyEnum, ...]
    models: tuple[PyModel, ...]
    classes: dict[str, str] = field(default_factory=dict)
    """The class of each component schema, by the schema's name."""
    aliases: tuple[PyAlias, ...] = ()
    operations: dict[str, OperationTypes] = field(default_factory=dict)
    """The types of each operation's JSON, form or multipart bodies, by ``"METHOD /path"``."""
    names: Names | None = None
    """Every name of the package (``None`` in the modules of a split ``models.py``)."""
    renamed: tuple[PyRenamed, ...] = ()
    """The deprecated names of classes that earlier revisions named otherwise, by name."""

    def model(self, name: str) -> PyModel:
        return self._models_by_name[name]

    def enum(self, name: str) -> PyEnum:
        return self._enums_by_name[name]

    def is_enum(self, name: str | None) -> bool:
        return name in self._enums_by_name

    @cached_property
    def _models_by_name(self) -> dict[str, PyModel]:
        return {m.name: m for m in self.models}

    @cached_property
    def _enums_by_name(self) -> dict[str, PyEnum]:
        return {e.name: e for e in self.enums}

    @property
    def helpers(self) -> list[str]:
        """What ``models.py`` imports from ``_model``: only what it uses, constants first."""
        used = {"Model"} if self.models else set()
        if any(e.base == "StrEnum" for e in self.enums):
            used.add("StrEnum")
        for model in self.models:
            if model.fields:
                used.add("put")
            for member in model.fields:
                if model.strict:
                    used.add("required" if member.required else "optional")
                else:
                    used.add("received")
                if not member.required:
                    used.update({"UNSET", "Unset"})
                used |= member.type.helpers
        for alias in self.aliases:
            used |= {"UNSET", "Unset"} & set(alias.type.annotation.split())
            if alias.recursive:
                used |= alias.type.helpers
        return sorted(used, key=lambda name: (not name.isupper(), name[0].islower(), name))

    @property
    def typing(self) -> list[str]:
        """What ``models.py`` imports from ``typing``: only what it uses."""
        used = {"Any", "ClassVar"} if self.models else set()
        if self.aliases or self.renamed:
            used.add("TypeAlias")
        if self.renamed:
            used.add("TYPE_CHECKING")
        if any(a.recursive or "Any" in re.findall(r"\w+", a.type.annotation) for a in self.aliases):
            used.add("Any")
        if self.uses_files:
            used.add("IO")
        return sorted(used, key=lambda name: (name != "IO", not name.isupper(), name))

    @property
    def uses_datetime(self) -> bool:
        """Whether a model or an alias holds dates (so that ``models.py`` imports ``datetime``)."""
        annotations = [f.type.annotation for m in self.models for f in m.fields]
        annotations += [a.type.annotation for a in self.aliases]
        return any(re.search(r"\bdatetime\.", text) for text in annotations)

    @property
    def uses_files(self) -> bool:
        """Whether a model holds files (so that ``models.py`` imports ``IO``)."""
        return any(f.type.files for m in self.models for f in m.fields)

    @property
    def exports(self) -> list[str]:
        """Every class and alias ``models.py`` defines, sorted."""
        names = [e.name for e in self.enums] + [m.name for m in self.models]
        return sorted(names + [a.name for a in self.aliases])

    @property
    def functions(self) -> list[str]:
        """The readers and writers of the aliases of recursive schemas (private: the client
        and the other modules of a split ``models.py`` import them), sorted."""
        return sorted(f for a in self.aliases if a.recursive for f in a.functions)


# Module-level names of the generated modules that a class of the same name would shadow: what
# they import from the runtime (its interface, one source: together_rl_runtime.__all__), the
# clients they define, and the typing names their annotations use.
RESERVED_CLASSES = (
    frozenset(interface())
    | {"AsyncClient", "Client"}
    | {"Any", "AsyncIterator", "Callable", "ClassVar", "Final", "IO", "Iterator", "Literal"}
    | {"Mapping", "Sequence", "TypeAlias", "TypeVar"}
)
# Attribute names a field of a model would shadow: the model's own members, what its class body
# uses after the fields, and the builtins its annotations name.
RESERVED_ATTRIBUTES = frozenset(
    {
        "extra", "problems", "field", "to_dict", "from_dict", "to_json", "from_json",
        "str", "int", "float", "bool", "dict", "list", "object", "bytes", "self", "cls",
        "datetime",
    }
)  # fmt: skip


def _reserved_class(name: str) -> bool:
    return name in RESERVED_CLASSES or keyword.iskeyword(name)


def _reserved_attribute(name: str) -> bool:
    return keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in RESERVED_ATTRIBUTES


def _reserved_argument(name: str) -> bool:
    return _reserved_attribute(name) or name in _METHOD_LOCALS


def _reserved_method(name: str) -> bool:
    return _reserved_attribute(name) or name in _CLIENT_MEMBERS


# Names an operation's method uses beside its arguments: ``self``, and the runtime's functions it
# names as they are (its locals, and the helpers it calls, begin with an underscore).
_METHOD_LOCALS = frozenset(
    {"self"} | {n for n in interface() if n[0].islower() and n not in CLIENT_HELPERS}
)
# The client's own public members, which a method of an operation would shadow.
_CLIENT_MEMBERS = frozenset({"close", "aclose"})


def class_name(name: str) -> str:
    """A schema name as a Python class name: ``RL.OptimStepBody`` becomes ``RLOptimStepBody``
    (the plain name; see :mod:`generator.views.naming` for the rule that keeps names apart)."""
    parts = re.split(r"[^0-9A-Za-z]+", name)
    result = "".join(part[:1].upper() + part[1:] for part in parts if part)
    if not result or result[0].isdigit():
        result = "Schema" + result
    return result


def attribute_name(name: str) -> str:
    """A JSON property name as a Python attribute name (snake_case), before the rule of
    :mod:`generator.views.naming` (``class`` is then ``class_``)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    snake = re.sub(r"[^0-9A-Za-z_]+", "_", snake).strip("_").lower() or "field"
    if snake[0].isdigit():
        snake = "field_" + snake
    return snake


def operation_name(op: ir.Operation) -> str:
    """A client method's name: the operationId in snake_case, else the method and the path's
    words (``GET /files/{id}/content`` is ``get_files_id_content``)."""
    if op.operation_id:
        return attribute_name(op.operation_id)
    words = re.findall(r"[0-9A-Za-z]+", op.path)
    return attribute_name("_".join([op.method, *words]))


def operation_class(op: ir.Operation) -> str:
    """The prefix of the classes of an operation's inline bodies: ``OptimStep``."""
    if op.operation_id:
        return class_name(op.operation_id)
    return class_name(" ".join([op.method, *re.findall(r"[0-9A-Za-z]+", op.path)]))


def component_classes(doc: ir.Document, names: Names | None = None) -> dict[str, str]:
    """The class name of every component schema (by the rule of :mod:`generator.views.naming`)."""
    space = names.classes if names is not None else Names.following(None).classes
    space.assign(
        Claim(
            key=name,
            plain=class_name(name),
            pointer=schema.pointer,
            what=f"the schema {name}",
            exact=class_name(name) == name,
        )
        for name, schema in doc.schemas.items()
    )
    return {name: space.get(name) for name in doc.schemas}


def member_name(value: str) -> str:
    """An enum value as a member name: ``TRAINING_OPERATION_STATUS_PENDING`` stays as it is."""
    name = re.sub(r"[^0-9A-Za-z]+", "_", value).strip("_").upper() or "EMPTY"
    return "V_" + name if name[0].isdigit() else name


def page_name(op: ir.Operation, method: str) -> str:
    """The name of an operation's page in ``docs/`` (without ``.md``): its operationId where
    that is a plain file name, else its method's name."""
    given = op.operation_id or ""
    return given if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", given) else method


def field_history(revisions: Sequence[Revision]) -> dict[str, list[frozenset[str]]]:
    """For every object schema name, the JSON names of its properties in each revision."""
    history: dict[str, list[frozenset[str]]] = {}
    for position, revision in enumerate(revisions):
        for name, schema in revision.document.schemas.items():
            if isinstance(schema, ir.Object):
                entry = history.setdefault(class_name(name), [frozenset()] * len(revisions))
                entry[position] = frozenset(p.name for p in schema.properties)
    return history


def other_revision_notes(
    revisions: Sequence[Revision], position: int, present: Sequence[frozenset[str]]
) -> tuple[tuple[str, str], ...]:
    """Where each field that an earlier revision had and ``revisions[position]`` lacks was removed.

    Only the revisions up to ``position`` are looked at: a package never depends on later ones."""
    notes = []
    for key in sorted(set().union(*present[:position]) - present[position]):
        last = max(i for i in range(position) if key in present[i])
        notes.append(
            (
                key,
                f"was removed in revision {revisions[last + 1].label} (this package implements "
                f"revision {revisions[position].id})",
            )
        )
    return tuple(notes)


_Naming = Callable[[], str] | str
"""A class name, or how to claim one (only where a class is made)."""


def recursive_schemas(doc: ir.Document) -> frozenset[str]:
    """The named schemas that refer to themselves other than through a class: those that are
    not classes (lists, maps, unions, ...) and reach themselves through the schemas inside them
    (inline objects included) and the named schemas those refer to, that are not classes either.

    A component object or enum is a class, named once, so a cycle through one ends there; the
    other schemas are spelled out where they are used, which a recursive one cannot be. Each
    schema is looked at once: the work is linear in the document."""
    edges: dict[str, frozenset[str]] = {}
    for name, schema in doc.schemas.items():
        found: set[str] = set()
        todo = [] if _is_class(schema) else [schema]
        while todo:
            node = todo.pop()
            if isinstance(node, ir.Ref):
                found.add(node.name)
            else:
                todo.extend(ir.children(node))
        edges[name] = frozenset(found & doc.schemas.keys())
    return frozenset(
        member
        for group in strongly_connected(edges)
        if len(group) > 1 or group[0] in edges[group[0]]
        for member in group
    )


def _is_class(schema: ir.Schema) -> bool:
    """Whether a component schema is a class of ``models.py``: an object of fields or an enum."""
    if isinstance(schema, ir.Enum):
        return schema.type != "boolean"
    return isinstance(schema, ir.Object) and (
        bool(schema.properties) or schema.additional_properties is False
    )


class _Builder:
    def __init__(
        self, doc: ir.Document, response_schemas: frozenset[str], earlier: Names | None = None
    ) -> None:
        self.doc = doc
        self.response_schemas = response_schemas
        self.names = Names.following(earlier)
        self.classes = component_classes(doc, self.names)
        self.enums: dict[str, PyEnum] = {}
        self.models: dict[str, PyModel] = {}
        self.pending: list[tuple[str, ir.Object, bool]] = []
        self.keys: dict[str, Hashable] = {python: name for name, python in self.classes.items()}
        """The key of each class in the namespaces (a component's name, or where an inline
        schema is: its owner's key and the path to it)."""
        self.recursive = recursive_schemas(doc)
        self.spelled_out: dict[tuple[str, bool], PyType] = {}
        """The types of named schemas that name no inline class, by name and strictness: the
        same wherever they are used, so spelled out once."""
        self.claims = 0
        """How many inline classes have been named (what says a type depends on its place)."""

    def inline(self, owner: str, owner_key: Hashable, key: str, schema: ir.Schema) -> _Naming:
        """How to name the class of an inline schema at ``key`` under ``owner``."""

        def claim() -> str:
            self.claims += 1
            claim_key = (owner_key, key)
            plain = owner + class_name(key) if key else owner
            name = self.names.classes.claim(
                Claim(claim_key, plain, schema.pointer, f"the schema at {schema.pointer}")
            )
            self.keys.setdefault(name, claim_key)
            return name

        return claim

    def enum(self, naming: _Naming, schema: ir.Enum) -> str:
        """The class of a string or integer enum (made once, by name)."""
        name = naming if isinstance(naming, str) else naming()
        if name not in self.enums:
            space = self.names.members_of(self.keys.get(name, name))
            values = [v for v in schema.values if not isinstance(v, bool)]
            space.assign(
                Claim(
                    key=v,
                    plain=member_name(str(v)),
                    pointer=join(schema.pointer, "enum"),
                    what=f"the enum value {v!r}",
                    exact=member_name(str(v)) == str(v),
                )
                for v in values
            )
            members: tuple[tuple[str, str | int], ...] = tuple((space.get(v), v) for v in values)
            base: Literal["StrEnum", "IntEnum"] = (
                "IntEnum" if schema.type == "integer" else "StrEnum"
            )
            self.enums[name] = PyEnum(
                name,
                schema.description or f"The values of ``{name}``.",
                members,
                base,
            )
        return name

    def types(
        self, schema: ir.Schema, owner: str, key: str, strict: bool, owner_key: Hashable = None
    ) -> PyType:
        """The type of a schema used by a field of a model; request (``strict``) types check the
        schema's constraints too. A recursive schema is named by its alias."""
        alias = self.recursive_target(schema)
        if alias is not None:
            result = PyType("alias", self.classes[alias])
            if strict and constraints_of(schema):
                result = replace(result, constraints=constraints_of(schema))
            return replace(result, nullable=True) if schema.nullable else result
        return self.spelled(schema, owner, key, strict, owner_key)

    def recursive_target(self, schema: ir.Schema) -> str | None:
        """The recursive schema that ``schema`` names, directly or through schemas that only
        refer to another."""
        seen = set()
        while isinstance(schema, ir.Ref) and schema.name not in seen:
            if schema.name in self.recursive:
                return schema.name
            seen.add(schema.name)
            schema = self.doc.schemas[schema.name]
        return None

    def definition(self, schema_name: str, strict: bool) -> PyType:
        """The type a recursive schema's alias stands for: its own schema spelled out, in which
        the recursive schemas (itself too) are named."""
        own = self.doc.schemas[schema_name]
        name = self.classes[schema_name]
        if isinstance(own, ir.Ref):  # it only names another recursive schema
            return self.types(own, name, "", strict)
        return self.spelled(ir.Ref(pointer=own.pointer, name=schema_name), name, "", strict)

    def spelled(
        self, schema: ir.Schema, owner: str, key: str, strict: bool, owner_key: Hashable = None
    ) -> PyType:
        """The type of a schema, spelled out: inline schemas and the schemas that are not
        classes are written where they are used (:meth:`types`)."""
        resolved = self.doc.resolve(schema)
        owner_key = owner_key if owner_key is not None else self.keys.get(owner, owner)
        naming: _Naming
        if isinstance(schema, ir.Ref):
            target = schema  # a component that only refers to another is that one's class
            while isinstance(self.doc.schemas[target.name], ir.Ref):
                target = self.doc.schemas[target.name]  # type: ignore[assignment]
            naming = self.classes[target.name]
            memo = (target.name, strict)
            if memo in self.spelled_out:
                result = self.spelled_out[memo]
            else:
                claims = self.claims
                result = self._types(resolved, naming, owner, key, strict, owner_key)
                if claims == self.claims:  # it names no inline class: the same wherever used
                    self.spelled_out[memo] = result
        else:
            naming = self.inline(owner, owner_key, key, schema)
            result = self._types(resolved, naming, owner, key, strict, owner_key)
        if strict:
            limits = constraints_of(resolved) + constraints_of(schema)
            if result.kind == "tuple":  # its length is its type's
                limits = tuple(c for c in limits if c[0] not in ("min_items", "max_items"))
            if limits:
                result = replace(result, constraints=tuple(dict(limits).items()))
        if schema.nullable or resolved.nullable:
            return replace(result, nullable=True)
        return result

    def _types(
        self,
        schema: ir.Schema,
        naming: _Naming,
        owner: str,
        key: str,
        strict: bool,
        owner_key: Hashable,
    ) -> PyType:
        if isinstance(schema, ir.Primitive):
            if schema.type == "null":
                return PyType("null")
            if schema.binary:
                return PyType("file")
            return primitive_type(schema)
        if isinstance(schema, ir.Enum):
            if schema.type == "boolean":  # two values at most: a boolean with a check
                return PyType("primitive", "boolean", constraints=(("values", schema.values),))
            name = self.enum(naming, schema)
            return PyType("enum", name, strict=strict, integer=schema.type == "integer")
        if isinstance(schema, ir.Object):
            if schema.properties or schema.additional_properties is False:
                name = naming if isinstance(naming, str) else naming()
                self.pending.append((name, schema, strict))
                return PyType("model", name)
            return PyType("dict", args=(PyType("any"),))
        if isinstance(schema, ir.Array) and schema.prefix_items:
            places = tuple(
                self.types(p, owner, f"{key}Item{i + 1}", strict, owner_key)
                for i, p in enumerate(schema.prefix_items)
            )
            return PyType("tuple", args=places)
        if isinstance(schema, ir.Array):
            item = self.types(schema.items, owner, key + "Item", strict, owner_key)
            return PyType("list", args=(item,))
        if isinstance(schema, ir.Map):
            value = self.types(schema.values, owner, key + "Value", strict, owner_key)
            return PyType("dict", args=(value,))
        if isinstance(schema, ir.Union):
            options = tuple(
                self.types(v, owner, f"{key}Option{i + 1}", strict, owner_key)
                for i, v in enumerate(schema.variants)
            )
            return PyType("union", args=options, discriminator=_discriminator(self.doc, schema))
        return PyType("any")

    def operation(self, op: ir.Operation) -> OperationTypes:
        """The types of an operation's bodies (inline objects become ``<Operation>Body`` and
        ``<Operation>Response``) and of its parameters that are not plain values."""
        owner = operation_class(op)
        owner_key = ("operation", op.route)
        body = op.request_body
        body_type = None
        if body is not None and body.schema is not None and _structured(body.content_type):
            body_type = self.types(body.schema, owner, "Body", True, owner_key)
        success = success_response(op)
        response_type = None
        if success is not None and success.schema is not None and success.content_type:
            if is_json(success.content_type):
                response_type = self.types(success.schema, owner, "Response", False, owner_key)
        parameters: dict[tuple[str, str], PyType] = {
            (p.location, p.name): self.types(
                p.schema,
                owner + class_name(p.name),
                "",
                True,
                ("parameter", op.route, p.location, p.name),
            )
            for p in op.parameters
            if not plain_parameter(self.doc, p)
        }
        return OperationTypes(body_type, response_type, parameters)

    def model(
        self,
        name: str,
        schema: ir.Object,
        strict: bool,
        notes: Mapping[str, tuple[tuple[str, str], ...]],
    ) -> None:
        if name in self.models:
            return
        space = self.names.attributes_of(self.keys.get(name, name))
        space.assign(
            Claim(
                key=prop.name,
                plain=attribute_name(prop.name),
                pointer=prop.schema.pointer,
                what=f"the property {prop.name!r} of {name}",
                exact=attribute_name(prop.name) == prop.name,
            )
            for prop in schema.properties
        )
        fields = []
        for prop in schema.properties:
            kind = self.types(prop.schema, name, prop.name, strict)
            fields.append(
                PyField(
                    name=space.get(prop.name),
                    key=prop.name,
                    type=kind,
                    required=prop.required,
                    doc=_field_doc(self.doc, prop.schema),
                )
            )
        self.models[name] = PyModel(
            name=name,
            doc=schema.description or f"The ``{name}`` object.",
            fields=tuple(fields),
            strict=strict,
            other_revisions=notes.get(name, ()),
        )


def _discriminator(
    doc: ir.Document, union: ir.Union
) -> tuple[str, tuple[tuple[str, int], ...]] | None:
    """Which variant each value of the union's discriminator names: the explicit mapping,
    else the value a variant's property allows (an enum or ``const``), else the variant's
    schema name."""
    if union.discriminator is None:
        return None
    values: dict[str, int] = {}
    explicit = dict(union.mapping)
    for index, variant in enumerate(union.variants):
        name = variant.name if isinstance(variant, ir.Ref) else None
        given = [v for v, target in explicit.items() if target == name]
        resolved = doc.resolve(variant)
        prop = resolved.property(union.discriminator) if isinstance(resolved, ir.Object) else None
        kind = doc.resolve(prop.schema) if prop is not None else None
        if given:
            found = given
        elif isinstance(kind, ir.Enum):
            found = [str(v) for v in kind.values]
        elif name is not None:
            found = [name]
        else:
            found = []
        for value in found:
            values.setdefault(value, index)
    return (union.discriminator, tuple(values.items())) if values else None


def _name_client(
    doc: ir.Document,
    names: Names,
    models: Mapping[str, PyModel],
    operations: Mapping[str, OperationTypes],
) -> None:
    """The names of the client's methods (each operation's, then the ``_stream`` twins: of
    server-sent events, and of a download in pieces), of their arguments and of the
    operations' pages."""
    methods = names.methods
    methods.assign(
        Claim(
            key=op.route,
            plain=operation_name(op),
            pointer=op.pointer,
            what=f"the operation {op.key}",
            exact=operation_name(op) == op.operation_id,
        )
        for op in doc.operations
    )
    methods.assign(
        Claim(
            key=(op.route, "stream"),
            plain=methods.get(op.route) + "_stream",
            pointer=op.pointer,
            what=(
                f"the server-sent events of {op.key}"
                if success_kind(op) == "json"
                else f"the download of {op.key}, in pieces"
            ),
        )
        for op in doc.operations
        if (success_kind(op) == "json" and streams(op)) or downloads(op)
    )
    for op in doc.operations:
        _name_arguments(names, models, op, operations[op.route])
    names.pages.assign(
        Claim(
            key=op.route,
            plain=page_name(op, methods.get(op.route)),
            pointer=op.pointer,
            what=f"the page of {op.key}",
            exact=True,
        )
        for op in doc.operations
    )


def _name_arguments(
    names: Names, models: Mapping[str, PyModel], op: ir.Operation, types: OperationTypes
) -> None:
    """The names of an operation's arguments: its path parameters, its body's fields (or
    ``body``), its other parameters."""
    claims = [_parameter_claim(p) for p in op.parameters if p.location == "path"]
    fields = body_fields(types.body)
    if fields is not None:
        for member in models[fields].fields:
            claims.append(
                Claim(
                    key=("field", member.key),
                    plain=attribute_name(member.key),
                    pointer=op.request_body.pointer if op.request_body else op.pointer,
                    what=f"the body field {member.key!r}",
                    exact=attribute_name(member.key) == member.key,
                )
            )
    elif op.request_body is not None:
        claims.append(
            Claim(("body",), "body", op.request_body.pointer, "the request body", exact=True)
        )
    claims += [_parameter_claim(p) for p in op.parameters if p.location != "path"]
    names.arguments_of(op.route).assign(claims)


def _parameter_claim(p: ir.Parameter) -> Claim:
    return Claim(
        key=(p.location, p.name),
        plain=attribute_name(p.name),
        pointer=p.pointer,
        what=f"the {p.location} parameter {p.name!r}",
        exact=attribute_name(p.name) == p.name,
    )


def body_fields(body: PyType | None) -> str | None:
    """The model whose fields a method takes as keyword arguments, where its body is one."""
    if body is not None and body.kind == "model" and not body.nullable:
        return body.name
    return None


def plain_parameter(doc: ir.Document, param: ir.Parameter) -> bool:
    """Whether a parameter is sent as a plain value (or, in a query, as a repeated key): a
    primitive or an enum, in its location's default style, or an array of those in a query's
    default ``form`` style. Others (objects, unions, JSON content, other styles, a query
    parameter with ``allowReserved``) are written by their type and serialized by their
    style."""
    default = "form" if param.location in ("query", "cookie") else "simple"
    if param.content_type is not None or param.style not in (None, default):
        return False
    if param.allow_reserved:
        return False
    style, explode = param.how
    resolved = doc.resolve(param.schema)
    if isinstance(resolved, ir.Array) and param.location == "query" and explode:
        resolved = doc.resolve(resolved.items)
    return isinstance(resolved, ir.Enum) or (
        isinstance(resolved, ir.Primitive) and resolved.type != "null"
    )


EVENT_STREAM = "text/event-stream"


def success_response(op: ir.Operation) -> ir.Response | None:
    """The first 2xx response of an operation."""
    return next((r for r in op.responses if r.status.startswith("2")), None)


def streams(op: ir.Operation) -> bool:
    """Whether the success response can be a stream of server-sent events."""
    success = success_response(op)
    return success is not None and any(
        media_essence(t) == EVENT_STREAM for t in success.content_types
    )


def success_kind(op: ir.Operation) -> Literal["json", "bytes", "text", "events", "none"]:
    """What a method returns: a JSON value, bytes, text, server-sent events or nothing."""
    success = success_response(op)
    if success is None or not success.content_types:
        return "none"
    if success.content_type and is_json(success.content_type) and success.schema is not None:
        return "json"
    first = media_essence(success.content_types[0])
    if first == EVENT_STREAM:
        return "events"
    return "text" if first.startswith("text/") else "bytes"


def downloads(op: ir.Operation) -> bool:
    """Whether the success response is a file to download (bytes with no schema, or a binary
    string's), which its method's ``_stream`` twin returns in pieces."""
    success = success_response(op)
    if success is None or success_kind(op) != "bytes":
        return False
    schema = success.schema
    return schema is None or (isinstance(schema, ir.Primitive) and schema.binary)


def other_kind(op: ir.Operation) -> Literal["bytes", "text"] | None:
    """What else a JSON success response can be, where it also offers a type that is neither
    JSON nor an event stream (a download beside its record): text for ``text/*``, else bytes."""
    success = success_response(op)
    if success is None or success_kind(op) != "json":
        return None
    others = [
        media_essence(t)
        for t in success.content_types
        if not is_json(t) and media_essence(t) != EVENT_STREAM
    ]
    if not others:
        return None
    return "text" if all(t.startswith("text/") for t in others) else "bytes"


def build_module(revisions: Sequence[Revision], position: int) -> PyModule:
    """The models of ``revisions[position]``, knowing the fields of the revisions before it,
    and every name of its package, named as the revisions before it named them."""
    history = field_history(revisions)
    notes = {
        name: other_revision_notes(revisions, position, present)
        for name, present in history.items()
    }
    module = _build(revisions[0].document, None, notes)
    renamed: dict[str, PyRenamed] = {}
    for before, revision in zip(revisions[:position], revisions[1 : position + 1]):
        previous, module = module, _build(revision.document, module.names, notes)
        renamed = _carried_renames(renamed, previous, module, before, revision)
    return replace(module, renamed=tuple(renamed[name] for name in sorted(renamed)))


def _carried_renames(
    renamed: Mapping[str, PyRenamed],
    previous: PyModule,
    module: PyModule,
    before: Revision,
    revision: Revision,
) -> dict[str, PyRenamed]:
    """The deprecated names of ``revision``'s module: those of the revision ``before`` it whose
    class is still there (under its name in ``revision``), and the names of the schemas that
    ``revision`` renamed; a name that a class of ``revision`` takes is no longer an alias."""
    schemas = renamed_schemas(before.document, revision.document)
    was = {name: schema for schema, name in previous.classes.items()}
    result = {}
    for name, alias in renamed.items():
        schema = was[alias.target]
        schema = schemas.get(schema, schema)
        if schema in module.classes:
            result[name] = replace(alias, target=module.classes[schema])
    for old, new in schemas.items():
        result[previous.classes[old]] = PyRenamed(
            previous.classes[old], module.classes[new], revision.id
        )
    taken = set(module.exports) | set(module.classes.values())
    return {name: alias for name, alias in result.items() if name not in taken}


def _build(
    doc: ir.Document,
    earlier: Names | None,
    notes: Mapping[str, tuple[tuple[str, str], ...]],
) -> PyModule:
    builder = _Builder(doc, _response_schemas(doc), earlier)
    aliases = []
    for schema_name, schema in doc.schemas.items():
        name = builder.classes[schema_name]
        strict = schema_name not in builder.response_schemas
        if isinstance(schema, ir.Enum) and schema.type != "boolean":
            builder.enum(name, schema)
        elif isinstance(schema, ir.Object) and (
            schema.properties or schema.additional_properties is False
        ):
            builder.pending.append((name, schema, strict))
        elif schema_name in builder.recursive:
            doc_text = schema.description or f"The ``{schema_name}`` schema."
            kind = builder.definition(schema_name, strict)
            aliases.append(PyAlias(name, kind, doc_text, recursive=True))
        else:
            kind = builder.types(ir.Ref(pointer=schema.pointer, name=schema_name), name, "", strict)
            if kind.kind == "model" and kind.name == name:
                continue
            doc_text = schema.description or f"The ``{schema_name}`` schema."
            aliases.append(PyAlias(name, replace(kind, constraints=()), doc_text))
    operations = {op.route: builder.operation(op) for op in doc.operations}
    while builder.pending:
        name, schema, strict = builder.pending.pop(0)
        builder.model(name, schema, strict, notes)
    _name_client(builder.doc, builder.names, builder.models, operations)
    return PyModule(
        enums=tuple(builder.enums.values()),
        models=tuple(builder.models.values()),
        classes=builder.classes,
        operations=operations,
        aliases=tuple(aliases),
        names=builder.names,
    )


def _structured(media_type: str) -> bool:
    """Whether a request body of this type is built from a schema's fields (JSON or a form)."""
    essence = media_essence(media_type)
    return is_json(essence) or essence in (FORM, MULTIPART)


def _response_schemas(doc: ir.Document) -> frozenset[str]:
    """Names of the component schemas reachable from any response."""
    found: set[str] = set()
    todo = [r.schema for op in doc.operations for r in op.responses if r.schema is not None]
    while todo:
        schema = todo.pop()
        if isinstance(schema, ir.Ref):
            if schema.name in found:
                continue
            found.add(schema.name)
            todo.append(doc.schemas[schema.name])
        todo.extend(ir.children(schema))
    return frozenset(found)


def _field_doc(doc: ir.Document, schema: ir.Schema) -> str | None:
    """A field's docstring: its own description, else its schema's, and its default."""
    resolved = doc.resolve(schema)
    text = schema.description or (resolved.description if isinstance(schema, ir.Ref) else None)
    default = schema.default if schema.has_default else resolved.default
    if default not in (ir.NO_VALUE, None) and not isinstance(resolved, ir.Enum):
        suffix = f"The server's default: ``{default!r}``."
        text = f"{text.rstrip()}\n\n{suffix}" if text else suffix
    return text
