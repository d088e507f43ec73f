"""The models of the Swagger Petstore API, revision 1.0.0.

Request models check what they send: a wrong type, a value outside the bounds, lengths or
pattern of the schema, an unknown field or an unknown enum value raises ValidationError naming
its JSON path. Response models are tolerant, since a newer (or faulty) server may answer:
unknown enum values are kept as strings, unknown fields in ``extra``, and fields missing or
not as the schema says are kept as received and listed in ``problems``. Fields left out are
UNSET and not sent.
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field
from typing import IO, Any, ClassVar, TypeAlias

from ._runtime import (
    UNSET,
    Model,
    StrEnum,
    Unset,
    check_boolean,
    check_datetime,
    check_file,
    check_integer,
    check_number,
    check_string,
    list_of,
    one_of,
    open_enum,
    optional,
    put,
    received,
    required,
    strict_enum,
    write_datetime,
    write_enum,
    write_model,
)

__all__ = [
    "Address",
    "Bird",
    "Cat",
    "Coordinates",
    "Ears",
    "Error",
    "ExtendedError",
    "ListPetsColor",
    "Pet",
    "PetCreate",
    "PetCreatePartOne",
    "PetCreatePartPhoto",
    "PetCreatePartTwo",
    "PetData",
    "PetPhoto",
    "PetWithPhotoCreate",
    "Pets",
    "PetsData",
    "Position",
    "StandardError",
    "StandardErrors",
    "Tag",
    "TagCreate",
    "TagCreateCreatedOption1",
    "TagDelete",
    "TagList",
    "Userdata",
    "Utctime",
    "UtctimeOption1",
    "Wings",
]


class UtctimeOption1(StrEnum):
    """The values of ``UtctimeOption1``."""

    ALWAYS = "always"
    NOW = "now"


class Tag(StrEnum):
    """The values of ``Tag``."""

    CATS = "cats"
    DOGS = "dogs"
    BIRDS = "birds"


class Position(enum.IntEnum):
    """The values of ``Position``."""

    V_1 = 1
    V_2 = 2
    V_3 = 3


class TagCreateCreatedOption1(StrEnum):
    """The values of ``TagCreateCreatedOption1``."""

    ALWAYS = "always"
    NOW = "now"


@dataclass(kw_only=True)
class Coordinates(Model):
    """The ``Coordinates`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"lat", "lon"})

    lat: float

    lon: float

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Coordinates:
        fields, _ = cls._fields_of(data, path)
        return cls(
            lat=required(fields, "lat", path, check_number),
            lon=required(fields, "lon", path, check_number),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "lat", self.lat, path, check_number)
        put(data, "lon", self.lon, path, check_number)
        return data


@dataclass(kw_only=True)
class Userdata(Model):
    """The ``Userdata`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"name"})

    name: str

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Userdata:
        fields, _ = cls._fields_of(data, path)
        return cls(
            name=required(fields, "name", path, check_string),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "name", self.name, path, check_string)
        return data


@dataclass(kw_only=True)
class Address(Model):
    """The ``Address`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"street", "city"})
    _STRICT: ClassVar[bool] = False

    street: str | Unset = UNSET

    city: str

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Address:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            street=received(fields, "street", path, check_string, problems),
            city=received(fields, "city", path, check_string, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "street", self.street, path, check_string, self.problems)
        put(data, "city", self.city, path, check_string, self.problems)
        return data


@dataclass(kw_only=True)
class Pet(Model):
    """The ``Pet`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"name", "tag", "address", "position", "healthy", "ears", "wings", "id"}
    )
    _STRICT: ClassVar[bool] = False

    name: str

    tag: Tag | str | Unset = UNSET

    address: Address | Unset = UNSET

    position: Position | int | Unset = UNSET

    healthy: bool | Unset = UNSET

    ears: Ears | Unset = UNSET

    wings: Wings | Unset = UNSET

    id: int

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Pet:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            name=received(fields, "name", path, check_string, problems, required=True),
            tag=received(fields, "tag", path, open_enum(Tag), problems),
            address=received(fields, "address", path, Address.from_dict, problems),
            position=received(fields, "position", path, open_enum(Position), problems),
            healthy=received(fields, "healthy", path, check_boolean, problems),
            ears=received(fields, "ears", path, Ears.from_dict, problems),
            wings=received(fields, "wings", path, Wings.from_dict, problems),
            id=received(fields, "id", path, check_integer, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "name", self.name, path, check_string, self.problems)
        put(data, "tag", self.tag, path, write_enum, self.problems)
        put(data, "address", self.address, path, write_model(Address), self.problems)
        put(data, "position", self.position, path, write_enum, self.problems)
        put(data, "healthy", self.healthy, path, check_boolean, self.problems)
        put(data, "ears", self.ears, path, write_model(Ears), self.problems)
        put(data, "wings", self.wings, path, write_model(Wings), self.problems)
        put(data, "id", self.id, path, check_integer, self.problems)
        return data


@dataclass(kw_only=True)
class PetCreate(Model):
    """The ``PetCreate`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"name", "tag", "address", "position", "healthy", "ears", "wings"}
    )

    name: str

    tag: Tag | Unset = UNSET

    address: Address | Unset = UNSET

    position: Position | Unset = UNSET

    healthy: bool | Unset = UNSET

    ears: Ears | Unset = UNSET

    wings: Wings | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetCreate:
        fields, _ = cls._fields_of(data, path)
        return cls(
            name=required(fields, "name", path, check_string),
            tag=optional(fields, "tag", path, strict_enum(Tag)),
            address=optional(fields, "address", path, Address.from_dict),
            position=optional(fields, "position", path, strict_enum(Position)),
            healthy=optional(fields, "healthy", path, check_boolean),
            ears=optional(fields, "ears", path, Ears.from_dict),
            wings=optional(fields, "wings", path, Wings.from_dict),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "name", self.name, path, check_string)
        put(data, "tag", self.tag, path, strict_enum(Tag))
        put(data, "address", self.address, path, write_model(Address))
        put(data, "position", self.position, path, strict_enum(Position))
        put(data, "healthy", self.healthy, path, check_boolean)
        put(data, "ears", self.ears, path, write_model(Ears))
        put(data, "wings", self.wings, path, write_model(Wings))
        return data


@dataclass(kw_only=True)
class PetWithPhotoCreate(Model):
    """The ``PetWithPhotoCreate`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"name", "tag", "address", "position", "healthy", "photo", "ears", "wings"}
    )

    name: str

    tag: Tag | Unset = UNSET

    address: Address | Unset = UNSET

    position: Position | Unset = UNSET

    healthy: bool | Unset = UNSET

    photo: bytes | IO[bytes] | Unset = UNSET

    ears: Ears | Unset = UNSET

    wings: Wings | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetWithPhotoCreate:
        fields, _ = cls._fields_of(data, path)
        return cls(
            name=required(fields, "name", path, check_string),
            tag=optional(fields, "tag", path, strict_enum(Tag)),
            address=optional(fields, "address", path, Address.from_dict),
            position=optional(fields, "position", path, strict_enum(Position)),
            healthy=optional(fields, "healthy", path, check_boolean),
            photo=optional(fields, "photo", path, check_file),
            ears=optional(fields, "ears", path, Ears.from_dict),
            wings=optional(fields, "wings", path, Wings.from_dict),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "name", self.name, path, check_string)
        put(data, "tag", self.tag, path, strict_enum(Tag))
        put(data, "address", self.address, path, write_model(Address))
        put(data, "position", self.position, path, strict_enum(Position))
        put(data, "healthy", self.healthy, path, check_boolean)
        put(data, "photo", self.photo, path, check_file)
        put(data, "ears", self.ears, path, write_model(Ears))
        put(data, "wings", self.wings, path, write_model(Wings))
        return data


@dataclass(kw_only=True)
class PetCreatePartOne(Model):
    """The ``PetCreatePartOne`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"name", "tag", "address"})

    name: str

    tag: Tag | Unset = UNSET

    address: Address | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetCreatePartOne:
        fields, _ = cls._fields_of(data, path)
        return cls(
            name=required(fields, "name", path, check_string),
            tag=optional(fields, "tag", path, strict_enum(Tag)),
            address=optional(fields, "address", path, Address.from_dict),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "name", self.name, path, check_string)
        put(data, "tag", self.tag, path, strict_enum(Tag))
        put(data, "address", self.address, path, write_model(Address))
        return data


@dataclass(kw_only=True)
class PetCreatePartTwo(Model):
    """The ``PetCreatePartTwo`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"position", "healthy"})

    position: Position | Unset = UNSET

    healthy: bool | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetCreatePartTwo:
        fields, _ = cls._fields_of(data, path)
        return cls(
            position=optional(fields, "position", path, strict_enum(Position)),
            healthy=optional(fields, "healthy", path, check_boolean),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "position", self.position, path, strict_enum(Position))
        put(data, "healthy", self.healthy, path, check_boolean)
        return data


@dataclass(kw_only=True)
class PetCreatePartPhoto(Model):
    """The ``PetCreatePartPhoto`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"photo"})

    photo: bytes | IO[bytes] | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetCreatePartPhoto:
        fields, _ = cls._fields_of(data, path)
        return cls(
            photo=optional(fields, "photo", path, check_file),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "photo", self.photo, path, check_file)
        return data


@dataclass(kw_only=True)
class Bird(Model):
    """The ``Bird`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"wings"})

    wings: Wings

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Bird:
        fields, _ = cls._fields_of(data, path)
        return cls(
            wings=required(fields, "wings", path, Wings.from_dict),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "wings", self.wings, path, write_model(Wings))
        return data


@dataclass(kw_only=True)
class Wings(Model):
    """The ``Wings`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"healthy"})
    _STRICT: ClassVar[bool] = False

    healthy: bool

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Wings:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            healthy=received(fields, "healthy", path, check_boolean, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "healthy", self.healthy, path, check_boolean, self.problems)
        return data


@dataclass(kw_only=True)
class Cat(Model):
    """The ``Cat`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"ears"})

    ears: Ears

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Cat:
        fields, _ = cls._fields_of(data, path)
        return cls(
            ears=required(fields, "ears", path, Ears.from_dict),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "ears", self.ears, path, write_model(Ears))
        return data


@dataclass(kw_only=True)
class Ears(Model):
    """The ``Ears`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"healthy"})
    _STRICT: ClassVar[bool] = False

    healthy: bool

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Ears:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            healthy=received(fields, "healthy", path, check_boolean, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "healthy", self.healthy, path, check_boolean, self.problems)
        return data


@dataclass(kw_only=True)
class PetsData(Model):
    """The ``PetsData`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"data"})
    _STRICT: ClassVar[bool] = False

    data: list[Pet]

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetsData:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            data=received(fields, "data", path, list_of(Pet.from_dict), problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "data", self.data, path, list_of(write_model(Pet)), self.problems)
        return data


@dataclass(kw_only=True)
class PetData(Model):
    """The ``PetData`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"data"})
    _STRICT: ClassVar[bool] = False

    data: Pet

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> PetData:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            data=received(fields, "data", path, Pet.from_dict, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "data", self.data, path, write_model(Pet), self.problems)
        return data


@dataclass(kw_only=True)
class TagCreate(Model):
    """The ``TagCreate`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"created", "name"})

    created: TagCreateCreatedOption1 | datetime.datetime | Unset = UNSET

    name: str

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> TagCreate:
        fields, _ = cls._fields_of(data, path)
        return cls(
            created=optional(
                fields,
                "created",
                path,
                one_of(strict_enum(TagCreateCreatedOption1), check_datetime),
            ),
            name=required(fields, "name", path, check_string),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(
            data,
            "created",
            self.created,
            path,
            one_of(strict_enum(TagCreateCreatedOption1), write_datetime),
        )
        put(data, "name", self.name, path, check_string)
        return data


@dataclass(kw_only=True)
class TagDelete(Model):
    """The ``TagDelete`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"ids"})

    ids: list[int]

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> TagDelete:
        fields, _ = cls._fields_of(data, path)
        return cls(
            ids=required(fields, "ids", path, list_of(check_integer)),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "ids", self.ids, path, list_of(check_integer))
        return data


@dataclass(kw_only=True)
class Error(Model):
    """The ``Error`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"code", "message"})

    code: int | Unset = UNSET
    """The server's default: ``400``."""

    message: str

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Error:
        fields, _ = cls._fields_of(data, path)
        return cls(
            code=optional(fields, "code", path, check_integer),
            message=required(fields, "message", path, check_string),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "code", self.code, path, check_integer)
        put(data, "message", self.message, path, check_string)
        return data


@dataclass(kw_only=True)
class StandardError(Model):
    """The ``StandardError`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"title", "status", "type"})
    _STRICT: ClassVar[bool] = False

    title: str

    status: int
    """The server's default: ``400``."""

    type: str

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> StandardError:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            title=received(fields, "title", path, check_string, problems, required=True),
            status=received(fields, "status", path, check_integer, problems, required=True),
            type=received(fields, "type", path, check_string, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "title", self.title, path, check_string, self.problems)
        put(data, "status", self.status, path, check_integer, self.problems)
        put(data, "type", self.type, path, check_string, self.problems)
        return data


@dataclass(kw_only=True)
class StandardErrors(Model):
    """The ``StandardErrors`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"errors"})
    _STRICT: ClassVar[bool] = False

    errors: list[StandardError]

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> StandardErrors:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            errors=received(
                fields, "errors", path, list_of(StandardError.from_dict), problems, required=True
            ),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "errors", self.errors, path, list_of(write_model(StandardError)), self.problems)
        return data


@dataclass(kw_only=True)
class ExtendedError(Model):
    """The ``ExtendedError`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"code", "message", "correlationId", "rootCause", "suberror"}
    )
    _STRICT: ClassVar[bool] = False

    code: int | Unset = UNSET
    """The server's default: ``400``."""

    message: str

    correlation_id: str | Unset = UNSET

    root_cause: str

    suberror: ExtendedError | Unset = UNSET

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> ExtendedError:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            code=received(fields, "code", path, check_integer, problems),
            message=received(fields, "message", path, check_string, problems, required=True),
            correlation_id=received(fields, "correlationId", path, check_string, problems),
            root_cause=received(fields, "rootCause", path, check_string, problems, required=True),
            suberror=received(fields, "suberror", path, ExtendedError.from_dict, problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "code", self.code, path, check_integer, self.problems)
        put(data, "message", self.message, path, check_string, self.problems)
        put(data, "correlationId", self.correlation_id, path, check_string, self.problems)
        put(data, "rootCause", self.root_cause, path, check_string, self.problems)
        put(data, "suberror", self.suberror, path, write_model(ExtendedError), self.problems)
        return data


@dataclass(kw_only=True)
class ListPetsColor(Model):
    """The ``ListPetsColor`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"R", "G", "B"})

    r: int | Unset = UNSET

    g: int | Unset = UNSET

    b: int | Unset = UNSET

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> ListPetsColor:
        fields, _ = cls._fields_of(data, path)
        return cls(
            r=optional(fields, "R", path, check_integer),
            g=optional(fields, "G", path, check_integer),
            b=optional(fields, "B", path, check_integer),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "R", self.r, path, check_integer)
        put(data, "G", self.g, path, check_integer)
        put(data, "B", self.b, path, check_integer)
        return data


Utctime: TypeAlias = UtctimeOption1 | datetime.datetime
"""The ``Utctime`` schema."""


PetPhoto: TypeAlias = bytes | IO[bytes]
"""The ``PetPhoto`` schema."""


Pets: TypeAlias = list[Pet]
"""The ``Pets`` schema."""


TagList: TypeAlias = list[Tag | str]
"""The ``TagList`` schema."""
