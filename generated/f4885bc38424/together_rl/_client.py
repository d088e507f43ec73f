"""A call is retried up to ``max_retries`` times, with exponential backoff and jitter, or after
the delay the server asks for (``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP
date, where it is at most 60 s); a server's ``x-should-retry: true`` or ``false`` decides on
its own. A request the server may receive twice without harm is retried on a connection error,
a timeout, 408, 409, 429 and 5xx: a GET. In this revision ``optim_step`` carries no
idempotency key, so such a call is never sent twice when the server may have received it (an
optimizer step applied twice silently corrupts a training run): it is retried only when it
provably was not processed, that is when the connection failed before the request was sent, or
on 429.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from together_rl_runtime import (
    UNSET,
    AsyncAPIClient,
    ClientSpec,
    SyncAPIClient,
    Unset,
    check_string,
    path_parameter as _path_parameter,
    rejecting_removed_fields,
    wire as _wire,
)

from ._revision import NOT_APPLIED_BY, SPEC_REVISION
from .models import (
    ErrorData,
    RLAdamParams,
    RLMuonParams,
    RLOptimStepBody,
    RLOptimStepOperation,
    RLTrainingOperationStatus,
)

__all__ = ["AsyncClient", "Client"]

_SPEC = ClientSpec(
    package="together_rl",
    user_agent="together-rl/5.0.1 (API revision f4885bc38424)",
    base_url="https://api.together.ai",
    prefix="/v1",
    api_key_env="TOGETHER_API_KEY",
    base_url_env="TOGETHER_BASE_URL",
    revision=SPEC_REVISION,
    not_applied_by=NOT_APPLIED_BY,
)
"""What the clients say of the API: its host, the path before every operation's path, where
the environment holds the API key and the base URL, and this package's revision."""

_OPTIM_STEP_STATUSES: dict[str, str] = {
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_UNSPECIFIED: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_PENDING: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_RUNNING: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED: "succeeded",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED: "failed",
}
"""What each status of an operation means to ``wait_for_optim_step``, from the project's status
data (spec/statuses.yaml).
"""


class Client(SyncAPIClient):
    """A client of the Together RL API, revision f4885bc38424.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL``, else
    https://api.together.ai/v1. ``timeout`` (seconds, or an ``httpx.Timeout``) applies to each
    request; ``max_retries`` bounds the retries of one call (see the module's retry rule);
    ``headers`` are sent with every request. Pass ``transport`` to serve requests another way
    (a test double, a local session), or ``http_client`` to bring a configured
    ``httpx.Client``, which the client then does not close. ``server_revision`` names the API
    revision of the server, where it is not this package's: the client then logs a warning for
    each request with fields that server would ignore or reject. Use it as a context manager,
    or call :meth:`close`.
    """

    _spec = _SPEC

    @rejecting_removed_fields(
        {
            "adamw_params": (
                "was removed in revision 9ccc57e5e4b9, 2026-07-31 (this package implements "
                "revision f4885bc38424)"
            ),
            "learning_rate": (
                "was removed in revision 0c4fdad77435, 2026-07-26 (this package implements "
                "revision f4885bc38424)"
            ),
            "max_grad_norm": (
                "was removed in revision 9ccc57e5e4b9, 2026-07-31 (this package implements "
                "revision f4885bc38424)"
            ),
            "weight_sync_type": (
                "was removed in revision f26a23fab8e0, 2026-08-08 (this package implements "
                "revision f4885bc38424)"
            ),
        }
    )
    def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters. Does not make the updated parameters available
        for sampling; call `weights-sync` afterwards when you want subsequent samples to use
        the updated policy.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides

        Returns the RLOptimStepOperation.
        """
        _payload = RLOptimStepBody.from_dict(
            _wire(
                {
                    "adam_params": adam_params,
                    "muon_params": muon_params,
                }
            )
        ).to_dict()
        self._warn_not_applied(_payload)
        _request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step",
            json=_payload,
        )
        return self._parse(
            self._send(_request, resendable=False), RLOptimStepOperation.from_dict, ErrorData
        )

    def get_optim_step_operation(
        self,
        session_id: str,
        operation_id: str,
    ) -> RLOptimStepOperation:
        """Get optim-step operation

        Retrieves the current status and result of an optim-step operation.

        Args:
            session_id: Training session ID
            operation_id: Operation ID

        Returns the RLOptimStepOperation.
        """
        _request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
        )
        return self._parse(
            self._send(_request, resendable=True), RLOptimStepOperation.from_dict, ErrorData
        )

    def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls it as ``get_optim_step_operation`` does, first after ``interval`` seconds where
        an operation is given (at once for an id), the interval doubling up to 5 s. Nothing
        runs past the deadline: not a poll, a retry of one, or a wait.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. A status this package does not know
        (one a later revision of the API added) is polled on, with a warning logged once: if
        it is terminal, the wait ends at its deadline with OperationTimeoutError naming it.
        """
        return self._wait(
            operation_or_id,
            RLOptimStepOperation,
            _OPTIM_STEP_STATUSES,
            lambda operation_id: self._build_request(
                "GET",
                f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
            ),
            ErrorData,
            timeout=timeout,
            interval=interval,
        )


class AsyncClient(AsyncAPIClient):
    """The asyncio twin of :class:`Client`: the same configuration and methods, awaited.

    Cancelling a call (``task.cancel()``) abandons its request; the client stays usable. Use it as
    an async context manager, or call :meth:`aclose`.
    """

    _spec = _SPEC

    @rejecting_removed_fields(
        {
            "adamw_params": (
                "was removed in revision 9ccc57e5e4b9, 2026-07-31 (this package implements "
                "revision f4885bc38424)"
            ),
            "learning_rate": (
                "was removed in revision 0c4fdad77435, 2026-07-26 (this package implements "
                "revision f4885bc38424)"
            ),
            "max_grad_norm": (
                "was removed in revision 9ccc57e5e4b9, 2026-07-31 (this package implements "
                "revision f4885bc38424)"
            ),
            "weight_sync_type": (
                "was removed in revision f26a23fab8e0, 2026-08-08 (this package implements "
                "revision f4885bc38424)"
            ),
        }
    )
    async def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters. Does not make the updated parameters available
        for sampling; call `weights-sync` afterwards when you want subsequent samples to use
        the updated policy.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides

        Returns the RLOptimStepOperation.
        """
        _payload = RLOptimStepBody.from_dict(
            _wire(
                {
                    "adam_params": adam_params,
                    "muon_params": muon_params,
                }
            )
        ).to_dict()
        self._warn_not_applied(_payload)
        _request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step",
            json=_payload,
        )
        return self._parse(
            await self._send(_request, resendable=False), RLOptimStepOperation.from_dict, ErrorData
        )

    async def get_optim_step_operation(
        self,
        session_id: str,
        operation_id: str,
    ) -> RLOptimStepOperation:
        """Get optim-step operation

        Retrieves the current status and result of an optim-step operation.

        Args:
            session_id: Training session ID
            operation_id: Operation ID

        Returns the RLOptimStepOperation.
        """
        _request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
        )
        return self._parse(
            await self._send(_request, resendable=True), RLOptimStepOperation.from_dict, ErrorData
        )

    async def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls it as ``get_optim_step_operation`` does, first after ``interval`` seconds where
        an operation is given (at once for an id), the interval doubling up to 5 s. Nothing
        runs past the deadline: not a poll, a retry of one, or a wait.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. A status this package does not know
        (one a later revision of the API added) is polled on, with a warning logged once: if
        it is terminal, the wait ends at its deadline with OperationTimeoutError naming it.
        """
        return await self._wait(
            operation_or_id,
            RLOptimStepOperation,
            _OPTIM_STEP_STATUSES,
            lambda operation_id: self._build_request(
                "GET",
                f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
            ),
            ErrorData,
            timeout=timeout,
            interval=interval,
        )
