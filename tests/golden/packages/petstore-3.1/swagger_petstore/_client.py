"""What this revision defines of its operations for the retry rule: ``list_pets`` is a GET,
idempotent as HTTP defines it; ``create_pets`` is a POST that carries no idempotency key;
``show_pet_by_id`` is a GET, idempotent as HTTP defines it. A call that is idempotent or
carries a key may be sent again once the server may have received it, any other call never is;
the rule itself (which failures are retried, how often, after which waits) is the client
core's: see the docstring of ``_runtime._client``, this package's copy of the client core.
"""

from __future__ import annotations


from ._runtime import (
    AsyncAPIClient,
    ClientSpec,
    SyncAPIClient,
    check_integer,
    check_string,
    list_of,
    parameter as _parameter,
    path_parameter as _path_parameter,
    status_error as _status_error,
)

from ._revision import NOT_APPLIED_BY, SPEC_REVISION
from .models import (
    Error,
    Pet,
)

__all__ = ["AsyncClient", "Client"]

_SPEC = ClientSpec(
    package="swagger_petstore",
    user_agent="swagger-petstore/1.0.0 (API revision 1.0.0)",
    base_url="http://petstore.swagger.io",
    prefix="/v1",
    api_key_env="SWAGGER_PETSTORE_API_KEY",
    base_url_env="SWAGGER_PETSTORE_BASE_URL",
    revision=SPEC_REVISION,
    not_applied_by=NOT_APPLIED_BY,
    schemes={},
    default_auth=None,
    key_required=False,
)
"""What the clients say of the API: its host, the path before every operation's path, where
the environment holds the API key and the base URL, how each operation sends
the key, and this package's revision."""


class Client(SyncAPIClient):
    """A client of the Swagger Petstore API, revision 1.0.0.

    ``api_key`` defaults to ``SWAGGER_PETSTORE_API_KEY``; ``base_url`` to
    ``SWAGGER_PETSTORE_BASE_URL``, else http://petstore.swagger.io/v1. Its other options
    (``timeout``, ``max_retries``, ``headers``, ``transport``, ``http_client``,
    ``server_revision``, ...) and what they do are the runtime's: see the docstring of
    ``_runtime._client``, this package's copy of the client core. Use it as a context manager,
    or call :meth:`close`.
    """

    _spec = _SPEC

    def list_pets(
        self,
        *,
        limit: int | None = None,
    ) -> list[Pet]:
        """List all pets

        Args:
            limit: How many items to return at one time (max 100)
        """
        _request = self._build_request(
            "GET",
            "/pets",
            params={
                "limit": _parameter(limit, "limit", check_integer),
            },
            auth=None,
        )
        _result: list[Pet] = self._parse(
            self._send(_request, resendable=True), list_of(Pet.from_dict), Error
        )
        return _result

    def create_pets(
        self,
    ) -> None:
        """Create a pet"""
        _request = self._build_request(
            "POST",
            "/pets",
            auth=None,
        )
        _response = self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, Error)

    def show_pet_by_id(
        self,
        pet_id: str,
    ) -> list[Pet]:
        """Info for a specific pet

        Args:
            pet_id: The id of the pet to retrieve
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_string)}",
            auth=None,
        )
        _result: list[Pet] = self._parse(
            self._send(_request, resendable=True), list_of(Pet.from_dict), Error
        )
        return _result


class AsyncClient(AsyncAPIClient):
    """The asyncio twin of :class:`Client`: the same configuration and methods, awaited. Use it
    as an async context manager, or call :meth:`aclose`."""

    _spec = _SPEC

    async def list_pets(
        self,
        *,
        limit: int | None = None,
    ) -> list[Pet]:
        """List all pets

        Args:
            limit: How many items to return at one time (max 100)
        """
        _request = self._build_request(
            "GET",
            "/pets",
            params={
                "limit": _parameter(limit, "limit", check_integer),
            },
            auth=None,
        )
        _result: list[Pet] = self._parse(
            await self._send(_request, resendable=True), list_of(Pet.from_dict), Error
        )
        return _result

    async def create_pets(
        self,
    ) -> None:
        """Create a pet"""
        _request = self._build_request(
            "POST",
            "/pets",
            auth=None,
        )
        _response = await self._send(_request, resendable=False)
        if _response.is_error:
            raise _status_error(_response, Error)

    async def show_pet_by_id(
        self,
        pet_id: str,
    ) -> list[Pet]:
        """Info for a specific pet

        Args:
            pet_id: The id of the pet to retrieve
        """
        _request = self._build_request(
            "GET",
            f"/pets/{_path_parameter(pet_id, 'petId', check_string)}",
            auth=None,
        )
        _result: list[Pet] = self._parse(
            await self._send(_request, resendable=True), list_of(Pet.from_dict), Error
        )
        return _result
