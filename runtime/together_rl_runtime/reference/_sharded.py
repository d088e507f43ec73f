"""Sharded parameters in the local reference: a session over FSDP2 (DTensor) parameters steps each
process's shards exactly as a session over the whole parameters would step those elements.

How each part of a step reaches that:

* **The norm.** Each process takes the float32 2-norm of each local gradient shard (as
  :func:`_optim.grad_norms` does for whole gradients), sums their squares in float64 (a
  replicated tensor's counted once across its replicas), and one all-reduce over the mesh adds
  the processes' sums: every process holds the same total, so every process makes the same
  decision on a non-finite norm and computes the same clip coefficient. It differs from the
  unsharded norm only in the order of the additions (a few ULPs).
* **The update.** Each optimizer's algorithm runs on the local shards (and on optimizer state of
  the local shards' shape). An element-wise one needs no communication, and so computes for
  each element what the unsharded step computes for it, given the same clip coefficient. One
  that orthogonalises whole matrices reaches them through :meth:`Sharding.exchange`, each
  matrix orthogonalised whole by the same operations as the unsharded step: on a
  one-dimensional mesh with every matrix sharded along one of its dimensions (FSDP2), each
  matrix has an owner process that gathers its shards, orthogonalises it and scatters the parts
  back (:class:`_OwnedMatrices`: the work shared out, each element sent there and back); on
  other meshes and placements each matrix is all-gathered through DTensor and orthogonalised on
  every process (:class:`_WholeMatrices`).
* **A failed update** (an exception on any process) fails it on every process: after the update
  the processes agree with one all-reduce, so that either all keep the step or all roll back.

The optimizer state is kept as local shards and handed out by ``state_dict()`` as DTensors
placed like their parameters.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import torch
import torch.distributed as dist
from torch import Tensor

from .._exceptions import ConfigurationError
from ..settings import OPTIMIZERS
from . import _optim

if TYPE_CHECKING:
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor

__all__ = ["Sharding", "is_sharded", "sharding_of", "together"]


def _dtensor_type() -> type[DTensor] | None:
    """DTensor's class where it has been imported (no DTensor exists before that), else None:
    a session over plain tensors never imports torch.distributed.tensor."""
    module = sys.modules.get("torch.distributed.tensor")
    return None if module is None else getattr(module, "DTensor", None)


def is_sharded(tensor: Tensor) -> bool:
    """Whether ``tensor`` is a DTensor."""
    dtensor = _dtensor_type()
    return dtensor is not None and isinstance(tensor, dtensor)


def sharding_of(params: Mapping[str, Tensor]) -> Sharding | None:
    """The sharding of a session's parameters: ``None`` where none is a DTensor; a
    :class:`Sharding` where all are, on one device mesh, each sharded or replicated on each of
    its dimensions. Anything else is refused."""
    sharded = [name for name, p in params.items() if is_sharded(p)]
    if not sharded:
        return None
    if len(sharded) != len(params):
        whole = next(name for name, p in params.items() if not is_sharded(p))
        raise ConfigurationError(
            f"parameter {whole!r} is a plain tensor among DTensor ones: shard every parameter "
            "of the session (fully_shard the root module too), or none"
        )
    return Sharding(params)


class Sharding:
    """The device mesh and placements of a session's DTensor parameters, and the collectives of
    a sharded step."""

    def __init__(self, params: Mapping[str, Tensor]) -> None:
        from torch.distributed.tensor import Replicate, Shard

        dtensors: dict[str, DTensor] = dict(params)  # type: ignore[arg-type]
        meshes = {p.device_mesh for p in dtensors.values()}
        if len(meshes) != 1:
            raise ConfigurationError(
                "the session's DTensor parameters are on several device meshes; put them on one"
            )
        (self.mesh,) = meshes
        self._params = dtensors
        self._replicas: dict[str, int] = {}
        """For each parameter, on how many processes each of its elements lives."""
        for name, p in dtensors.items():
            replicas = 1
            for dim, placement in enumerate(p.placements):
                if isinstance(placement, Replicate):
                    replicas *= self.mesh.size(dim)
                elif not isinstance(placement, Shard):  # Partial: not a parameter's placement
                    raise ConfigurationError(
                        f"parameter {name!r} is placed {placement} on the device mesh; a "
                        "session takes parameters that are sharded or replicated"
                    )
            self._replicas[name] = replicas

    @property
    def groups(self) -> list[dist.ProcessGroup]:
        """The process group of each dimension of the mesh."""
        return [self.mesh.get_group(dim) for dim in range(self.mesh.ndim)]

    def _all_reduce(self, tensor: Tensor, op: Any = None) -> Tensor:
        """``tensor`` reduced over every process of the mesh (in place; the same on all), by
        ``op`` (default: the sum)."""
        for group in self.groups:
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM if op is None else op, group=group)
        return tensor

    @staticmethod
    def local(tensor: Tensor) -> Tensor:
        """This process's shard of a DTensor (its storage: updating it updates the DTensor)."""
        if not is_sharded(tensor):
            return tensor
        if torch.is_grad_enabled():  # the shard itself, not a view that autograd follows
            with torch.no_grad():
                return Sharding.local(tensor)
        local: Tensor = tensor.to_local()  # type: ignore[attr-defined]
        return local

    # -- one step -----------------------------------------------------------------------------------

    @torch.no_grad()
    def total_grad_norm(self, names: Sequence[str], grads: Sequence[Tensor]) -> Tensor:
        """The 2-norm of all of the parameters' gradients (DTensors), as a float32 0-dim tensor
        on the gradients' device that is the same on every process: each process's float32
        norms of its shards, their squares summed in float64 (an element that lives on several
        processes counted once), added up over the mesh."""
        device = self.local(grads[0]).device if grads else self._device()
        by_replicas: dict[int, list[Tensor]] = {}
        for name, grad in zip(names, grads):
            by_replicas.setdefault(self._replicas[name], []).append(self.local(grad))
        total = torch.zeros((), dtype=torch.float64, device=device)
        for replicas, local in by_replicas.items():
            squares = torch.stack(_optim.grad_norms(local)).to(torch.float64).square().sum()
            total += squares / replicas
        return self._all_reduce(total).sqrt().to(torch.float32)

    def _device(self) -> torch.device:
        return self.local(next(iter(self._params.values()))).device

    def exchange(self, params: Sequence[Tensor]) -> _optim.MatrixExchange:
        """How an algorithm reaches the whole matrices of ``params`` (in the order of the step) to
        orthogonalise them: each by one owner where they are sharded along a dimension of a
        one-dimensional mesh (FSDP2), else all-gathered to every process."""
        if _OwnedMatrices.takes(params, self.mesh):
            return _OwnedMatrices(list(params), self.mesh.get_group())
        return _WholeMatrices(list(params))

    def finite_everywhere(self, finite: Tensor) -> Tensor:
        """Each parameter's finite flag of this process's shards (:func:`_optim.finite_flags`),
        as it holds on every process: finite only where all its shards are (one all-reduce)."""
        flags = finite.to(device=self._device(), dtype=torch.int32)
        return self._all_reduce(flags, dist.ReduceOp.MIN).bool()

    def agree(self, succeeded: bool) -> bool:
        """Whether the update succeeded on every process (one all-reduce)."""
        flag = torch.tensor(0 if succeeded else 1, dtype=torch.int32, device=self._device())
        return int(self._all_reduce(flag, dist.ReduceOp.MAX).item()) == 0

    # -- saving -------------------------------------------------------------------------------------

    def saved(self, state: dict[str, Any]) -> dict[str, Any]:
        """``state_dict()``'s state with the optimizer state's local shards as DTensors, placed
        like their parameters (the parameters are DTensors already)."""
        for optimizer in OPTIMIZERS:
            for name, tensors in state[optimizer].items():
                for key, value in tensors.items():
                    if isinstance(value, Tensor):
                        tensors[key] = self._as_dtensor(self._params[name], value)
        return state

    def loaded(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """A state to load, with each parameter as a DTensor placed like this session's (from a
        DTensor placed so, or a whole tensor, which every process holds) and the optimizer
        state as local shards. Names and shapes that do not match are left for
        ``load_state_dict`` to refuse."""
        result = dict(state)
        result["parameters"] = {
            name: self._placed(name, value) for name, value in state["parameters"].items()
        }
        for optimizer in OPTIMIZERS:
            result[optimizer] = {
                name: {
                    key: (
                        self.local(self._placed(name, value))
                        if isinstance(value, Tensor)
                        else value
                    )
                    for key, value in tensors.items()
                }
                for name, tensors in state[optimizer].items()
            }
        return result

    def _placed(self, name: str, value: Tensor) -> Tensor:
        """``value`` as a DTensor placed like parameter ``name``, where it has its shape."""
        from torch.distributed.tensor import distribute_tensor

        param = self._params.get(name)
        if param is None or tuple(value.shape) != tuple(param.shape):
            return value
        if is_sharded(value):
            placed: DTensor = value  # type: ignore[assignment]
            if placed.device_mesh != param.device_mesh:
                raise ConfigurationError(
                    f"{name!r} is a DTensor on another device mesh; load a checkpoint "
                    "(together_rl_runtime.reference.distributed.load_checkpoint) to reshard"
                )
            return placed.redistribute(placements=param.placements)
        local = self.local(param)
        whole = value.detach().to(device=local.device, dtype=local.dtype)
        return distribute_tensor(whole, param.device_mesh, param.placements, src_data_rank=None)

    @staticmethod
    def _as_dtensor(param: DTensor, local: Tensor) -> DTensor:
        from torch.distributed.tensor import DTensor

        return DTensor.from_local(
            local,
            param.device_mesh,
            param.placements,
            run_check=False,
            shape=param.shape,
            stride=param.stride(),
        )


class _WholeMatrices:
    """Whole matrices through DTensor's own collectives, for any placements: each matrix
    is all-gathered in bfloat16, orthogonalised on every process, and each process keeps its
    part of the result."""

    def __init__(self, params: list[Tensor]) -> None:
        self.params: list[DTensor] = params  # type: ignore[assignment]

    def shape(self, index: int) -> tuple[int, int]:
        rows, cols = self.params[index].shape
        return rows, cols

    def orthogonalise(self, parts: list[Tensor], whole: Callable[[Tensor], Tensor]) -> None:
        from torch.distributed.tensor import distribute_tensor

        for param, part in zip(self.params, parts):
            rounded = Sharding._as_dtensor(param, part.to(torch.bfloat16))
            result = whole(rounded.full_tensor())
            placed = distribute_tensor(
                result, param.device_mesh, param.placements, src_data_rank=None
            )
            part.copy_(placed.to_local())


class _OwnedMatrices:
    """Whole matrices on a one-dimensional mesh where every matrix is sharded along one
    of its dimensions (FSDP2's placements): each matrix has an owner, the process that
    orthogonalises it; the shards are gathered to it in bfloat16, and the parts of the result
    scattered back. Every matrix is orthogonalised once, the owners sharing the work (matrices
    given out largest first, each to the process with the least so far), and each element
    crosses the network twice (there and back), whatever the number of processes."""

    def __init__(self, params: list[Tensor], group: dist.ProcessGroup) -> None:
        self.params: list[DTensor] = params  # type: ignore[assignment]
        self.group = group
        self.rank = dist.get_rank(group)
        self.world = dist.get_world_size(group)
        self.global_ranks = [dist.get_global_rank(group, r) for r in range(self.world)]
        self.dims = [p.placements[0].dim for p in self.params]  # type: ignore[attr-defined]
        load = [0.0] * self.world
        self.owners = [0] * len(params)
        by_cost = sorted(range(len(params)), key=lambda i: -_newton_schulz_cost(self.shape(i)))
        for i in by_cost:
            owner = min(range(self.world), key=lambda r: (load[r], r))
            self.owners[i] = owner
            load[owner] += _newton_schulz_cost(self.shape(i))

    @staticmethod
    def takes(params: Sequence[Tensor], mesh: DeviceMesh) -> bool:
        """Whether every matrix is sharded along dimension 0 or 1 of a one-dimensional mesh."""
        from torch.distributed.tensor import Shard

        return mesh.ndim == 1 and all(
            len(p.placements) == 1  # type: ignore[attr-defined]
            and type(p.placements[0]) is Shard  # type: ignore[attr-defined]
            and p.placements[0].dim in (0, 1)  # type: ignore[attr-defined]
            for p in params
        )

    def shape(self, index: int) -> tuple[int, int]:
        rows, cols = self.params[index].shape
        return rows, cols

    def _chunk(self, index: int) -> tuple[int, list[int]]:
        """The padded size of every shard along the sharded dimension, and each one's size
        (``torch.chunk``'s split, as DTensor's ``Shard`` makes it)."""
        length = self.shape(index)[self.dims[index]]
        chunk = -(-length // self.world)
        return chunk, [max(0, min(chunk, length - r * chunk)) for r in range(self.world)]

    def _padded_shape(self, index: int) -> list[int]:
        shape = list(self.shape(index))
        shape[self.dims[index]] = self._chunk(index)[0]
        return shape

    def _padded(self, index: int, part: Tensor) -> Tensor:
        """``part`` in bfloat16, padded with zeros to the largest shard's size."""
        dim = self.dims[index]
        padded = torch.zeros(self._padded_shape(index), dtype=torch.bfloat16, device=part.device)
        padded.narrow(dim, 0, part.shape[dim]).copy_(part)
        return padded

    def orthogonalise(self, parts: list[Tensor], whole: Callable[[Tensor], Tensor]) -> None:
        owned: dict[int, list[Tensor]] = {}
        for i, part in enumerate(parts):  # every shard to its matrix's owner
            _, sizes = self._chunk(i)
            if part.shape[self.dims[i]] != sizes[self.rank]:
                raise RuntimeError(
                    f"a shard of {tuple(part.shape)} where a {self.shape(i)} matrix split "
                    f"{self.world} ways has {sizes[self.rank]} along dimension {self.dims[i]}"
                )
            padded = self._padded(i, part)
            mine = self.owners[i] == self.rank
            pieces = [torch.empty_like(padded) for _ in range(self.world)] if mine else None
            dist.gather(padded, pieces, dst=self.global_ranks[self.owners[i]], group=self.group)
            if pieces is not None:
                owned[i] = pieces
        results: dict[int, list[Tensor]] = {}
        for i, pieces in owned.items():  # the owners orthogonalise, each its own
            dim = self.dims[i]
            _, sizes = self._chunk(i)
            matrix = torch.cat([p.narrow(dim, 0, size) for p, size in zip(pieces, sizes)], dim)
            del pieces
            result = whole(matrix)
            results[i] = [self._padded(i, r) for r in _split(result, dim, sizes)]
        for i, part in enumerate(parts):  # the parts of each result back
            dim = self.dims[i]
            received = torch.empty(self._padded_shape(i), dtype=torch.bfloat16, device=part.device)
            owner = self.global_ranks[self.owners[i]]
            dist.scatter(received, results.pop(i, None), src=owner, group=self.group)
            part.copy_(received.narrow(dim, 0, part.shape[dim]))


def _split(matrix: Tensor, dim: int, sizes: list[int]) -> list[Tensor]:
    out, start = [], 0
    for size in sizes:
        out.append(matrix.narrow(dim, start, size))
        start += size
    return out


def _newton_schulz_cost(shape: tuple[int, int]) -> float:
    """The multiply-adds of one Newton-Schulz iteration on an ``A x B`` matrix (``m x k`` with
    ``m <= k``: two ``m x m x k`` products and one ``m x m x m``)."""
    m, k = sorted(shape)
    return 2.0 * m * m * k + m**3


@contextmanager
def together(sharding: Sharding | None) -> Iterator[None]:
    """Run the block (an update) on every process or fail it on every one: with a sharding, an
    exception on any process raises on all, after one all-reduce (and the block runs without
    autograd, as the update does)."""
    if sharding is None:
        yield
        return
    try:
        with torch.no_grad():
            yield
    except BaseException:
        sharding.agree(False)
        raise
    if not sharding.agree(True):
        raise RuntimeError("the update failed on another process of the device mesh")
