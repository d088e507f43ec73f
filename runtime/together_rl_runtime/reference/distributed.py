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
(gloo on CPU, NCCL on GPUs: ``--device cpu|cuda``, by default CUDA where there is a GPU) and
rank 0 serves HTTP with the server as it is, over sessions of a class that sends the other ranks
whatever changes tensors, before running it: making a session, running a step (from a request,
or from the journal after a restart), taking a step back, reading or loading the tensors. Every
rank runs it on its shards, in the same order; what is answered and recorded (operations,
idempotency keys, the journal) is rank 0's alone. Each session's model comes from ``--model`` on
every rank; rank 0's initial values are sent to the others, and a model that is not sharded yet
is sharded with ``fully_shard`` over all ranks (shard it in your model function for FSDP units
of your own). ``--state-dir`` keeps rank 0's journal and snapshots of the whole tensors
(gathered to rank 0): what a single-process server keeps, so that a server restarts with any
number of processes.
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
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

import torch
import torch.distributed as dist
from torch import Tensor, nn

from .._exceptions import ConfigurationError
from .._model import Model
from ..optimizers import DEFAULT, REGISTRY
from ..settings import OPTIMIZERS
from ._algorithm import Algorithm, algorithm_of
from ._parameters import Query
from ._session import LocalSession, StepRecord
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
    tensors: dict[str, Any] = {"parameters": state["parameters"]}
    for optimizer in OPTIMIZERS:
        tensors[optimizer] = {
            name: {key: value for key, value in saved.items() if isinstance(value, Tensor)}
            for name, saved in state[optimizer].items()
        }
    if _rank() == 0:  # the operations of rank 0, which a server answers with
        record = {
            "format": CHECKPOINT_FORMAT,
            "version": 1,
            "optimizer": state["optimizer"],
            "step": state["step"],
            "operations": state["operations"],
            "idempotency_keys": state["idempotency_keys"],
        }
        for optimizer, algorithm in _algorithms():
            for key, kept in algorithm.counters.items():
                record[kept] = {name: saved[key] for name, saved in state[optimizer].items()}
        tensors[_RECORD] = json.dumps(record)
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
    template: dict[str, Any] = {_RECORD: "", "parameters": params}
    template.update({optimizer: {} for optimizer in OPTIMIZERS})
    for name, param in params.items():
        for optimizer, algorithm in _algorithms():
            for key in algorithm.tensors:
                if f"{optimizer}.{name}.{key}" in keys:
                    template[optimizer].setdefault(name, {})[key] = torch.zeros_like(param)
    with _single_process_is_meant():
        load(template, checkpoint_id=folder, no_dist=not _distributed())
    record = json.loads(template[_RECORD])
    if record.get("format") != CHECKPOINT_FORMAT:
        raise ConfigurationError(f"the checkpoint in {folder} is not a session's")
    state = {
        "optimizer": record["optimizer"],
        "step": record["step"],
        "operations": record["operations"],
        "idempotency_keys": record["idempotency_keys"],
        "parameters": params,
    }
    for optimizer, algorithm in _algorithms():
        state[optimizer] = {
            name: {
                **tensors,
                **{key: record[kept][name] for key, kept in algorithm.counters.items()},
            }
            for name, tensors in template[optimizer].items()
        }
    session.load_state_dict(state)


def _algorithms() -> list[tuple[str, Algorithm]]:
    """Every optimizer's name and algorithm, whose layout of its state a checkpoint follows."""
    return [(name, algorithm_of(optimizer)) for name, optimizer in REGISTRY.items()]


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
    what the other ranks must run (a gloo group of its own, which waits as long as a server may
    be idle), and the lock under which rank 0 sends a message and runs its own part of it, so
    that every rank runs them in one order."""

    def __init__(self, mesh: DeviceMesh, factory: Callable[[int], Any], seed: int) -> None:
        self.mesh = mesh
        self.factory, self.seed = factory, seed
        self.channel = dist.new_group(backend="gloo", timeout=timedelta(days=365))
        self.lock = threading.RLock()
        self.sessions = 0
        self.dropped: list[int] = []
        """Rank 0's sessions that are gone (collected), for the others to drop with the next
        message."""

    def send(self, kind: str, index: int, payload: Any = None) -> None:
        dropped, self.dropped[:] = list(self.dropped), []
        buffer = io.BytesIO()
        torch.save((kind, index, payload, dropped), buffer)
        data = torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8)
        dist.broadcast(torch.tensor([data.numel()]), src=0, group=self.channel)
        dist.broadcast(data, src=0, group=self.channel)

    def receive(self) -> tuple[str, int, Any, list[int]]:
        size = torch.zeros(1, dtype=torch.int64)
        dist.broadcast(size, src=0, group=self.channel)
        data = torch.empty(int(size.item()), dtype=torch.uint8)
        dist.broadcast(data, src=0, group=self.channel)
        kind, index, payload, dropped = torch.load(io.BytesIO(bytes(data.untyped_storage())))
        return kind, index, payload, dropped

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
    """Rank 0's sessions. What a step computes runs on every rank; what it answers and records
    (operations, idempotency keys, the server's journal) is rank 0's alone. So rank 0 sends the
    other ranks what changes tensors, before it runs it: making the session, running a step
    (``_run``, from a request or from a journal's record), taking a step back (its record could
    not be written), and reading or loading the tensors (a snapshot, whole on rank 0). Each is
    sent in the session's turn, where rank 0 runs it, and under the ranks' lock."""

    ranks: ClassVar[_Ranks]

    def __init__(self, params: Any, optimizer: Any = DEFAULT.name, **options: Any) -> None:
        with self.ranks.lock:
            self._index = self.ranks.sessions
            self.ranks.sessions += 1
            self.ranks.send("make", self._index, {"optimizer": optimizer, **options})
            weakref.finalize(self, self.ranks.dropped.append, self._index)
            if isinstance(params, nn.Module):
                self.ranks.prepare(params)
            super().__init__(params, optimizer, **options)

    def _run(
        self,
        body: Model | Mapping[str, Any],
        gradients: Callable[[], object] | None,
        **options: Any,
    ) -> Any:
        with self.ranks.lock:
            wire = body.to_dict() if isinstance(body, Model) else dict(body)
            self.ranks.send("run", self._index, (wire, gradients is not None))
            return super()._run(body, gradients, **options)

    def optim_step(
        self,
        body: Model | Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        gradients: Callable[[], object] | None = None,
        commit: Callable[[StepRecord], None] | None = None,
        query: Query | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        if commit is not None:
            recorded = commit

            def commit(record: StepRecord) -> None:
                try:
                    recorded(record)
                except BaseException:  # rank 0 takes the step back: so do the others
                    with self.ranks.lock:
                        self.ranks.send("undo", self._index)
                    raise

        return super().optim_step(
            body,
            idempotency_key=idempotency_key,
            gradients=gradients,
            commit=commit,
            query=query,
            headers=headers,
        )

    def _tensor_state(self) -> dict[str, Any]:
        with self.ranks.lock:
            self.ranks.send("tensors", self._index)
            whole: dict[str, Any] = _whole(super()._tensor_state())
            return whole

    def _load_tensor_state(self, state: Mapping[str, Any]) -> None:
        with self.ranks.lock:
            self.ranks.send("load", self._index, dict(state))
            super()._load_tensor_state(state)


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
    sessions: dict[int, tuple[LocalSession, Callable[[], Tensor]]] = {}
    undo: dict[int, list[Callable[[], None]]] = {}
    while True:
        kind, index, payload, dropped = ranks.receive()
        for gone in dropped:
            sessions.pop(gone, None)
            undo.pop(gone, None)
        try:
            if kind == "stop":
                return
            if kind == "make":
                model, loss = ranks.factory(ranks.seed)
                ranks.prepare(model)
                sessions[index] = (session_class(model, **payload), loss)
                continue
            if index not in sessions:
                continue  # making it failed, on rank 0 too
            session, loss = sessions[index]
            if kind == "run":
                wire, with_gradients = payload
                undo[index] = []
                session._run(
                    wire,
                    (lambda: torch.autograd.backward(loss())) if with_gradients else None,
                    undo=undo[index],
                )
            elif kind == "undo":
                for step_back in undo.pop(index, []):
                    step_back()
            elif kind == "tensors":
                _whole(session._tensor_state())
            elif kind == "load":
                session._load_tensor_state(payload)
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
