"""What this revision defines of its operations for the retry rule: ``list_pets`` is a GET,
idempotent as HTTP defines it; ``create_pets`` is a POST that carries no idempotency key;
``show_pet_by_id`` is a GET, idempotent as HTTP defines it; ``show_pet_photo_by_id`` is a GET,
idempotent as HTTP defines it; ``show_pet_photo_by_id_stream`` is a GET, idempotent as HTTP
defines it; ``create_pet_photo_by_id`` is a POST that carries no idempotency key;
``list_tags`` is a GET, idempotent as HTTP defines it; ``create_tag`` is a POST that carries
no idempotency key; ``delete_tag`` is a DELETE, idempotent as HTTP defines it. A call that is
idempotent or carries a key may be sent again once the server may have received it, any other
call never is; the rule itself (which failures are retried, how often, after which waits) is
the client core's: see the docstring of ``_runtime._client``, this package's copy of the
client core.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from ._runtime import (
    UNSET,
    AsyncAPIClient,
    AuthScheme,
    ClientSpec,
    SyncAPIClient,
    Unset,
    check_boolean,
    check_integer,
    check_string,
    cookie as _cookie,
    joined as _joined,
    list_of,
    one_of,
    open_enum,
    parameter as _parameter,
    path_parameter as _path_parameter,
    query as _query,
    status_error as _status_error,
    strict_enum,
    wire as _wire,
    write_model,
)

from ._revision import NOT_APPLIED_BY, SPEC_REVISION
from .models import (
    Address,
    Coordinates,
    Ears,
    ListPetsColor,
    PetCreate,
    PetData,
    PetsData,
    Position,
    Tag,
    TagCreate,
    TagCreateCreatedOption1,
    TagDelete,
    Userdata,
    Wings,
)

__all__ = ["AsyncClient", "Client"]

_SPEC = ClientSpec(
    package="swagger_petstore",
    user_agent="swagger-petstore/1.0.0 (API revision 1.0.0)",
    base_url="http://petstore.swagger.io",
    prefix="/{version}",
    api_key_env="SWAGGER_PETSTORE_API_KEY",
    base_url_env="SWAGGER_PETSTORE_BASE_URL",
    revision=SPEC_REVISION,
    not_applied_by=NOT_APPLIED_BY,
    schemes={
        "api_key": AuthScheme("query", "api_key"),
        "petstore_auth": AuthScheme("basic"),
    },
    default_auth=None,
    key_required=False,
)
"""What the clients say of the API: its host, the path before every operation's path, where
the environment holds the API key and the base URL, how each operation sends
the key, and this package's revision."""


class Client(SyncAPIClient):
    """A client of the Swagger Petstore API, revision 1.0.0.

    ``api_key`` defaults to ``SWAGGER_PETSTORE_API_KEY``; ``base_url`` to
    ``SWAGGER_PETSTORE_BASE_URL``, else http://petstore.swagger.io/{version}. Its other
    options (``timeout``, ``max_retries``, ``headers``, ``transport``, ``http_client``,
    ``server_revision``, ...) and what they do are the runtime's: see the docstring of
    ``_runtime._client``, this package's copy of the client core. Use it as a context manager,
    or call :meth:`close`.
    """

    _spec = _SPEC

    def list_pets(
        self,
        *,
        limit: int,
        page: int | None = None,
        search: str | None = None,
        ids: list[int] | None = None,
        order: str | int | None = None,
        tags: list[Tag] | None = None,
        coordinates: Coordinates | None = None,
        color: ListPetsColor | None = None,
    ) -> PetsData:
        """List all pets

        Args:
            limit: How many items to return at one time (max 100)
            page: page
            search: Search query
            ids: Filter pets with Ids
            order: order
            tags: Filter pets with tags
            coordinates: coordinates
            color: RGB color

        Returns the PetsData.
        """
        _request = self._build_request(
            "GET",
            "/pets",
            params=_joined(
                {
                    "limit": _parameter(limit, "limit", check_integer),
                    "page": _parameter(page, "page", check_integer),
                    "search": _parameter(search, "search", check_string),
                    "ids": _parameter(ids, "ids", list_of(check_integer)),
                },
                _query(order, "order", one_of(check_string, check_integer), "form", True),
                _query(tags, "tags", list_of(strict_enum(Tag)), "form", False),
                _query(coordinates, "coordinates", write_model(Coordinates), "json", False),
                _query(color, "color", write_model(ListPetsColor), "deepObject", True),
            ),
            auth="api_key",
            auth_optional=True,
        )
        return self._parse(self._send(_request, resendable=True), PetsData.from_dict, None)

    def create_pets(
        self,
        *,
        name: str,
        tag: Tag | Unset = UNSET,
        address: Address | Mapping[str, Any] | Unset = UNSET,
        position: Position | Unset = UNSET,
        healthy: bool | Unset = UNSET,
        ears: Ears | Mapping[str, Any] | Unset = UNSET,
        wings: Wings | Mapping[str, Any] | Unset = UNSET,
        api_key: str,
        user: int,
        userdata: Userdata | None = None,
    ) -> None:
        """Create a pet

        Creates new pet entry

        Args:
            name: name
            tag: tag
            address: address
            position: position
            healthy: healthy
            ears: ears
            wings: wings
            api_key: api-key
            user: user
            userdata: userdata
        """
        _payload = PetCreate.from_dict(
            _wire(
                {
                    "name": name,
                    "tag": tag,
                    "address": address,
                    "position": position,
                    "healthy": healthy,
                    "ears": ears,
                    "wings": wings,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "POST",
            "/pets",
            json=_payload,
            headers={
                "api-key": _parameter(api_key, "api-key", check_string),
            },
            cookies=_joined(
                {
                    "user": _parameter(user, "user", check_integer),
                },
                _cookie(userdata, "userdata", write_model(Userdata), "json", False),
            ),
            auth="api_key",
            auth_optional=True,
        )
        _response = self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    def show_pet_by_id(
        self,
        pet_id: int,
    ) -> PetData | bytes:
        """Info for a specific pet

        Args:
            pet_id: The id of the pet to retrieve

        Returns the PetData, or the response's bytes where the server answers with another
        media type than JSON.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}",
            auth="petstore_auth",
        )
        return self._parse_or(
            self._send(_request, resendable=True), PetData.from_dict, None, "bytes"
        )

    def show_pet_photo_by_id(
        self,
        pet_id: int,
    ) -> bytes:
        """Photo for a specific pet

        Args:
            pet_id: The id of the pet to retrieve

        Returns the response's bytes.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            auth="api_key",
            auth_optional=True,
        )
        _response = self._send(_request, resendable=True)
        if _response.is_error:
            raise _status_error(_response, None)
        return _response.content

    def show_pet_photo_by_id_stream(
        self,
        pet_id: int,
    ) -> Iterator[bytes]:
        """Photo for a specific pet, in pieces as it arrives

        Args:
            pet_id: The id of the pet to retrieve

        Returns the response's bytes in pieces as they arrive: a download of any size, which
        ``max_response_bytes`` does not bound.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            auth="api_key",
            auth_optional=True,
        )
        return self._download(_request, resendable=True, error=None)

    def create_pet_photo_by_id(
        self,
        pet_id: int,
        body: bytes,
    ) -> None:
        """Create a pet photo

        Creates new pet photo entry

        Args:
            pet_id: The id of the pet to retrieve
            body: The request body.
        """
        _request = self._build_request(
            "POST",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            content=body,
            content_type="image/*",
            auth="api_key",
            auth_optional=True,
        )
        _response = self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    def list_tags(
        self,
    ) -> list[Tag | str | int]:
        """List all tags"""
        _request = self._build_request(
            "GET",
            "/tags",
            auth="api_key",
            auth_optional=True,
        )
        _result: list[Tag | str | int] = self._parse(
            self._send(_request, resendable=True), list_of(open_enum(Tag)), None
        )
        return _result

    def create_tag(
        self,
        *,
        created: TagCreateCreatedOption1 | datetime.datetime | Unset = UNSET,
        name: str,
    ) -> None:
        """Create new tag

        Args:
            created: created
            name: name
        """
        _payload = TagCreate.from_dict(
            _wire(
                {
                    "created": created,
                    "name": name,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "POST",
            "/tags",
            json=_payload,
            auth="api_key",
            auth_optional=True,
        )
        _response = self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    def delete_tag(
        self,
        *,
        ids: list[int],
        x_delete_force: bool | None = None,
    ) -> None:
        """Delete tags

        Args:
            ids: ids
            x_delete_force: x-delete-force
        """
        _payload = TagDelete.from_dict(
            _wire(
                {
                    "ids": ids,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "DELETE",
            "/tags",
            json=_payload,
            headers={
                "x-delete-force": _parameter(x_delete_force, "x-delete-force", check_boolean),
            },
            auth="api_key",
            auth_optional=True,
        )
        _response = self._send(_request, resendable=True)
        if _response.is_error:
            raise _status_error(_response, None)


class AsyncClient(AsyncAPIClient):
    """The asyncio twin of :class:`Client`: the same configuration and methods, awaited. Use it
    as an async context manager, or call :meth:`aclose`."""

    _spec = _SPEC

    async def list_pets(
        self,
        *,
        limit: int,
        page: int | None = None,
        search: str | None = None,
        ids: list[int] | None = None,
        order: str | int | None = None,
        tags: list[Tag] | None = None,
        coordinates: Coordinates | None = None,
        color: ListPetsColor | None = None,
    ) -> PetsData:
        """List all pets

        Args:
            limit: How many items to return at one time (max 100)
            page: page
            search: Search query
            ids: Filter pets with Ids
            order: order
            tags: Filter pets with tags
            coordinates: coordinates
            color: RGB color

        Returns the PetsData.
        """
        _request = self._build_request(
            "GET",
            "/pets",
            params=_joined(
                {
                    "limit": _parameter(limit, "limit", check_integer),
                    "page": _parameter(page, "page", check_integer),
                    "search": _parameter(search, "search", check_string),
                    "ids": _parameter(ids, "ids", list_of(check_integer)),
                },
                _query(order, "order", one_of(check_string, check_integer), "form", True),
                _query(tags, "tags", list_of(strict_enum(Tag)), "form", False),
                _query(coordinates, "coordinates", write_model(Coordinates), "json", False),
                _query(color, "color", write_model(ListPetsColor), "deepObject", True),
            ),
            auth="api_key",
            auth_optional=True,
        )
        return self._parse(await self._send(_request, resendable=True), PetsData.from_dict, None)

    async def create_pets(
        self,
        *,
        name: str,
        tag: Tag | Unset = UNSET,
        address: Address | Mapping[str, Any] | Unset = UNSET,
        position: Position | Unset = UNSET,
        healthy: bool | Unset = UNSET,
        ears: Ears | Mapping[str, Any] | Unset = UNSET,
        wings: Wings | Mapping[str, Any] | Unset = UNSET,
        api_key: str,
        user: int,
        userdata: Userdata | None = None,
    ) -> None:
        """Create a pet

        Creates new pet entry

        Args:
            name: name
            tag: tag
            address: address
            position: position
            healthy: healthy
            ears: ears
            wings: wings
            api_key: api-key
            user: user
            userdata: userdata
        """
        _payload = PetCreate.from_dict(
            _wire(
                {
                    "name": name,
                    "tag": tag,
                    "address": address,
                    "position": position,
                    "healthy": healthy,
                    "ears": ears,
                    "wings": wings,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "POST",
            "/pets",
            json=_payload,
            headers={
                "api-key": _parameter(api_key, "api-key", check_string),
            },
            cookies=_joined(
                {
                    "user": _parameter(user, "user", check_integer),
                },
                _cookie(userdata, "userdata", write_model(Userdata), "json", False),
            ),
            auth="api_key",
            auth_optional=True,
        )
        _response = await self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    async def show_pet_by_id(
        self,
        pet_id: int,
    ) -> PetData | bytes:
        """Info for a specific pet

        Args:
            pet_id: The id of the pet to retrieve

        Returns the PetData, or the response's bytes where the server answers with another
        media type than JSON.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}",
            auth="petstore_auth",
        )
        return self._parse_or(
            await self._send(_request, resendable=True), PetData.from_dict, None, "bytes"
        )

    async def show_pet_photo_by_id(
        self,
        pet_id: int,
    ) -> bytes:
        """Photo for a specific pet

        Args:
            pet_id: The id of the pet to retrieve

        Returns the response's bytes.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            auth="api_key",
            auth_optional=True,
        )
        _response = await self._send(_request, resendable=True)
        if _response.is_error:
            raise _status_error(_response, None)
        return _response.content

    async def show_pet_photo_by_id_stream(
        self,
        pet_id: int,
    ) -> AsyncIterator[bytes]:
        """Photo for a specific pet, in pieces as it arrives

        Args:
            pet_id: The id of the pet to retrieve

        Returns the response's bytes in pieces as they arrive: a download of any size, which
        ``max_response_bytes`` does not bound.
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            auth="api_key",
            auth_optional=True,
        )
        return await self._download(_request, resendable=True, error=None)

    async def create_pet_photo_by_id(
        self,
        pet_id: int,
        body: bytes,
    ) -> None:
        """Create a pet photo

        Creates new pet photo entry

        Args:
            pet_id: The id of the pet to retrieve
            body: The request body.
        """
        _request = self._build_request(
            "POST",
            f"/pets/{_path_parameter(pet_id, 'petId', check_integer)}/photo",
            content=body,
            content_type="image/*",
            auth="api_key",
            auth_optional=True,
        )
        _response = await self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    async def list_tags(
        self,
    ) -> list[Tag | str | int]:
        """List all tags"""
        _request = self._build_request(
            "GET",
            "/tags",
            auth="api_key",
            auth_optional=True,
        )
        _result: list[Tag | str | int] = self._parse(
            await self._send(_request, resendable=True), list_of(open_enum(Tag)), None
        )
        return _result

    async def create_tag(
        self,
        *,
        created: TagCreateCreatedOption1 | datetime.datetime | Unset = UNSET,
        name: str,
    ) -> None:
        """Create new tag

        Args:
            created: created
            name: name
        """
        _payload = TagCreate.from_dict(
            _wire(
                {
                    "created": created,
                    "name": name,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "POST",
            "/tags",
            json=_payload,
            auth="api_key",
            auth_optional=True,
        )
        _response = await self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, None)

    async def delete_tag(
        self,
        *,
        ids: list[int],
        x_delete_force: bool | None = None,
    ) -> None:
        """Delete tags

        Args:
            ids: ids
            x_delete_force: x-delete-force
        """
        _payload = TagDelete.from_dict(
            _wire(
                {
                    "ids": ids,
                }
            )
        ).to_dict()
        _request = self._build_request(
            "DELETE",
            "/tags",
            json=_payload,
            headers={
                "x-delete-force": _parameter(x_delete_force, "x-delete-force", check_boolean),
            },
            auth="api_key",
            auth_optional=True,
        )
        _response = await self._send(_request, resendable=True)
        if _response.is_error:
            raise _status_error(_response, None)
