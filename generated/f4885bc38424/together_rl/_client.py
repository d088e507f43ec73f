"""What this revision defines of its operations for the retry rule: ``optim_step`` is a POST that
carries no idempotency key; ``get_optim_step_operation`` is a GET, idempotent as HTTP defines
it. A call that is idempotent or carries a key may be sent again once the server may have
received it, any other call never is; the rule itself (which failures are retried, how often,
after which waits) is the runtime's: see the runtime's README (``together-rl-runtime`` on the
package index) and the docstring of ``together_rl_runtime._client``.
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
    user_agent="together-rl/5.0.1.post1 (API revision f4885bc38424)",
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
"""What each status of an operation means to ``wait_for_optim_step``, as the generator's status
data classifies them.
"""


class Client(SyncAPIClient):
    """A client of the Together RL API, revision f4885bc38424.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL``, else
    https://api.together.ai/v1. Its other options (``timeout``, ``max_retries``, ``headers``,
    ``transport``, ``http_client``, ``server_revision``, ...) and what they do are the
    runtime's: see the runtime's README (``together-rl-runtime`` on the package index) and the
    docstring of ``together_rl_runtime._client``. Use it as a context manager, or call
    :meth:`close`.
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
        """Wait for an operation submitted with ``optim_step`` to finish, reading it as
        ``get_optim_step_operation`` does.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. How it polls (from ``interval`` seconds
        on), its deadline and a status this package does not know (one a later revision of the
        API added) are the runtime's: see the runtime's README (``together-rl-runtime`` on the
        package index) and the docstring of ``together_rl_runtime._client``.
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
    """The asyncio twin of :class:`Client`: the same configuration and methods, awaited. Use it
    as an async context manager, or call :meth:`aclose`."""

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
        """Wait for an operation submitted with ``optim_step`` to finish, reading it as
        ``get_optim_step_operation`` does.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. How it polls (from ``interval`` seconds
        on), its deadline and a status this package does not know (one a later revision of the
        API added) are the runtime's: see the runtime's README (``together-rl-runtime`` on the
        package index) and the docstring of ``together_rl_runtime._client``.
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
