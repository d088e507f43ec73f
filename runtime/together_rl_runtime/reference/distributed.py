"""The local reference beyond one process: sharded checkpoints, and the reference server under
torchrun.

A :class:`LocalSession` over FSDP2-sharded parameters (DTensors) steps each process's shards as
the whole parameters would be stepped (see ``_sharded.py``); every process of the device mesh
calls ``optim_step`` with the same request, as each calls ``loss.backward()``.

**Checkpoints.** :func:`save_checkpoint` writes a session's state with
``torch.distributed.checkpoint`` into a folder, each process its own shards (call it on every
process of a sharded session); :func:`load_checkpoint` reads it into a session over the same
parameters, sharded on any number of processes or not at all (a folder saved by two processes
loads into one, and back). ``torch.distributed.checkpoint`` needs NumPy where a process group
is running (``pip install together-rl-runtime[distributed]``).

**The server under torchrun.** ``torchrun --nproc-per-node N -m together_rl.reference.serve ...``
starts N processes of a revision's server; :func:`serve.main` finds itself started by torchrun
(its environment) and hands over to :func:`serve_ranks`: every process joins the process group
(gloo on CPU, NCCL on GPUs: ``--device cpu|cuda``, by default CUDA where there is a GPU), rank 0
serves HTTP, and every request that reaches a session (making it, a step, saving or loading it)
is sent from rank 0 to the other ranks before rank 0 runs it, so that every rank runs it on its
shards, in the same order. Each session's model comes from ``--model`` on every rank; rank 0's
initial values are sent to the others, and a model that is not sharded yet is sharded with
``fully_shard`` over all ranks (shard it in your model function for FSDP units of your own).
``--state-dir`` saves the whole state (gathered to rank 0) after each step, the file a
single-process server writes, so that a server restarts with any number of processes.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

import torch
import torch.distributed as dist
from torch import Tensor, nn

from .._exceptions import ConfigurationError, IdempotencyKeyReusedError
from .._model import Model
from ._session import LocalSession
from ._sharded import is_sharded

if TYPE_CHECKING:
    from torch.distributed.device_mesh import DeviceMesh

__all__ = [
    "demo_model",
    "launched_by_torchrun",
    "load_checkpoint",
    "save_checkpoint",
    "serve_ranks",
]

CHECKPOINT_FORMAT = "together-rl-reference-session"
"""The ``format`` of a checkpoint's session record."""
_RECORD = "session"
"""The checkpoint's key for what is not a tensor: counters, operations, idempotency keys."""

# -- checkpoints ------------------------------------------------------------------------------------


def _distributed() -> bool:
    """Whether a process group runs (else a checkpoint is one process's)."""
    return dist.is_available() and dist.is_initialized()


def _rank() -> int:
    return dist.get_rank() if _distributed() else 0


@contextmanager
def _single_process_is_meant() -> Iterator[None]:
    """Without a process group, torch.distributed.checkpoint warns that it assumes one process:
    a whole session's checkpoint is meant so."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.distributed is .*, assuming the intent")
        yield


def save_checkpoint(session: LocalSession, path: str | os.PathLike[str]) -> None:
    """Save ``session``'s state (parameters, optimizer state, counters, operations, idempotency
    keys) into the folder ``path`` with ``torch.distributed.checkpoint``.

    Over sharded parameters every process of the session calls it: each writes its own shards,
    and rank 0 the rest. A whole session (no process group) writes everything.
    """
    from torch.distributed.checkpoint.state_dict_saver import save

    state = session.state_dict()
    tensors: dict[str, Any] = {
        "parameters": state["parameters"],
        "adam": {
            name: {key: value for key, value in saved.items() if isinstance(value, Tensor)}
            for name, saved in state["adam"].items()
        },
        "muon": state["muon"],
    }
    if _rank() == 0:  # the operations of rank 0, which a server answers with
        tensors[_RECORD] = json.dumps(
            {
                "format": CHECKPOINT_FORMAT,
                "version": 1,
                "optimizer": state["optimizer"],
                "step": state["step"],
                "operations": state["operations"],
                "idempotency_keys": state["idempotency_keys"],
                "adam_steps": {name: saved["step"] for name, saved in state["adam"].items()},
            }
        )
    with _single_process_is_meant():
        save(tensors, checkpoint_id=os.fspath(path), no_dist=not _distributed())


def load_checkpoint(session: LocalSession, path: str | os.PathLike[str]) -> None:
    """Load what :func:`save_checkpoint` saved in the folder ``path`` into ``session``, a session
    over the same parameters, sharded as the saving one was, otherwise, or not at all; every
    process of a sharded session calls it. The session then continues as the saved one would
    have (bit for bit, where its sharding is the same)."""
    from torch.distributed.checkpoint.filesystem import FileSystemReader
    from torch.distributed.checkpoint.state_dict_loader import load

    folder = os.fspath(path)
    try:
        keys = set(FileSystemReader(folder).read_metadata().state_dict_metadata)
    except (OSError, ValueError, RuntimeError) as exc:
        raise ConfigurationError(f"{folder} holds no checkpoint ({exc})") from None
    current = session.state_dict()
    params: dict[str, Tensor] = current["parameters"]
    saved = {key.removeprefix("parameters.") for key in keys if key.startswith("parameters.")}
    if _RECORD not in keys or saved != set(params):
        raise ConfigurationError(
            f"the checkpoint in {folder} is not of a session over this session's parameters"
        )
    template: dict[str, Any] = {_RECORD: "", "parameters": params, "adam": {}, "muon": {}}
    for name, param in params.items():
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            if f"adam.{name}.{key}" in keys:
                template["adam"].setdefault(name, {})[key] = torch.zeros_like(param)
        if f"muon.{name}.momentum_buffer" in keys:
            template["muon"][name] = {"momentum_buffer": torch.zeros_like(param)}
    with _single_process_is_meant():
        load(template, checkpoint_id=folder, no_dist=not _distributed())
    record = json.loads(template[_RECORD])
    if record.get("format") != CHECKPOINT_FORMAT:
        raise ConfigurationError(f"the checkpoint in {folder} is not a session's")
    session.load_state_dict(
        {
            "optimizer": record["optimizer"],
            "step": record["step"],
            "operations": record["operations"],
            "idempotency_keys": record["idempotency_keys"],
            "parameters": params,
            "adam": {
                name: {**tensors, "step": record["adam_steps"][name]}
                for name, tensors in template["adam"].items()
            },
            "muon": template["muon"],
        }
    )


# -- the server under torchrun ----------------------------------------------------------------------

_serving = False
"""Whether :func:`serve_ranks` runs in this process (rank 0's server is then the plain one)."""
_device = torch.device("cpu")
"""The device of this rank's models (``--device``)."""


def launched_by_torchrun() -> bool:
    """Whether torchrun started this process (its environment says so) and :func:`serve_ranks`
    does not run yet: :func:`serve.main` then hands over to it."""
    return not _serving and "TORCHELASTIC_RUN_ID" in os.environ and "WORLD_SIZE" in os.environ


def demo_model(seed: int) -> tuple[nn.Module, Callable[[], Tensor]]:
    """The demonstration model of ``serve`` (a small regression network and the loss of a fixed
    random batch, the same values for a given ``seed``), on this rank's device."""
    generator = torch.Generator().manual_seed(seed)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.1)
    inputs = torch.randn(64, 16, generator=generator).to(_device)
    targets = torch.randn(64, 4, generator=generator).to(_device)
    model.to(_device)
    return model, lambda: nn.functional.mse_loss(model(inputs), targets)


class _Ranks:
    """What the ranks of a server share: the device mesh, the channel on which rank 0 sends
    each request to the others (a gloo group of its own, which waits as long as a server may
    be idle), and the one lock under which rank 0 sends and runs a request, so that every rank
    runs the requests of all sessions in one order."""

    def __init__(self, mesh: DeviceMesh, factory: Callable[[int], Any], seed: int) -> None:
        self.mesh = mesh
        self.factory, self.seed = factory, seed
        self.channel = dist.new_group(backend="gloo", timeout=timedelta(days=365))
        self.lock = threading.RLock()
        self.sessions = 0

    def send(self, kind: str, index: int, payload: Any = None) -> None:
        buffer = io.BytesIO()
        torch.save((kind, index, payload), buffer)
        data = torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8)
        dist.broadcast(torch.tensor([data.numel()]), src=0, group=self.channel)
        dist.broadcast(data, src=0, group=self.channel)

    def receive(self) -> tuple[str, int, Any]:
        size = torch.zeros(1, dtype=torch.int64)
        dist.broadcast(size, src=0, group=self.channel)
        data = torch.empty(int(size.item()), dtype=torch.uint8)
        dist.broadcast(data, src=0, group=self.channel)
        kind, index, payload = torch.load(io.BytesIO(bytes(data.untyped_storage())))
        return kind, index, payload

    def prepare(self, model: nn.Module) -> None:
        """Give a model rank 0's values and shard it over the mesh, unless it is sharded."""
        from torch.distributed.fsdp import fully_shard

        if any(is_sharded(p) for p in model.parameters()):
            return
        with torch.no_grad():
            for tensor in [*model.parameters(), *model.buffers()]:
                group = self.channel if tensor.device.type == "cpu" else None
                dist.broadcast(tensor, src=0, group=group)
        fully_shard(model, mesh=self.mesh)


class _Leader(LocalSession):
    """Rank 0's sessions: each request that reaches one is sent to the other ranks first."""

    ranks: ClassVar[_Ranks]

    def __init__(self, params: Any, optimizer: Any = "adam", **options: Any) -> None:
        with self.ranks.lock:
            self._index = self.ranks.sessions
            self.ranks.sessions += 1
            self.ranks.send("make", self._index, {"optimizer": optimizer, **options})
            if isinstance(params, nn.Module):
                self.ranks.prepare(params)
            super().__init__(params, optimizer, **options)

    def optim_step(
        self,
        body: Model | Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        gradients: Callable[[], object] | None = None,
    ) -> Any:
        with self.ranks.lock:
            wire = body.to_dict() if isinstance(body, Model) else dict(body)
            self.ranks.send("step", self._index, (wire, idempotency_key, gradients is not None))
            return super().optim_step(body, idempotency_key=idempotency_key, gradients=gradients)

    def state_dict(self) -> dict[str, Any]:
        with self.ranks.lock:
            self.ranks.send("state", self._index)
            whole: dict[str, Any] = _whole(super().state_dict())
            return whole

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        with self.ranks.lock:
            self.ranks.send("load", self._index, dict(state))
            super().load_state_dict(state)


def _whole(state: Any) -> Any:
    """``state`` with every DTensor gathered whole (on every rank, in the same order), on the
    CPU."""
    if isinstance(state, Mapping):
        return {key: _whole(state[key]) for key in sorted(state)}
    if isinstance(state, Tensor) and is_sharded(state):
        return state.full_tensor().cpu()  # type: ignore[attr-defined]
    return state


def _follow(ranks: _Ranks, session_class: type[LocalSession]) -> None:
    """A rank but 0: run what rank 0 sends, until it says stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # rank 0 stops the others
    sessions: list[LocalSession | None] = []
    losses: list[Callable[[], Tensor] | None] = []
    while True:
        kind, index, payload = ranks.receive()
        try:
            if kind == "stop":
                return
            if kind == "make":
                sessions.append(None)
                losses.append(None)
                model, loss = ranks.factory(ranks.seed)
                ranks.prepare(model)
                sessions[index] = session_class(model, **payload)
                losses[index] = loss
                continue
            session = sessions[index]
            if session is None:
                continue  # making it failed, on rank 0 too
            if kind == "step":
                wire, key, with_gradients = payload
                loss = losses[index]
                assert loss is not None
                session.optim_step(
                    wire,
                    idempotency_key=key,
                    gradients=(lambda: torch.autograd.backward(loss())) if with_gradients else None,
                )
            elif kind == "state":
                _whole(session.state_dict())
            elif kind == "load":
                session.load_state_dict(payload)
        except IdempotencyKeyReusedError:  # rank 0 answers it with 422
            pass
        except Exception:  # rank 0 meets the same exception and answers for it
            traceback.print_exc()


def _model_function(spec: str) -> Callable[[int], Any]:
    """``module:function`` (``--model``), imported."""
    module_name, _, function_name = spec.partition(":")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise SystemExit(f"--model {spec}: {exc}") from None
    if not callable(function):
        raise SystemExit(f"--model {spec}: {function_name} is not a function")
    model_function: Callable[[int], Any] = function
    return model_function


def serve_ranks(
    argv: Sequence[str] | None,
    *,
    session_class: type[LocalSession],
    prog: str,
    serve: Callable[..., int],
) -> int:
    """One rank of the server that torchrun started: join the process group, then serve HTTP
    with ``serve`` (``serve.main``) on rank 0, or follow rank 0 on the others. ``argv`` is
    ``serve.main``'s, with ``--device cpu|cuda`` besides."""
    import argparse

    from torch.distributed.device_mesh import init_device_mesh

    global _serving, _device
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog=prog, add_help=False, allow_abbrev=False)
    parser.add_argument("--device", choices=("cpu", "cuda"))
    parser.add_argument("--model")
    parser.add_argument("--seed", type=int, default=0)
    known, rest = parser.parse_known_args(arguments)
    device = known.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if known.model is None:
        known.model = f"{__name__}:demo_model"
        rest += ["--model", known.model]
    else:
        rest += ["--model", known.model]
    rest += ["--seed", str(known.seed)]
    if device == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        _device = torch.device("cuda", torch.cuda.current_device())
    dist.init_process_group("nccl" if device == "cuda" else "gloo")
    _serving = True
    try:
        mesh = init_device_mesh(device, (dist.get_world_size(),))
        ranks = _Ranks(mesh, _model_function(known.model), known.seed)
        if dist.get_rank() == 0:
            leader = type(session_class.__name__, (_Leader, session_class), {"ranks": ranks})
            try:
                return serve(rest, session_class=leader, prog=prog)
            finally:
                ranks.send("stop", -1)
        _follow(ranks, session_class)
        return 0
    finally:
        _serving = False
        dist.destroy_process_group()
