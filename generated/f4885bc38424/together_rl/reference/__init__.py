"""The local reference of the optimizer (needs torch: ``pip install together-rl[reference]``).

:class:`LocalSession` applies optimizer steps to local ``torch`` parameters exactly as the API's
reference semantics describe; :class:`LocalTransport` serves the generated client from local
sessions, so a training loop runs with no network; ``python -m together_rl.reference.serve``
serves them over HTTP.
"""

import warnings

with warnings.catch_warnings():
    # torch warns at import when NumPy is missing; the reference does not use NumPy
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch  # noqa: F401  (imported here so that the warning is filtered)

from .._exceptions import ConfigurationError, IdempotencyKeyReusedError, UnknownOperationError
from ._session import ADAM_DEFAULTS, MUON_DEFAULTS, LocalSession
from ._transport import LocalTransport

__all__ = [
    "ADAM_DEFAULTS",
    "MUON_DEFAULTS",
    "ConfigurationError",
    "IdempotencyKeyReusedError",
    "LocalSession",
    "LocalTransport",
    "UnknownOperationError",
]
