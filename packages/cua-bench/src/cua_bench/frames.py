"""Screenshots through shared memory when the client and its env server share a host.

A 1280x800 RGB frame is 3 MB; through a unix socket it costs two kernel copies and many wake-ups
of ZeroMQ's I/O threads, which was most of a step's RPC overhead. Instead:

- the **client** creates a file under ``/dev/shm`` (``shm_dir()``) holding a small header with a
  random token, and names it in its ``reset`` (option ``frames``);
- the **server** opens that file (and only that file: the token must match), sizes it for two
  frames, maps it, and from then on writes each observation's frame into it, answering with a
  small reference (``{"seq", "slot", "offset", "shape", "dtype"}``) in place of the pixels;
- the server unlinks the name as soon as it has mapped the file, and the client maps it through
  the descriptor it kept (unlinking too, should the server have failed), so nothing is left in
  ``/dev/shm`` whichever process dies, however (a ``kill -9`` included): the memory lives exactly
  as long as one of the two mappings. A client killed during the reset that offered its segment
  leaves a 64-byte file, which the next client on the host removes.

Frames alternate between two slots, and each slot carries the sequence number of the frame being
written (set before the pixels) and of the frame completed (set after), so a reader can tell a
frame overwritten while it copied it (two clients stepping one server) and says so rather than
returning torn pixels. The client copies a frame out with one ``memcpy`` (``FrameReader.read``):
the agent owns its array, and a history of observations stays valid. The arrays it copies into
are recycled once nothing refers to them any more (``_Buffers``): a learner keeps hundreds of
frames of history alive, and copying each into fresh memory cost 3-5x the copy itself in page
faults (measured: 0.3 ms into reused memory, 1.4-3 ms into new).

A server that cannot open the file (another host, a container with its own ``/dev/shm``) answers
with the pixels on the socket and says why in ``info["frames_refused"]``; the client then stops
asking.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import numpy as np

from cua_core.addresses import runtime_dir
from cua_core.errors import CuaError

__all__ = ["FrameError", "FrameReader", "FrameWriter", "shm_dir"]

MAGIC = b"CUAFRAM1"
SLOTS = 2
_HEADER = 64  # magic (8) + token (16) + padding
_SLOT_HEADER = 64  # begun (u64) + done (u64) per slot, one cache line each
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
    """Frame arrays handed out and taken back once nothing refers to them (CPython's refcount: the
    pool's list and the scan's own name are the only references left). Views and slices of a
    handed-out array keep it in use, since numpy's ``base`` points at it. One pool per process, so
    a frame dropped by one client's episode serves the next frame of another; free arrays beyond
    ``max_idle`` are let go, so memory follows the history actually kept."""

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
                if path.stat().st_uid == os.getuid():
                    path.unlink()
        except PermissionError:  # alive, someone else's
            continue


class FrameReader:
    """The client's half: creates the segment, maps it once the server has sized it, copies frames out."""

    def __init__(self, directory: Path | None = None) -> None:
        self.token = secrets.token_hex(8)
        folder = directory if directory is not None else shm_dir()
        _sweep(folder)
        self.path: Path | None = folder / f"cua-frames-{os.getpid()}-{self.token}"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, MAGIC + bytes.fromhex(self.token).ljust(_HEADER - len(MAGIC), b"\0"))
        except BaseException:
            os.close(fd)
            self.unlink()
            raise
        self._fd: int | None = fd
        self._map: mmap.mmap | None = None
        self._seqs: np.ndarray[Any, Any] | None = None
        self._lock = threading.Lock()  # a copy on a worker thread and close() never overlap
        self.frames = 0

    def offer(self, *, known: bool) -> dict[str, Any]:
        """The ``frames`` reset option naming this segment (by path until the server holds it)."""
        return {"shm": None if known else str(self.path), "token": self.token}

    def unlink(self) -> None:
        """Remove the name: from now on only the two mappings keep the memory."""
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
            self._map = mmap.mmap(self._fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
            os.close(self._fd)
            self._fd = None
            self._seqs = np.frombuffer(self._map, np.uint64, count=SLOTS * 8, offset=_HEADER)
        self.unlink()

    @property
    def attached(self) -> bool:
        return self._map is not None

    def read(self, ref: dict[str, Any]) -> np.ndarray[Any, Any]:
        """The frame ``ref`` names, copied out (one memcpy) into an array the caller owns (one recycled
        once the caller has dropped every reference to it)."""
        with self._lock:
            return self._read(ref)

    def _read(self, ref: dict[str, Any]) -> np.ndarray[Any, Any]:
        if self._map is None or self._seqs is None:
            raise FrameError("a shared-memory frame arrived before the segment was attached (reset with frames='shm')")
        seqs = self._seqs
        seq, slot = int(ref["seq"]), int(ref["slot"])
        shape = tuple(int(n) for n in ref["shape"])
        dtype = np.dtype(ref["dtype"])
        count, offset = int(np.prod(shape)), int(ref["offset"])
        if slot >= SLOTS or offset + count * dtype.itemsize > len(self._map):
            raise FrameError(f"frame reference {ref} lies beyond the {len(self._map)}-byte segment")
        if int(seqs[slot * 8 + 1]) != seq:
            raise FrameError(
                f"shared-memory frame {seq} is not in slot {slot} (it holds frame {int(seqs[slot * 8 + 1])}): "
                "another client is stepping the same env server; give each client its own server"
            )
        out = _BUFFERS.take(shape, dtype)
        np.copyto(out, np.frombuffer(self._map, dtype, count=count, offset=offset).reshape(shape))
        if int(seqs[slot * 8]) != seq:
            raise FrameError(
                f"shared-memory frame {seq} was overwritten while it was read: another client is stepping the "
                "same env server; give each client its own server, or reset with frames='socket'"
            )
        self.frames += 1
        return out

    def close(self) -> None:
        self.unlink()
        _BUFFERS.trim()
        with self._lock:
            self._seqs = None
            if self._map is not None:
                self._map.close()
                self._map = None
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


class FrameWriter:
    """The server's half: opens the client's segment, sizes it for two frames, writes frames into it."""

    def __init__(self, path: str, token: str, frame_bytes: int) -> None:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            head = os.pread(fd, _HEADER, 0)
            if head[: len(MAGIC)] != MAGIC or head[len(MAGIC) : len(MAGIC) + 8].hex() != token:
                raise FrameError(f"{path} is not the frame segment the client named (token mismatch)")
            self.slot_bytes = _round_up(frame_bytes, _ALIGN)
            size = _round_up(_DATA, _ALIGN) + SLOTS * self.slot_bytes
            os.ftruncate(fd, size)
            self._map: mmap.mmap | None = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):  # the client maps it by its open descriptor: if
            os.unlink(path)  # it dies before its reset returns, no name is left behind either
        self.token = token
        self._base = _round_up(_DATA, _ALIGN)
        self._seqs: np.ndarray[Any, Any] | None = np.frombuffer(self._map, np.uint64, count=SLOTS * 8, offset=_HEADER)
        self.seq = 0
        # The newest frame's immutable source (bytes, compared by identity) or key (by equality).
        self._last: tuple[Hashable, dict[str, Any]] | None = None

    def write(self, frame: np.ndarray[Any, Any]) -> dict[str, Any] | None:
        """Put ``frame`` in the next slot; its reference, or None when it does not fit (send it inline).

        A frame over the same immutable bytes as the newest one (a screen that did not change, which
        the sim desktop hands out as the same cached bytes) is not copied again: its reference is."""
        if self._map is None or self._seqs is None or frame.nbytes > self.slot_bytes:
            return None
        source: object = frame.base
        while isinstance(source, np.ndarray):  # reshape's view of frombuffer's view of the bytes
            source = source.base
        if self._last is not None and isinstance(self._last[0], bytes) and source is self._last[0]:
            return dict(self._last[1])
        self.seq += 1
        slot = self.seq % SLOTS
        offset = self._base + slot * self.slot_bytes
        self._seqs[slot * 8] = self.seq  # begun: a reader of the previous frame here now sees it is gone
        target = np.frombuffer(self._map, frame.dtype, count=frame.size, offset=offset).reshape(frame.shape)
        np.copyto(target, frame)
        del target
        self._seqs[slot * 8 + 1] = self.seq  # done
        ref = {"seq": self.seq, "slot": slot, "offset": offset, "shape": list(frame.shape), "dtype": frame.dtype.str}
        self._last = (source, ref) if isinstance(source, bytes) else None
        return dict(ref)

    def write_into(
        self, shape: tuple[int, ...], key: Hashable, fill: Callable[[memoryview], None]
    ) -> dict[str, Any] | None:
        """``write`` for a renderer that fills the slot itself (``fill(slot_bytes)``): no intermediate
        frame, no copy. A screen whose ``key`` was written last is not written again; None when it
        does not fit (send it inline)."""
        nbytes = int(np.prod(shape))
        if self._map is None or self._seqs is None or nbytes > self.slot_bytes:
            return None
        if self._last is not None and self._last[0] == key and self._last[1]["shape"] == list(shape):
            return dict(self._last[1])
        self.seq += 1
        slot = self.seq % SLOTS
        offset = self._base + slot * self.slot_bytes
        self._seqs[slot * 8] = self.seq  # begun: a reader of the previous frame here now sees it is gone
        self._last = None  # until the slot is complete, nothing may be handed out twice
        with memoryview(self._map) as whole, whole[offset : offset + nbytes] as target:
            fill(target)
        self._seqs[slot * 8 + 1] = self.seq  # done
        ref = {"seq": self.seq, "slot": slot, "offset": offset, "shape": list(shape), "dtype": "|u1"}
        self._last = (key, ref)
        return dict(ref)

    def close(self) -> None:
        self._seqs = None
        if self._map is not None:
            self._map.close()
            self._map = None
