"""Where the server keeps its training sessions: in memory, bounded in number, and, with a state
folder, on disk as a journal of steps and snapshots of tensors.

One server at a time uses a state folder (``server.lock``, see ``_statedir``). Each session
has a folder of its own in it, named by a hash of its tenant and id (of its id alone for the
tenant of a server without keys, as before tenants existed)::

    session.json          {"format": 2, "session_id": ..., "tenant": ..., "revision": ...}
                          (without "tenant": the tenant of a server without keys)
    journal               one line per operation, appended and flushed to the disk (fdatasync)
                          before the operation is answered: "<crc32 hex> <json>\\n", the JSON a
                          StepRecord with its sequence number ("seq"): the idempotency key, the
                          request of a completed step as the step read it (of any other, only its
                          digest), the operation and the step number (null for a failed operation,
                          which changed nothing)
    snapshot-<seq>.pt     the session's tensors (parameters, optimizer state, step counter) after
                          record <seq>, written to a temporary file, flushed and renamed; only the
                          newest is kept (a temporary file left behind is removed at start)

A step costs one appended line, whatever the session's age: the snapshot holds no operations, and
is taken every ``snapshot_every`` completed steps (in a background thread, from a copy made
between two steps), when a session is evicted, and at shutdown. Loading a session reads its newest
snapshot that loads, takes back the operations and keys of every record, and applies again the
steps recorded after the snapshot (the server computes their gradients again, from the same
parameters). A record cut short at the end of the journal (the process was killed while writing
it, so it was never answered) is dropped; a last record that is whole but for its end of line is
kept, and the end of line written; damage anywhere else refuses to load the session. What the
server answers about a session that cannot be loaded names the session and the record, never a
path of the server's disk (its log has those).

A folder saved by runtime 1.0.0 (``<hash>.pt``, the whole state after every step) is taken over
on first use: its operations become records of the journal and its tensors the first snapshot.

How the snapshots' files are written and found is in ``_snapshots``; the state folder's lock,
format and durability in ``_statedir``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import queue
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from ._session import LocalSession, ReplayError, StepRecord
from ._snapshots import save_snapshot, snapshots as _snapshots, write_snapshot
from ._statedir import FORMAT, StateDirLock, remove_leftovers, sync_folder
from ._tenants import NO_KEY

__all__ = [
    "NotDurableError",
    "SessionLimitError",
    "SessionStore",
    "StateError",
    "session_folder",
]

JOURNAL = "journal"
META = "session.json"

logger = logging.getLogger("together_rl_runtime.reference")

SessionFactory = Callable[[], tuple[LocalSession, Callable[[], object]]]
"""Makes a new session (with ``rollback=True``) and the function that computes its gradients."""

Name = tuple[str, str]
"""A session's tenant and id: what names it in the store."""


class NotDurableError(Exception):
    """The journal could not be written: the step was taken back and is not applied."""


class SessionLimitError(Exception):
    """The server holds as many sessions as it may and can move none of them to disk."""


class StateError(Exception):
    """A saved session cannot be loaded."""


def session_folder(state_dir: Path, session_id: str, tenant: str = NO_KEY) -> Path:
    """The folder of the journal and snapshots of ``tenant``'s session ``session_id``."""
    return state_dir / _digest(session_id, tenant)


def _digest(session_id: str, tenant: str) -> str:
    name = session_id if tenant == NO_KEY else f"{tenant}/{session_id}"
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _os_problem(exc: OSError) -> str:
    """An OSError in words, without the path it may name."""
    if exc.filename is None or exc.strerror is None:
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: [Errno {exc.errno}] {exc.strerror}"


def _loading_problem(exc: Exception) -> str:
    """Why a saved session did not load, in words that name no path."""
    if isinstance(exc, (StateError, ReplayError)):
        return str(exc)
    if isinstance(exc, OSError):
        return _os_problem(exc)
    return f"{type(exc).__name__} (the server's log has the details)"


def _sync(fd: int) -> None:
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


class Journal:
    """One session's journal file, opened for appending."""

    def __init__(self, folder: Path, seq: int) -> None:
        self.folder = folder
        self.seq = seq
        """The sequence number of the last record written."""
        self.broken: str | None = None
        self._file = open(folder / JOURNAL, "ab", buffering=0)
        self._size = os.fstat(self._file.fileno()).st_size

    @staticmethod
    def create(folder: Path, session_id: str, tenant: str, revision: str) -> None:
        """Lay out a new session's folder, durably."""
        folder.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT, "session_id": session_id, "tenant": tenant, "revision": revision}
        temporary = folder / f".{META}.tmp"
        with open(temporary, "w") as file:
            json.dump(meta, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, folder / META)
        (folder / JOURNAL).touch()
        sync_folder(folder)
        sync_folder(folder.parent)

    @staticmethod
    def read(folder: Path) -> list[dict[str, Any]]:
        """Every record of the journal, in order, read a line at a time. The last line may lack
        its end of line: where its checksum holds, the record is whole (it may have been
        answered) and is kept, the end of line written after it; else it was cut short while
        being written (so never answered) and is removed. A damaged record anywhere else is a
        StateError (naming the record, not the file)."""
        path = folder / JOURNAL
        records: list[dict[str, Any]] = []
        with open(path, "r+b") as file:
            offset, last = 0, b""
            for line in file:
                if not line.endswith(b"\n"):
                    last = line
                    break
                records.append(_numbered(_parse(line[:-1]), len(records) + 1))
                offset += len(line)
            if last:
                record = _parse(last)
                if record is not None and record.get("seq") == len(records) + 1:
                    logger.warning(
                        "%s: the last record has no end of line; it is whole, and kept", path
                    )
                    records.append(record)
                    file.seek(0, os.SEEK_END)
                    file.write(b"\n")
                else:
                    logger.warning(
                        "%s: removing a record cut short at its end (%d bytes, never answered)",
                        path,
                        len(last),
                    )
                    file.truncate(offset)
                file.flush()
                os.fsync(file.fileno())
        return records

    def append(self, record: StepRecord) -> None:
        """Write ``record`` as the next line and flush it to the disk; if that fails, the file is
        cut back to what it was and NotDurableError raised."""
        if self.broken is not None:
            raise NotDurableError(self.broken)
        data = {"seq": self.seq + 1, **asdict(record)}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        line = f"{zlib.crc32(text.encode()):08x} {text}\n".encode()
        size = self._size
        try:
            written = self._file.write(line)
            if written != len(line):
                raise OSError(f"wrote {written} of {len(line)} bytes")
            _sync(self._file.fileno())
        except OSError as exc:
            problem = f"the journal could not be written ({_os_problem(exc)})"
            try:
                os.ftruncate(self._file.fileno(), size)
                _sync(self._file.fileno())
            except OSError as again:
                self.broken = (
                    f"{problem}, nor cut back ({_os_problem(again)}); the session takes no more "
                    "steps until the server is restarted"
                )
                raise NotDurableError(self.broken) from exc
            raise NotDurableError(problem) from exc
        self.seq += 1
        self._size += len(line)

    def close(self) -> None:
        self._file.close()


def _numbered(record: dict[str, Any] | None, number: int) -> dict[str, Any]:
    """``record``, where it is whole and the ``number``-th; else StateError."""
    if record is None:
        raise StateError(f"journal record {number} is damaged")
    if record.get("seq") != number:
        raise StateError(f"journal record {number} has the number {record.get('seq')}")
    return record


def _parse(line: bytes) -> dict[str, Any] | None:
    checksum, _, text = line.partition(b" ")
    try:
        if int(checksum, 16) != zlib.crc32(text):
            return None
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class _Entry:
    """A session in memory, and who uses it."""

    def __init__(self, name: Name) -> None:
        self.name = name
        self.session: LocalSession | None = None
        self.gradients: Callable[[], object] | None = None
        self.journal: Journal | None = None
        self.snapshot_seq = 0
        """The record the newest snapshot (written or on its way) follows."""
        self.steps_since_snapshot = 0
        self.users = 1
        self.ready = threading.Event()
        self.error: Exception | None = None
        self.evicting = False


def _read_back(
    entry: _Entry, folder: Path, legacy: Path, factory: SessionFactory, revision: str
) -> None:
    """Load ``entry``'s session from ``folder`` (from ``legacy``, a session saved by runtime
    1.0.0, where the folder has none yet): a new session from ``factory`` takes the newest
    snapshot that loads, then the records of the journal, those after the snapshot applied
    again."""
    tenant, session_id = entry.name
    session, gradients = factory()
    if not (folder / META).is_file() and legacy.is_file():
        _take_over(legacy, folder, session_id, session, revision)
    meta = json.loads((folder / META).read_text())
    if (
        meta.get("format") != FORMAT
        or meta.get("session_id") != session_id
        or meta.get("tenant", NO_KEY) != tenant
    ):
        raise StateError("its folder holds another session, or one of another format")
    records = Journal.read(folder)
    snapshot_seq = 0
    for seq, path in _snapshots(folder):
        try:
            saved = torch.load(path, weights_only=True)
            with session._turn():
                session._load_tensor_state(saved["state"])
        except Exception as exc:  # a damaged snapshot: an older one, or the journal, has it
            logger.warning("%s does not load (%s); trying an older one", path, exc)
            continue
        snapshot_seq = seq
        break
    if snapshot_seq > len(records):
        raise StateError(
            f"its snapshot follows journal record {snapshot_seq}, and the journal ends with "
            f"record {len(records)}"
        )
    for record in records:
        session._restore_record(record, apply=record["seq"] > snapshot_seq, gradients=gradients)
    entry.session, entry.gradients = session, gradients
    entry.journal = Journal(folder, len(records))
    entry.snapshot_seq = snapshot_seq
    entry.steps_since_snapshot = sum(
        1 for record in records if record["seq"] > snapshot_seq and record["step"] is not None
    )


def _take_over(
    legacy: Path, folder: Path, session_id: str, session: LocalSession, revision: str
) -> None:
    """Turn a session saved by runtime 1.0.0 (``legacy``: its whole state) into a journal and a
    snapshot in ``folder``, loading its tensors into ``session`` (a new one) on the way."""
    saved = torch.load(legacy, weights_only=True)["state"]
    Journal.create(folder, session_id, NO_KEY, revision)
    journal = Journal(folder, 0)
    by_operation = {entry[1]: key for key, entry in saved["idempotency_keys"].items()}
    try:
        for operation_id, operation in saved["operations"].items():
            output = operation.get("output")
            step = output.get("step") if isinstance(output, dict) else None
            journal.append(
                StepRecord(
                    idempotency_key=by_operation.get(operation_id),
                    request=None,
                    operation=operation,
                    step=None if step is None else int(step),
                )
            )
    finally:
        journal.close()
    with session._turn():
        session._load_tensor_state(saved)
        state = session._tensor_state()
    write_snapshot(folder, journal.seq, state)
    legacy.unlink()


class SessionStore:
    """The sessions of a server: made by ``factory`` on a session id's first step, at most
    ``max_sessions`` of them in memory (``None``: no bound). A session is named by its tenant
    and its id (``tenant`` defaults to the tenant of a server without keys): the same id in two
    tenants names two sessions, and neither tenant finds the other's.

    With a ``state_dir``, the store holds the folder's lock from its making to :meth:`close`
    (StateDirInUse where another server holds it) and removes the temporary files a stopped
    server left; every operation is in the session's journal before it is answered, the
    least recently used session is moved to disk when the bound is passed (sessions in use stay,
    so the bound may be passed by as many as are used at once), and a session on disk is loaded on
    its next request. Without one, a new session beyond the bound is refused
    (SessionLimitError).

    It serves a :class:`Router` as :class:`Sessions` does: ``find`` (never makes a session),
    ``fresh`` and ``adopt`` (a new session is kept only once its first request is valid),
    ``release``, ``commit`` and ``gradients``.
    """

    def __init__(
        self,
        factory: SessionFactory,
        revision: str,
        *,
        state_dir: Path | None = None,
        max_sessions: int | None = None,
        snapshot_every: int = 100,
    ) -> None:
        self._factory = factory
        self._revision = revision
        self.state_dir = state_dir
        self.max_sessions = max_sessions
        self.snapshot_every = snapshot_every
        self._lock = threading.Lock()
        self._entries: OrderedDict[Name, _Entry] = OrderedDict()
        self._fresh: dict[int, Callable[[], object]] = {}
        self._folder_locks = [threading.Lock() for _ in range(64)]
        """Striped by session: one writer or reader of a session's snapshots at a time."""
        self._snapshots: queue.Queue[tuple[Name, Path, int, dict[str, Any]] | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        self._owner: StateDirLock | None = None
        if state_dir is not None:
            state_dir.mkdir(parents=True, exist_ok=True)
            self._owner = StateDirLock(state_dir)
            remove_leftovers(state_dir)
            self._writer = threading.Thread(
                target=self._write_snapshots, name="snapshots", daemon=True
            )
            self._writer.start()

    # -- the Router's side --------------------------------------------------------------------

    def find(self, session_id: str, tenant: str = NO_KEY) -> LocalSession | None:
        """The session of ``session_id`` (loaded from disk where it is there), marked in use
        until :meth:`release`; ``None`` where there is none. Never makes a session."""
        name = (tenant, session_id)
        with self._lock:
            entry = self._entries.get(name)
            loading = entry is None
            if entry is not None:
                entry.users += 1
                self._entries.move_to_end(name)
            elif self._on_disk(name):
                entry = self._entries[name] = _Entry(name)
            else:
                return None
        if loading:
            folder = self._folder(name)
            try:
                with self._folder_lock(name):
                    _read_back(entry, folder, self._legacy(folder), self._factory, self._revision)
            except Exception as exc:
                logger.exception("loading the saved session %r (%s) failed", session_id, folder)
                entry.error = (
                    exc if isinstance(exc, StateError) else StateError(_loading_problem(exc))
                )
                with self._lock:
                    self._entries.pop(name, None)
                entry.ready.set()
                raise entry.error from exc
            entry.ready.set()
            self._bound(keep=name)
            return entry.session
        return self._ready(name, entry)

    def _ready(self, name: Name, entry: _Entry) -> LocalSession:
        """The entry's session once it is loaded (StateError where loading failed)."""
        entry.ready.wait()
        if entry.error is not None:
            self.release(name[1], name[0])
            raise StateError(str(entry.error))
        assert entry.session is not None
        return entry.session

    def fresh(self, session_id: str, tenant: str = NO_KEY) -> LocalSession:
        """A new session for ``session_id``, kept nowhere until :meth:`adopt`."""
        session, gradients = self._factory()
        with self._lock:
            self._fresh[id(session)] = gradients
        return session

    def forget(self, session: LocalSession) -> None:
        """Drop a session :meth:`fresh` made and that is not adopted."""
        with self._lock:
            self._fresh.pop(id(session), None)

    def adopt(self, session_id: str, session: LocalSession, tenant: str = NO_KEY) -> LocalSession:
        """Keep ``session`` (from :meth:`fresh`) as the session of ``session_id``, in use until
        :meth:`release`; where another request made it first, that one. With a state folder, its
        folder is laid out now (NotDurableError where it cannot be)."""
        name = (tenant, session_id)
        with self._lock:
            gradients = self._fresh.pop(id(session), None)
            existing = self._entries.get(name)
            if existing is not None:
                existing.users += 1
                self._entries.move_to_end(name)
            elif (
                self.state_dir is None
                and self.max_sessions is not None
                and len(self._entries) >= self.max_sessions
            ):
                raise SessionLimitError(
                    f"the server holds its limit of {self.max_sessions} training sessions "
                    f"(--max-sessions) and has no --state-dir to move one to; no new session "
                    f"{session_id!r} was made"
                )
            else:
                entry = self._entries[name] = _Entry(name)
        if existing is not None:
            return self._ready(name, existing)
        entry.session, entry.gradients = session, gradients
        if self.state_dir is not None:
            folder = self._folder(name)
            try:
                Journal.create(folder, session_id, tenant, self._revision)
                entry.journal = Journal(folder, 0)
            except OSError as exc:
                with self._lock:
                    self._entries.pop(name, None)
                entry.error = exc
                entry.ready.set()
                raise NotDurableError(
                    f"the session's folder could not be made ({_os_problem(exc)})"
                ) from exc
        entry.ready.set()
        self._bound(keep=name)
        return session

    def release(self, session_id: str, tenant: str = NO_KEY) -> None:
        """The end of a use that :meth:`find` or :meth:`adopt` began."""
        with self._lock:
            entry = self._entries.get((tenant, session_id))
            if entry is not None:
                entry.users -= 1
        self._bound()

    def gradients(self, session_id: str, tenant: str = NO_KEY) -> Callable[[], object] | None:
        with self._lock:
            entry = self._entries.get((tenant, session_id))
        return None if entry is None else entry.gradients

    def commit(self, session_id: str, tenant: str = NO_KEY) -> Callable[[StepRecord], None] | None:
        """What records a step of the session before it counts (``None`` without a state
        folder)."""
        if self.state_dir is None:
            return None
        with self._lock:
            entry = self._entries[(tenant, session_id)]

        def commit(record: StepRecord) -> None:
            assert entry.journal is not None and entry.session is not None
            entry.journal.append(record)
            if record.step is not None:
                entry.steps_since_snapshot += 1
                if entry.steps_since_snapshot >= self.snapshot_every:
                    # in the step's turn: the tensors as they are after this record
                    self._snapshot_later(entry, entry.session._tensor_state())

        return commit

    def ids(self, tenant: str = NO_KEY) -> list[str]:
        """The ids of ``tenant``'s sessions in memory."""
        with self._lock:
            return sorted(sid for owner, sid in self._entries if owner == tenant)

    # -- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Snapshot every session changed since its last snapshot, wait for the snapshots to be
        written, close the journals and give up the state folder (at shutdown)."""
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            if entry.session is not None and entry.journal is not None:
                self._snapshot_now(entry)
                entry.journal.close()
        if self._writer is not None:
            self._snapshots.put(None)
            self._writer.join()
        if self._owner is not None:
            self._owner.release()

    # -- inside -------------------------------------------------------------------------------

    def _folder(self, name: Name) -> Path:
        assert self.state_dir is not None
        return session_folder(self.state_dir, name[1], name[0])

    def _folder_lock(self, name: Name) -> threading.Lock:
        return self._folder_locks[hash(name) % len(self._folder_locks)]

    def _legacy(self, folder: Path) -> Path:
        """Where runtime 1.0.0 saved the session of ``folder``."""
        assert self.state_dir is not None
        return self.state_dir / f"{folder.name}.pt"

    def _on_disk(self, name: Name) -> bool:
        if self.state_dir is None:
            return False
        folder = self._folder(name)
        return (folder / META).is_file() or self._legacy(folder).is_file()

    def _bound(self, keep: Name | None = None) -> None:
        """Move least recently used sessions to disk while more than ``max_sessions`` are in
        memory (not those in use)."""
        if self.max_sessions is None or self.state_dir is None:
            return
        while True:
            with self._lock:
                if len(self._entries) <= self.max_sessions:
                    return
                victim = next(
                    (
                        (name, entry)
                        for name, entry in self._entries.items()
                        if entry.users == 0
                        and not entry.evicting
                        and name != keep
                        and entry.session is not None
                    ),
                    None,
                )
                if victim is None:
                    return
                name, entry = victim
                entry.evicting = True
            self._snapshot_now(entry)
            with self._lock:
                entry.evicting = False
                if entry.users == 0 and self._entries.get(name) is entry:
                    del self._entries[name]
                    assert entry.journal is not None
                    entry.journal.close()

    def _snapshot_now(self, entry: _Entry) -> None:
        assert entry.session is not None and entry.journal is not None
        with entry.session._turn():
            seq = entry.journal.seq
            if seq == entry.snapshot_seq:
                return
            state = entry.session._tensor_state()
            entry.snapshot_seq, entry.steps_since_snapshot = seq, 0
        save_snapshot(entry.journal.folder, seq, state, lock=self._folder_lock(entry.name))

    def _snapshot_later(self, entry: _Entry, state: dict[str, Any]) -> None:
        assert entry.journal is not None
        entry.snapshot_seq, entry.steps_since_snapshot = entry.journal.seq, 0
        self._snapshots.put((entry.name, entry.journal.folder, entry.journal.seq, state))

    def _write_snapshots(self) -> None:
        while (job := self._snapshots.get()) is not None:
            name, folder, seq, state = job
            save_snapshot(folder, seq, state, lock=self._folder_lock(name))
