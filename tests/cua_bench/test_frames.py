"""Shared-memory frames between an env server and a client on one host, and the curriculum prefix
(``solve(steps=k)``): against real sim env servers, in their own processes where a kill -9 matters."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cua_bench.backends.base import Computer
from cua_bench.backends.sim import SimBackend
from cua_bench.client import EnvClient
from cua_bench.frames import HOLD, SLOTS, FrameError, FrameReader, FrameWriter, shm_dir
from cua_bench.server import EnvServer
from cua_bench.sim import SimDesktop, SimSession
from cua_bench.spec import EpisodeSpec
from cua_core.actions import Action, Click, Done, Point, TypeText
from cua_core.errors import CuaError, RemoteError, ServerLost
from cua_core.rpc import RpcClient, RpcServer

ACTIONS: list[list[Action]] = [[Click(Point(500, 400))], [TypeText("hello")], [Click(Point(100, 100))]]


def _segments() -> list[Path]:
    """Frame segments this test process created that still have a name."""
    return sorted(shm_dir().glob(f"cua-frames-{os.getpid()}-*"))


@pytest.fixture(scope="module")
def computer() -> Iterator[Computer]:
    backend = SimBackend()
    computer = backend.provision(width=640, height=400)
    yield computer
    backend.teardown(computer)


def _play(client: EnvClient, task: str = "sim/fill-form") -> list[np.ndarray]:
    obs, _ = client.reset(options={"task": task, "variant": 1, "observes": "rgb"})
    frames = [obs["screenshot"]]
    for actions in ACTIONS:
        frames.append(client.step(actions)[0]["screenshot"])
    return frames


def test_shm_frames_equal_socket_frames_pixel_for_pixel(computer: Computer) -> None:
    assert computer.address.startswith("ipc://")
    with EnvClient(computer.address) as shm, EnvClient(computer.address, frames="socket") as sock:
        through_shm = _play(shm)
        assert shm.shared_frames  # ipc:// asks for shared memory by default
        assert _segments() == []  # the name goes as soon as the server has mapped it
        through_socket = _play(sock)
        assert not sock.shared_frames
    assert len(through_shm) == len(through_socket) == 4
    for a, b in zip(through_shm, through_socket, strict=True):
        assert a.shape == (400, 640, 3) and a.dtype == np.uint8
        assert np.array_equal(a, b)
    assert not np.array_equal(through_shm[0], through_shm[2])  # the frames did change
    assert not through_shm[1].flags.writeable  # the caller holds the slot itself, read-only
    with pytest.raises(ValueError, match="read-only"):
        through_shm[1][0, 0] = 0
    assert _segments() == []


def test_frames_from_earlier_steps_stay_as_they_were(computer: Computer) -> None:
    # Two slots alternate: an array handed out must not change when later frames arrive.
    with EnvClient(computer.address) as env:
        obs, _ = env.reset(options={"task": "sim/fill-form", "variant": 1})
        first = obs["screenshot"]
        kept = first.copy()
        for actions in ACTIONS:
            env.step(actions)
        assert np.array_equal(first, kept)
        # A second client of the same server cannot read the first one's memory: observe says so
        # and gets the frame inline instead.
        with EnvClient(computer.address, frames="socket") as other:
            seen = other.observe()["screenshot"]
        assert np.array_equal(np.asarray(seen), env.observe()["screenshot"])


def test_oracle_steps_travel_on_the_socket_and_png_is_unchanged(computer: Computer) -> None:
    with EnvClient(computer.address) as env:
        env.reset(options={"task": "sim/login", "variant": 0})
        solved = env.solve()
        assert solved["reward"] == 1.0
        shots = [np.asarray(s["observation"]["screenshot"]) for s in solved["steps"]]
        assert len(shots) > 2 and all(s.shape == (400, 640, 3) for s in shots)
        assert not np.array_equal(shots[0], shots[-1])  # each step kept its own frame
        obs, _ = env.reset(options={"task": "sim/login", "variant": 0, "observes": "png"})
        assert bytes(obs["screenshot"]).startswith(b"\x89PNG")


def test_kill_9_of_the_server_leaves_nothing_in_dev_shm() -> None:
    backend = SimBackend()
    computer = backend.provision(width=320, height=200)
    try:
        with EnvClient(computer.address, heartbeat_timeout=0.5, step_timeout=5) as env:
            env.reset(options={"task": "sim/click-button"})
            assert env.shared_frames and _segments() == []
            os.kill(computer.handle.pid, signal.SIGKILL)
            computer.handle.wait()
            with pytest.raises(ServerLost):
                env.step([Click(Point(1, 1))])
            # A reset of a dead server: the segment it offered is unlinked when the call fails.
            with pytest.raises(ServerLost):
                env.reset(options={"task": "sim/click-button", "frames": "shm"})
            assert _segments() == []
    finally:
        backend.teardown(computer)
    assert _segments() == []


def test_tcp_keeps_the_socket_unless_asked_and_shm_works_on_loopback() -> None:
    server = EnvServer(SimSession(SimDesktop(320, 200)), "tcp://127.0.0.1:0").start()
    try:
        with EnvClient(server.address) as plain, EnvClient(server.address, frames="shm") as asked:
            plain_obs, info = plain.reset(options={"task": "sim/click-button", "variant": 2})
            assert info["frames"] == "socket" and not plain.shared_frames
            asked_obs, info = asked.reset(options={"task": "sim/click-button", "variant": 2})
            assert info["frames"] == "shm" and asked.shared_frames
            assert np.array_equal(np.asarray(plain_obs["screenshot"]), asked_obs["screenshot"])
            with pytest.raises(ValueError, match="frames must be one of auto, shm, socket"):
                plain.reset(options={"task": "sim/click-button", "frames": "mmap"})
    finally:
        server.rpc.close()
    assert _segments() == []


def test_a_server_that_cannot_map_the_segment_says_why_and_sends_pixels() -> None:
    server = EnvServer(SimSession(SimDesktop(320, 200)), "tcp://127.0.0.1:0").start()
    try:
        with RpcClient(server.address) as rpc:
            params = {"spec": EpisodeSpec("sim/click-button").to_wire()}
            reply = rpc.call("reset", {**params, "frames": {"shm": "/nonexistent/seg", "token": "00" * 8}})
            assert reply["info"]["frames"] == "socket"
            assert "cannot map /nonexistent/seg" in reply["info"]["frames_refused"]
            assert reply["observation"]["screenshot"].shape == (200, 320, 3)
            reader = FrameReader()
            try:
                wrong = {"shm": str(reader.path), "token": "11" * 8}  # not the token written in the file
                reply = rpc.call("reset", {**params, "frames": wrong})
                assert "token mismatch" in reply["info"]["frames_refused"]
                reply = rpc.call("reset", {**params, "frames": {"shm": None, "token": "22" * 8}})
                assert "no shared-memory segment with that token" in reply["info"]["frames_refused"]
            finally:
                reader.close()
            with pytest.raises(RemoteError, match="frames must be 'socket' or"):
                rpc.call("reset", {**params, "frames": 5})
    finally:
        server.rpc.close()


def test_a_server_older_than_the_spec_is_named_and_leaves_no_segment() -> None:
    # Env protocol 1: reset took loose options. The client says which side to upgrade, and the
    # shared-memory segment it offered is removed (the server never took it).
    server = RpcServer("tcp://127.0.0.1:0", name="old-env")

    def reset(task: str, variant: int = 0, split: str = "test", seed: int | None = None, obs: str = "rgb") -> object:
        raise AssertionError("not reached")

    server.register("reset", reset)
    with server, EnvClient(server.address, frames="shm") as env:
        with pytest.raises(CuaError, match="speaks an older env protocol"):
            env.reset(options={"task": "x"})
        assert not env.shared_frames
    assert _segments() == []


def _pair(tmp_path: Path, frame_bytes: int) -> tuple[FrameReader, FrameWriter]:
    reader = FrameReader(tmp_path)
    writer = FrameWriter(str(reader.path), reader.token, frame_bytes)
    reader.attach()
    return reader, writer


def _write(writer: FrameWriter, value: int, shape: tuple[int, ...] = (2, 2, 3)) -> dict[str, object]:
    ref = writer.write(np.full(shape, value, np.uint8))
    assert ref is not None
    return ref


def test_a_reference_to_a_slot_written_again_is_an_error_not_wrong_pixels(tmp_path: Path) -> None:
    reader, writer = _pair(tmp_path, 12)
    assert list(tmp_path.iterdir()) == []  # attached: the name is gone
    first = _write(writer, 7)
    shown = reader.read(first)
    assert (shown == 7).all()
    del shown  # dropped: its slot goes back to the server at the next read
    assert (reader.read(_write(writer, 8)) == 8).all()
    again = _write(writer, 9)
    assert again["slot"] == first["slot"]  # the lowest returned slot: the first one's
    with pytest.raises(FrameError, match="another client is stepping the same env server"):
        reader.read(first)  # as a second client reading the first one's references would
    assert writer.write(np.zeros((40, 40, 3), np.uint8)) is None  # beyond its slot (a page): sent inline
    writer.close()
    reader.close()


def test_frames_kept_are_never_written_over_and_beyond_hold_are_copies(tmp_path: Path) -> None:
    reader, writer = _pair(tmp_path, 12)
    kept = [reader.read(_write(writer, value)) for value in range(HOLD)]
    assert reader.lent == HOLD and not any(a.flags.writeable for a in kept)
    extra = [reader.read(_write(writer, 100 + value)) for value in range(3 * SLOTS)]
    assert all(a.flags.writeable for a in extra) and reader.copies == 3 * SLOTS  # owned copies past HOLD
    assert [int(a[0, 0, 0]) for a in kept] == list(range(HOLD))  # as they were
    assert [int(a[0, 0, 0]) for a in extra] == [100 + v for v in range(3 * SLOTS)]
    corner = kept[0][:1, :1]  # a view keeps its slot
    del kept
    shown = reader.read(_write(writer, 50))  # the slots of the dropped frames come back...
    assert not shown.flags.writeable and reader.lent == 2  # ...but the first, under ``corner``
    assert int(corner[0, 0, 0]) == 0
    writer.close()
    reader.close()
    assert int(corner[0, 0, 0]) == 0 and int(shown[0, 0, 0]) == 50  # the mapping lives on under them


def test_a_client_that_drops_each_frame_keeps_touching_the_same_two_slots(tmp_path: Path) -> None:
    reader, writer = _pair(tmp_path, 12)
    slots = set()
    for value in range(50):
        ref = _write(writer, value)
        slots.add(ref["slot"])
        assert int(reader.read(ref)[0, 0, 0]) == value
    assert slots == {0, 1} and reader.copies == 0
    writer.close()
    reader.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 9)), min_size=1, max_size=60))
def test_every_frame_kept_stays_as_it_was_whatever_is_kept_or_dropped(
    plan: list[tuple[bool, bool, bool, int]],
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        reader, writer = _pair(Path(scratch), 12)
        kept: list[tuple[int, np.ndarray]] = []
        pixels = bytes(12)
        for step, (keep, crop, same, drop) in enumerate(plan):
            if not same:  # a new screen, else the unchanged one (the same bytes: handed out again)
                pixels = bytes([step % 256]) * 12
            ref = writer.write(np.frombuffer(pixels, np.uint8).reshape(2, 2, 3))
            assert ref is not None  # a free slot always: copies beyond HOLD give slots back
            shown = reader.read(ref)
            assert shown.tobytes() == pixels
            if keep:  # the frame, or only a crop of it (which must hold the slot as well)
                kept.append((pixels[0], shown[1:, 1:] if crop else shown))
            del shown
            if kept and drop < len(kept) and drop % 3 == 0:
                del kept[drop]
            assert all(int(a[0, 0, 0]) == value for value, a in kept)
        writer.close()
        reader.close()


def test_solve_steps_plays_a_prefix_of_the_oracle(computer: Computer) -> None:
    with EnvClient(computer.address) as env:
        env.reset(options={"task": "sim/fill-form", "variant": 0})
        whole = env.solve()
        assert whole["reward"] == 1.0
        length = len(whole["steps"])
        assert length > 3

        obs, _ = env.reset(options={"task": "sim/fill-form", "variant": 0})
        prefix = env.solve(steps=2)
        assert (prefix["played"], prefix["finished"]) == (2, False)
        assert [s["actions"] for s in prefix["steps"]] == [s["actions"] for s in whole["steps"][:2]]
        assert "reward" not in prefix  # nothing evaluated
        assert prefix["observation"]["step"] == 2 and env.info()["steps"] == 2
        assert not np.array_equal(prefix["observation"]["screenshot"], obs["screenshot"])
        assert env.evaluate() == 0.0  # part of the way is not the goal
        _, _, _, _, info = env.step([Click(Point(1, 1))])
        assert info["step"] == 3  # the step counter went on from the prefix

        env.reset(options={"task": "sim/fill-form", "variant": 0})
        rest = env.solve(steps=length + 5)
        assert (rest["played"], rest["finished"]) == (length, True)
        _, reward, terminated, _, _ = env.step([Done()])
        assert terminated and reward == 1.0

        env.reset(options={"task": "sim/login", "variant": 0})
        assert env.solve(steps=0)["played"] == 0 and env.info()["steps"] == 0
        with pytest.raises(RemoteError, match=r"takes a number of oracle steps >= 0, got -1"):
            env.solve(steps=-1)


def test_copies_land_in_recycled_arrays_only_once_nothing_refers_to_them(tmp_path: Path) -> None:
    reader, writer = _pair(tmp_path, 5 * 7 * 3)
    held = [reader.read(_write(writer, 200 + v, (5, 7, 3))) for v in range(HOLD)]  # every slot it may keep

    def frame(value: int) -> np.ndarray:
        return reader.read(_write(writer, value, (5, 7, 3)))

    kept = frame(1)
    dropped = frame(2)
    assert kept.flags.writeable and dropped.flags.writeable  # copies, past HOLD
    dropped_at = dropped.ctypes.data
    del dropped
    again = frame(3)
    assert again.ctypes.data == dropped_at  # the dropped array's memory, not a fresh one
    corner = again[1:3, 1:3]  # a view keeps its array in use
    del again
    fourth = frame(4)
    assert not np.shares_memory(fourth, corner) and not np.shares_memory(fourth, kept)
    assert (kept == 1).all() and (corner == 3).all() and (fourth == 4).all()
    assert [int(a[0, 0, 0]) for a in held] == [200 + v for v in range(HOLD)]
    writer.close()
    reader.close()


def test_an_unchanged_screen_is_not_copied_again_and_its_slot_is_lent_again(tmp_path: Path) -> None:
    reader, writer = _pair(tmp_path, 2 * 2 * 3)
    pixels = bytes(range(12))
    first = writer.write(np.frombuffer(pixels, np.uint8).reshape(2, 2, 3))
    assert first is not None
    assert reader.read(first).tobytes() == pixels  # read and dropped at once: the slot is returned...
    same = writer.write(np.frombuffer(pixels, np.uint8).reshape(2, 2, 3))  # the same cached bytes
    assert same is not None and (same["slot"], same["seq"]) == (first["slot"], first["seq"])
    assert same["handout"] > first["handout"]
    held = reader.read(same)  # ...and lent again: the next frames must go elsewhere
    for value in range(3):
        other = _write(writer, value)
        assert other["slot"] != same["slot"]
        assert reader.read(other).tobytes() == bytes([value]) * 12
    assert held.tobytes() == pixels
    writer.close()
    reader.close()


def test_the_sim_renders_straight_into_the_slot_and_an_unchanged_screen_is_written_once(tmp_path: Path) -> None:
    session = SimSession(SimDesktop(240, 160))
    session.sim.launch("form", title="Form", widgets=[{"type": "textfield", "name": "Name"}], x=2, y=2, width=200)
    reader = FrameReader(tmp_path)
    writer = FrameWriter(str(reader.path), reader.token, 240 * 160 * 3)
    reader.attach()
    shape = (160, 240, 3)
    key = session.frame_key()
    first = writer.write_into(shape, key, session.frame_into)
    assert first is not None and np.array_equal(reader.read(first), session.frame())  # encoded, not cached
    session.sim._dirty = True  # a repaint of the same pixels is a new screen: a new key, written again
    assert session.frame_key() != key
    again = writer.write_into(shape, session.frame_key(), session.frame_into)
    assert again is not None and again["seq"] == first["seq"] + 1
    unchanged = writer.write_into(shape, session.frame_key(), session.frame_into)
    assert unchanged is not None and (unchanged["seq"], unchanged["slot"]) == (again["seq"], again["slot"])
    session.frame()  # cached bytes now exist: frame_into copies them
    session.sim._dirty = True
    cached = writer.write_into(shape, session.frame_key(), session.frame_into)
    assert cached is not None and np.array_equal(reader.read(cached), session.frame())
    assert writer.write_into((320, 240, 3), session.frame_key(), session.frame_into) is None  # too big: inline
    # A new desktop (the next episode's) never repeats a key of the last one, whatever it shows.
    assert SimSession(SimDesktop(240, 160)).frame_key() not in {key, session.frame_key()}
    writer.close()
    reader.close()


def test_names_go_when_the_server_maps_and_dead_clients_files_are_swept(tmp_path: Path) -> None:
    reader = FrameReader(tmp_path)
    assert reader.path is not None and reader.path.exists()
    writer = FrameWriter(str(reader.path), reader.token, 12)
    assert list(tmp_path.iterdir()) == []  # the server unlinked it: a client killed now leaks nothing
    reader.attach()  # through the descriptor it kept
    ref = writer.write(np.full((2, 2, 3), 5, np.uint8))
    assert ref is not None and (reader.read(ref) == 5).all()
    writer.close()
    reader.close()
    # A client killed between creating its segment and any server taking it:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"cua-frames-{dead.pid}-0123456789abcdef"
    stale.write_bytes(b"x" * 64)
    alive = tmp_path / f"cua-frames-{os.getppid()}-0123456789abcdef"  # a live process's: kept
    alive.write_bytes(b"x" * 64)
    FrameReader(tmp_path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [alive.name]


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs, like a container's small /dev/shm (mounting one needs root)."""
    folder = tmp_path / "shm"
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)]
    mounted = subprocess.run(mount, check=False, capture_output=True)
    if mounted.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs (CI runs as root): {mounted.stderr.decode().strip()}")
        pytest.skip(f"mounting a tmpfs needs root: {mounted.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def test_a_full_tmpfs_sends_frames_inline_instead_of_killing_the_server(tiny_tmpfs: Path) -> None:
    # 16 KiB frames: the header page and three slots fit in 64 KiB, the fourth does not. Writing into
    # an unreserved page there would be a SIGBUS; the writer reserves each slot and says no instead.
    reader, writer = _pair(tiny_tmpfs, 16 * 1024)
    shape = (64, 64, 4)
    kept = [reader.read(_write(writer, value, shape)) for value in range(3)]
    assert writer.write(np.full(shape, 9, np.uint8)) is None  # inline: no room for a fourth slot
    assert [int(a[0, 0, 0]) for a in kept] == [0, 1, 2]
    del kept
    reader.give_back()  # as the client does when a frame came inline
    again = _write(writer, 5, shape)
    assert again["slot"] == 0 and int(reader.read(again)[0, 0, 0]) == 5  # a reserved slot serves again
    writer.close()
    reader.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_root_clients_segment_is_given_to_its_servers_user_and_swept_once_its_client_is_dead(
    tmp_path: Path,
) -> None:
    """An isolated local environment's server runs as a user of its own: root's segment must be that
    user's, or every frame goes on the socket. A segment left by a dead client is swept whoever owns it."""
    tmp_path.chmod(0o1777)
    reader = FrameReader(tmp_path, owner=1_900_000_123)
    assert reader.path is not None and reader.path.stat().st_uid == 1_900_000_123
    reader.close()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    left = tmp_path / f"cua-frames-{dead.stdout.strip()}-00aa"
    left.write_bytes(b"x")
    os.chown(left, 1_900_000_123, -1)
    FrameReader(tmp_path).close()
    assert not left.exists()
