"""Screenshots through shared memory when the client and its env server share a host.

A 1280x800 RGB frame is 3 MB; through a unix socket it costs two kernel copies and many wake-ups
of ZeroMQ's I/O threads, which was most of a step's RPC overhead. Instead:

- the **client** creates a file under ``/dev/shm`` (``shm_dir()``) holding a small header with a
  random token, and names it in its ``reset`` (option ``frames``);
- the **server** opens that file (and only that file: the token must match), sizes it for
  ``SLOTS`` frames, maps it, and from then on writes each observation's frame into a free slot,
  answering with a small reference (``{"seq", "slot", "offset", "shape", "dtype", "handout"}``) in
  place of the pixels; it reserves each slot's memory before its first frame, so a full tmpfs
  sends frames inline rather than killing the server with SIGBUS;
- the server unlinks the name as soon as it has mapped the file, and the client maps it through
  the descriptor it kept (unlinking too, should the server have failed), so nothing is left in
  ``/dev/shm`` whichever process dies, however (a ``kill -9`` included): the memory lives exactly
  as long as one of the mappings. A client killed during the reset that offered its segment
  leaves a 64-byte file, which the next client on the host removes.

**The client hands out the slot itself, not a copy** (a read-only array over the mapping): the
copy out of the segment was about half of a step's overhead. A slot is the client's from the
moment the server hands a frame out in it until the client returns it, which it does once
nothing refers to the arrays it handed out over it any more (CPython's refcount). Each frame is
handed out over its own read-only ``memoryview`` of the slot, at the end of the ``base`` chain of
the array and of every view and slice taken of it, so a crop kept alone keeps the slot too. The
server writes only into returned slots, so an observation kept stays as it was however many
frames follow. Each slot has four words: ``begun`` and ``done`` (the server's: the sequence
number of the frame being written, then completed), ``handed`` (the server's: the number of its
newest hand-out, from one counter over all slots) and ``returned`` (the client's: the newest
hand-out of the slot it has finished with); a slot is free when ``returned == handed``. An
unchanged screen (the same key, or the same immutable bytes) is not written again but handed out
again, which makes its slot the client's until that hand-out is returned too, even if it had
returned the earlier one. A client that keeps ``HOLD`` slots in use (a learner keeping a long
history) gets the frames after that copied out (one ``memcpy``) into arrays it owns, and the slot
back at once, so the server always finds a free one.

A reference whose slot no longer holds its frame (two clients stepping one server) is an error
that says so rather than wrong pixels. A server that cannot open the file (another host, a
container with its own ``/dev/shm``) answers with the pixels on the socket and says why in
``info["frames_refused"]``; the client then stops asking.
"""

from __future__ import annotations

import contextlib
import logging
import math
import mmap
import os
import secrets
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import numpy as np

from cua_core import CuaError, runtime_dir

__all__ = ["HOLD", "SLOTS", "FrameError", "FrameReader", "FrameWriter", "shm_dir"]

log = logging.getLogger(__name__)

MAGIC = b"CUAFRAM2"  # 2: slots are lent to the client (a reader of version 1 is refused by the token check)
# Slots a client keeps as handed-out arrays before it copies frames out instead: an RL loader keeps
# every turn of its unfinished groups (some 40 frames an environment in bench/rl.py). Only slots
# written to take memory, and the server reserves each before its first frame (``_reserve``).
HOLD = 32
SLOTS = HOLD + 2  # so the server always finds a free slot for the next frame (and one more in flight)
_HEADER = 64  # magic (8) + token (8) + padding
_SLOT_HEADER = 64  # begun, done, handed, returned (u64 each) per slot, one cache line each
_WORDS = _SLOT_HEADER // 8
_BEGUN, _DONE, _HANDED, _RETURNED = 0, 1, 2, 3
_DATA = _HEADER + SLOTS * _SLOT_HEADER
_ALIGN = 4096


class FrameError(CuaError):
    """A shared-memory frame that cannot be read as referenced; the message says why."""


def shm_dir() -> Path:
    """Where frame segments are created: ``/dev/shm`` (memory, never disk) when usable, else the
    runtime dir (on Linux usually a tmpfs under ``$XDG_RUNTIME_DIR``)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return runtime_dir()


def _round_up(n: int, to: int) -> int:
    return (n + to - 1) // to * to


class _Buffers:
    """Frame arrays handed out and taken back once nothing refers to them. One pool per process,
    so a frame dropped by one client's episode serves the next frame of another; free arrays
    beyond ``max_idle`` are let go, so memory follows the history actually kept. Copying into
    fresh memory cost 3-5x the copy itself in page faults (measured: 0.3 ms into reused memory,
    1.4-3 ms into new)."""

    def __init__(self, max_idle: int = 32) -> None:
        self._items: dict[tuple[tuple[int, ...], str], list[np.ndarray[Any, Any]]] = {}
        self._cursor = 0
        self._takes = 0
        self.max_idle = max_idle
        self._lock = threading.Lock()

    def take(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
        with self._lock:
            items = self._items.setdefault((shape, dtype.str), [])
            self._takes += 1
            if self._takes % 256 == 0:
                self._trim(items)
            count = len(items)
            for k in range(count):
                index = (self._cursor + k) % count
                array = items[index]
                if sys.getrefcount(array) == 3:  # the list, ``array`` and getrefcount's argument
                    self._cursor = index + 1
                    return array
                del array
            array = np.empty(shape, dtype)
            items.append(array)
            return array

    def trim(self) -> None:
        """Let go of free arrays beyond ``max_idle`` (a client closing: its history may be gone)."""
        with self._lock:
            for items in self._items.values():
                self._trim(items)

    def _trim(self, items: list[np.ndarray[Any, Any]]) -> None:
        free = [i for i, array in enumerate(items) if sys.getrefcount(array) == 3]  # list, ``array``, argument
        for index in reversed(free[self.max_idle :]):
            del items[index]

    def __len__(self) -> int:
        return sum(len(v) for v in self._items.values())


_BUFFERS = _Buffers()


def _sweep(folder: Path) -> None:
    """Remove segments of clients that died before any server took them (a window of one reset)."""
    for path in folder.glob("cua-frames-*-*"):
        pid = path.name.split("-")[2]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                if os.getuid() in (0, path.stat().st_uid):  # root's are given to their server's user
                    path.unlink()
        except PermissionError:  # alive, someone else's
            continue


class _Lent:
    """The buffers handed out over one slot (each at the end of its frame's arrays' ``base``
    chain), and the server's newest hand-out among them."""

    __slots__ = ("buffers", "handout")

    def __init__(self, handout: int) -> None:
        self.handout = handout
        self.buffers: list[memoryview] = []


class FrameReader:
    """The client's half: creates the segment, maps it once the server has sized it, hands frames out."""

    def __init__(self, directory: Path | None = None, *, owner: int | None = None) -> None:
        """``owner``: the uid to give the segment to (a root client's server running as a user of its
        own, an isolated local environment, could not open root's segment for writing)."""
        self.token = secrets.token_hex(8)
        folder = directory if directory is not None else shm_dir()
        _sweep(folder)
        self.path: Path | None = folder / f"cua-frames-{os.getpid()}-{self.token}"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            if owner is not None and owner != os.geteuid():
                os.fchown(fd, owner, -1)
            os.write(fd, MAGIC + bytes.fromhex(self.token).ljust(_HEADER - len(MAGIC), b"\0"))
        except BaseException:
            os.close(fd)
            self.unlink()
            raise
        self._fd: int | None = fd
        self._map: mmap.mmap | None = None
        self._words: np.ndarray[Any, Any] | None = None
        self._lent: dict[int, _Lent] = {}
        self._lock = threading.Lock()  # reads on worker threads and close() never overlap
        self.frames = 0  # frames handed out
        self.copies = 0  # of which copied out (more than HOLD slots in use)

    def offer(self, *, known: bool) -> dict[str, Any]:
        """The ``frames`` reset option naming this segment (by path until the server holds it)."""
        return {"shm": None if known else str(self.path), "token": self.token}

    def unlink(self) -> None:
        """Remove the name: from now on only the mappings keep the memory."""
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            self.path = None

    def attach(self) -> None:
        """Map the segment the server has sized, then unlink its name (called once the server said yes)."""
        if self._map is None:
            if self._fd is None:
                raise FrameError("this frame reader is closed")
            size = os.fstat(self._fd).st_size
            if size <= _DATA:
                raise FrameError(f"the env server did not size the shared-memory segment {self.path} ({size} bytes)")
            self._map = mmap.mmap(self._fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            os.close(self._fd)
            self._fd = None
            self._words = np.frombuffer(self._map, np.uint64, count=SLOTS * _WORDS, offset=_HEADER)
        self.unlink()

    @property
    def attached(self) -> bool:
        return self._map is not None

    @property
    def lent(self) -> int:
        """Slots whose frames the caller still holds."""
        return len(self._lent)

    def copies_next(self, ref: dict[str, Any]) -> bool:
        """Whether reading ``ref`` would copy (every slot the client may keep is in use): worth a
        worker thread for an asyncio client, where handing out a slot is not."""
        return int(ref["slot"]) not in self._lent and len(self._lent) >= HOLD

    def read(self, ref: dict[str, Any]) -> np.ndarray[Any, Any]:
        """The frame ``ref`` names: a read-only array over its slot (the slot stays the caller's until
        nothing refers to the array), or, with ``HOLD`` slots in use, a copy the caller owns."""
        with self._lock:
            return self._read(ref)

    def _read(self, ref: dict[str, Any]) -> np.ndarray[Any, Any]:
        if self._map is None or self._words is None:
            raise FrameError("a shared-memory frame arrived before the segment was attached (reset with frames='shm')")
        words = self._words
        seq, slot = int(ref["seq"]), int(ref["slot"])
        shape = tuple(int(n) for n in ref["shape"])
        dtype = np.dtype(ref["dtype"])
        count, offset = math.prod(shape), int(ref["offset"])
        if not 0 <= slot < SLOTS or offset < _DATA or offset + count * dtype.itemsize > len(self._map):
            raise FrameError(f"frame reference {ref} lies beyond the {len(self._map)}-byte segment")
        if int(words[slot * _WORDS + _DONE]) != seq:
            raise FrameError(
                f"shared-memory frame {seq} is not in slot {slot} (it holds frame "
                f"{int(words[slot * _WORDS + _DONE])}): another client is stepping the same env server; give each "
                "client its own server"
            )
        self._release_unused()
        self.frames += 1
        lent = self._lent.get(slot)
        if lent is None and len(self._lent) >= HOLD:
            out = _BUFFERS.take(shape, dtype)
            np.copyto(out, np.frombuffer(self._map, dtype, count=count, offset=offset).reshape(shape))
            if int(words[slot * _WORDS + _BEGUN]) != seq:
                raise FrameError(
                    f"shared-memory frame {seq} was overwritten while it was read: another client is stepping the "
                    "same env server; give each client its own server, or reset with frames='socket'"
                )
            words[slot * _WORDS + _RETURNED] = int(ref["handout"])
            self.copies += 1
            return out
        with memoryview(self._map) as whole, whole[offset : offset + count * dtype.itemsize] as part:
            pixels = np.frombuffer(part.toreadonly(), dtype).reshape(shape)
        buffer: object = pixels
        while isinstance(buffer, np.ndarray):  # the reshape's base is frombuffer's array, whose base is a
            buffer = buffer.base  # memoryview of its own: every view and slice of ``pixels`` leads there
        assert isinstance(buffer, memoryview)
        if lent is None:
            lent = self._lent[slot] = _Lent(int(ref["handout"]))
        lent.handout = max(lent.handout, int(ref["handout"]))  # an unchanged screen, handed out again
        lent.buffers.append(buffer)
        return pixels

    def give_back(self) -> None:
        """Give the server back every slot whose arrays nobody refers to any more (each read does;
        call it too when a frame came inline, or the server may find none free again)."""
        with self._lock:
            if self._words is not None:
                self._release_unused()

    def _release_unused(self) -> None:
        assert self._words is not None
        # Runs at every read over every lent slot (32 with an RL loader's history): a plain loop,
        # 8x faster than all() over a generator. A buffer with no array over it is referred to by
        # nothing but the list, ``buffer`` and getrefcount's argument.
        refcount, unused = sys.getrefcount, []
        for slot, lent in self._lent.items():
            for buffer in lent.buffers:
                if refcount(buffer) > 3:
                    break
            else:
                unused.append(slot)
        for slot in unused:
            self._words[slot * _WORDS + _RETURNED] = self._lent.pop(slot).handout

    def close(self) -> None:
        self.unlink()
        _BUFFERS.trim()
        with self._lock:
            self._words = None
            self._lent.clear()
            if self._map is not None:
                # Arrays still handed out keep the mapping alive (each holds it as its buffer); it
                # goes when the last of them does.
                with contextlib.suppress(BufferError):
                    self._map.close()
                self._map = None
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


class FrameWriter:
    """The server's half: opens the client's segment, sizes it for ``SLOTS`` frames, writes frames
    into slots the client has returned."""

    def __init__(self, path: str, token: str, frame_bytes: int) -> None:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            head = os.pread(fd, _HEADER, 0)
            if head[: len(MAGIC)] != MAGIC or head[len(MAGIC) : len(MAGIC) + 8].hex() != token:
                raise FrameError(f"{path} is not the frame segment the client named (token mismatch)")
            self.slot_bytes = _round_up(frame_bytes, _ALIGN)
            size = _round_up(_DATA, _ALIGN) + SLOTS * self.slot_bytes  # pages are real only once written
            os.ftruncate(fd, size)
            self._map: mmap.mmap | None = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except BaseException:
            os.close(fd)
            raise
        self._fd: int | None = fd  # kept to reserve each slot's memory before its first frame
        self._reserved: set[int] = set()
        self._full: str | None = None  # why a slot could not be reserved: frames go inline from then on
        with contextlib.suppress(FileNotFoundError):  # the client maps it by its open descriptor: if
            os.unlink(path)  # it dies before its reset returns, no name is left behind either
        self.token = token
        self._base = _round_up(_DATA, _ALIGN)
        self._words: np.ndarray[Any, Any] | None = np.frombuffer(
            self._map, np.uint64, count=SLOTS * _WORDS, offset=_HEADER
        )
        self.seq = 0
        self.handouts = 0
        # The newest frame's immutable source (bytes, compared by identity) or key (by equality).
        self._last: tuple[Hashable, dict[str, Any]] | None = None

    def _free_slot(self) -> int | None:
        """The lowest slot the client has returned (low first: a client that drops its frames at once
        keeps touching the same few pages); None when it holds them all (send the frame inline)."""
        assert self._words is not None
        words = self._words
        for slot in range(SLOTS):
            if self._full is not None and slot not in self._reserved:
                continue  # only slots that already have their memory
            if words[slot * _WORDS + _RETURNED] == words[slot * _WORDS + _HANDED]:
                return slot
        return None

    def _hand_out(self, ref: dict[str, Any]) -> dict[str, Any]:
        """Lend ``ref``'s slot to the client under a new hand-out number (also for a frame handed out
        before: the client may have returned that one already)."""
        assert self._words is not None
        self.handouts += 1
        self._words[int(ref["slot"]) * _WORDS + _HANDED] = self.handouts
        ref["handout"] = self.handouts
        return dict(ref)

    def _begin(self, nbytes: int) -> tuple[int, int] | None:
        """A free slot for a frame of ``nbytes``, marked begun: (slot, offset), or None (send inline)."""
        if self._map is None or self._words is None or nbytes > self.slot_bytes:
            return None
        slot = self._free_slot()
        if slot is None or not self._reserve(slot):
            return None
        self.seq += 1
        self._last = None  # until the slot is complete, nothing may be handed out twice
        self._words[slot * _WORDS + _BEGUN] = self.seq
        return slot, self._base + slot * self.slot_bytes

    def _reserve(self, slot: int) -> bool:
        """Give ``slot`` its memory before its first frame. The segment is sparse, and writing into a
        page a full tmpfs (a container's 64 MB ``/dev/shm``) cannot supply kills the writer with
        SIGBUS; ``posix_fallocate`` says ENOSPC instead, and the frames go on the socket."""
        if slot in self._reserved:
            return True
        if self._fd is None or self._full is not None:
            return False
        try:
            os.posix_fallocate(self._fd, self._base + slot * self.slot_bytes, self.slot_bytes)
        except OSError as exc:
            self._full = f"no memory for a frame slot in the shared-memory segment ({exc.strerror})"
            log.warning("frames travel on the socket from now on: %s", self._full)
            return False
        self._reserved.add(slot)
        return True

    def _finish(self, slot: int, offset: int, shape: list[int], dtype: str, source: Hashable | None) -> dict[str, Any]:
        assert self._words is not None
        self._words[slot * _WORDS + _DONE] = self.seq
        ref = {"seq": self.seq, "slot": slot, "offset": offset, "shape": shape, "dtype": dtype}
        self._last = (source, ref) if source is not None else None
        return self._hand_out(ref)

    def write(self, frame: np.ndarray[Any, Any]) -> dict[str, Any] | None:
        """Put ``frame`` in a free slot; its reference, or None when it does not fit or no slot is
        free (send it inline).

        A frame over the same immutable bytes as the newest one (a screen that did not change, which
        the sim desktop hands out as the same cached bytes) is not copied again, only handed out again."""
        source: object = frame.base
        while isinstance(source, np.ndarray):  # reshape's view of frombuffer's view of the bytes
            source = source.base
        if self._last is not None and isinstance(self._last[0], bytes) and source is self._last[0]:
            return self._hand_out(self._last[1])
        begun = self._begin(frame.nbytes)
        if begun is None:
            return None
        slot, offset = begun
        assert self._map is not None
        target = np.frombuffer(self._map, frame.dtype, count=frame.size, offset=offset).reshape(frame.shape)
        np.copyto(target, frame)
        del target
        return self._finish(
            slot, offset, list(frame.shape), frame.dtype.str, source if isinstance(source, bytes) else None
        )

    def write_into(
        self, shape: tuple[int, ...], key: Hashable, fill: Callable[[memoryview], None]
    ) -> dict[str, Any] | None:
        """``write`` for a renderer that fills the slot itself (``fill(slot_bytes)``): no intermediate
        frame, no copy. A screen whose ``key`` was written last is handed out again, not written again;
        None when it does not fit or no slot is free (send it inline)."""
        if self._last is not None and self._last[0] == key and self._last[1]["shape"] == list(shape):
            return self._hand_out(self._last[1])
        nbytes = math.prod(shape)
        begun = self._begin(nbytes)
        if begun is None:
            return None
        slot, offset = begun
        assert self._map is not None
        with memoryview(self._map) as whole, whole[offset : offset + nbytes] as target:
            fill(target)
        return self._finish(slot, offset, list(shape), "|u1", key)

    def close(self) -> None:
        self._words = None
        if self._map is not None:
            self._map.close()
            self._map = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
