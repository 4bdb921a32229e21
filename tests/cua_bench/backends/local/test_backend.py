"""The local backend: conformance, real input into a real xterm, file confinement, and no leaks.

Needs Xvfb and openbox (apt-get install xvfb openbox xterm). Without them the tests skip, unless
CI is set: there a missing Xvfb is a broken CI image and must fail.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from support.local_envs import marked

from cua_bench.a11y_xml import to_osworld_xml
from cua_bench.backends.base import Computer
from cua_bench.backends.local import LocalBackend, unavailable
from cua_bench.backends.local.display import _listening
from cua_bench.backends.local.home import env_path
from cua_bench.backends.local.procs import MARKER, alive
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK, check_backend
from cua_bench_osworld.official import official_metrics
from cua_core.actions import (
    Click,
    Drag,
    KeyDown,
    KeyPress,
    KeyUp,
    OpenApp,
    Pinch,
    Point,
    Scroll,
    SystemButton,
    TypeText,
    Wait,
)  # fmt: skip
from cua_core.errors import RemoteError, SecurityError

PROBLEM = unavailable() or (None if shutil.which("xterm") else "xterm is not installed")
needs_x = pytest.mark.skipif(
    PROBLEM is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {PROBLEM}"
)


@pytest.fixture(autouse=True)
def _x_or_fail_on_ci(request: pytest.FixtureRequest) -> None:
    if PROBLEM is not None and os.environ.get("CI") and request.node.get_closest_marker("skipif") is not None:
        pytest.fail(f"CI is set but the local backend cannot run here: {PROBLEM}")


@pytest.fixture(scope="module")
def computer(root: Path) -> Iterator[Computer]:
    backend = LocalBackend()
    computer = backend.provision(width=800, height=600)
    yield computer
    backend.teardown(computer)


@pytest.fixture
def env(computer: Computer) -> Iterator[EnvClient]:
    with EnvClient(computer.address, step_timeout=30) as client:
        client.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb", "max_steps": 100})
        yield client


def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
            if value:
                return value
        except (RemoteError, OSError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        time.sleep(0.05)


def read(env: EnvClient, path: str) -> str:
    return str(env.session("read_file", path=path))


# --- no display needed -----------------------------------------------------------------------


def test_paths_outside_home_and_tmp_are_refused(tmp_path: Path) -> None:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    (home / "sub").mkdir(parents=True)
    tmp.mkdir()
    (home / "evil").symlink_to("/etc")
    (tmp / "out").symlink_to("/etc")
    real_home, real_tmp = home.resolve(), tmp.resolve()
    assert env_path(home, tmp, "a.txt") == real_home / "a.txt"
    assert env_path(home, tmp, "~/sub/b") == real_home / "sub" / "b"
    assert env_path(home, tmp, str(home / "sub" / "c")) == real_home / "sub" / "c"
    # The paths a task written for a whole machine uses (Cua Bench's /tmp/answer.txt) are the env's own.
    assert env_path(home, tmp, "/home/user/notes.txt") == real_home / "notes.txt"
    assert env_path(home, tmp, "/tmp/answer.txt") == real_tmp / "answer.txt"
    assert env_path(home, tmp, "/tmp") == real_tmp
    assert env_path(home, tmp, str(tmp / "x")) == real_tmp / "x"
    assert env_path(home, tmp, "/tmp/a/../b") == real_tmp / "b"
    bad_paths = ["../x", "/etc/passwd", "sub/../../x", "evil/passwd", "/tmp/../etc/passwd", "/tmp/out/passwd",
                 "/home/user/../other/x", "/home/userx/a", "/var/tmp/x"]  # fmt: skip
    for bad in bad_paths:
        with pytest.raises(SecurityError, match="outside the environment's home and tmp"):
            env_path(home, tmp, bad)


# --- a real display --------------------------------------------------------------------------


@needs_x
def test_local_is_conformant(root: Path) -> None:
    assert check_backend("local") == []
    assert marked(root) == []


@needs_x
def test_typing_reaches_a_real_xterm(env: EnvClient) -> None:
    window = env.session("launch", app="terminal")
    listed = env.session("windows")
    assert [w["title"] for w in listed if w["id"] == window] == ["xterm"]
    assert next(w for w in listed if w["id"] == window)["focused"]
    assert env.observe()["screenshot"].shape == (600, 800, 3)
    env.step([TypeText("echo never > never.txt"), KeyPress(("ctrl", "u"))])  # a chord: ctrl+u kills the line
    _, _, _, _, info = env.step([TypeText("echo typed-through-xtest é€→ > typed.txt", press_enter=True)])
    assert info["settle_ms"] > 0
    assert eventually(lambda: read(env, "typed.txt")) == "typed-through-xtest é€→\n"
    with pytest.raises(RemoteError):
        read(env, "never.txt")


@needs_x
def test_the_observation_is_taken_after_the_redraw(env: EnvClient) -> None:
    env.session("launch", app="xterm")
    deadline = time.monotonic() + 15  # typing into a window still starting up is not what is measured here
    while not any(w["app"] == "xterm" for w in env.session("windows")):
        assert time.monotonic() < deadline, "the xterm never showed"
        time.sleep(0.05)
    time.sleep(0.5)
    for char in "abc":
        before = env.observe()["screenshot"]
        obs, _, _, _, info = env.step([TypeText(char)])
        assert info["settle_ms"] < 2000
        assert not np.array_equal(obs["screenshot"], before), "the observation does not show the typed character"
        time.sleep(0.3)
        assert np.array_equal(obs["screenshot"], env.observe()["screenshot"]), "the screen changed after settling"


@needs_x
def test_files_are_confined_to_home(env: EnvClient) -> None:
    home = env.session("run_command", command="pwd")["stdout"].strip()
    env.session("write_file", path=f"{home}/inside.txt", content="ok")
    assert read(env, "inside.txt") == "ok"
    env.session("run_command", command="ln -s /etc evil")
    for bad in ["../x", "/etc/passwd", "evil/passwd"]:
        with pytest.raises(RemoteError, match="outside the environment's home"):
            read(env, bad)
    for bad in ["../x", "/etc/cua-escape", "evil/cua-escape"]:
        with pytest.raises(RemoteError, match="outside the environment's home"):
            env.session("write_file", path=bad, content="x")
    assert not os.path.exists("/etc/cua-escape")
    # /tmp is the environment's own tmp folder, never the host's
    env.session("write_file", path="/tmp/cua-escape", content="x")
    assert not os.path.exists("/tmp/cua-escape")
    assert env.session("run_command", command='cat "$TMPDIR/cua-escape"')["stdout"] == "x"


@needs_x
def test_run_command_is_bounded(env: EnvClient) -> None:
    result = env.session("run_command", command="echo $HOME; echo oops >&2; exit 3")
    assert result["returncode"] == 3 and result["stderr"] == "oops\n"
    assert result["stdout"].strip().endswith("/home")
    started = time.monotonic()
    assert env.session("run_command", command="sleep 30 & echo bg")["stdout"] == "bg\n"  # background: no wait
    result = env.session("run_command", command="sleep 30", timeout=0.3)
    assert result["returncode"] == 124 and "timeout" in result["stderr"]
    assert time.monotonic() - started < 5


@needs_x
def test_reset_kills_apps_and_restores_home(env: EnvClient, root: Path) -> None:
    env.session("launch", app="xterm")
    env.session("write_file", path="junk/file.txt", content="x")
    env.session("run_command", command="setsid sleep 300 >/dev/null 2>&1 < /dev/null &")
    env_dir = root / f"env-{env.info()['pid']}"
    assert len(marked(env_dir)) >= 4  # Xvfb, openbox, xterm (and its shell), the escaped sleep
    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
    assert env.session("windows") == []
    assert env.session("run_command", command="ls -A")["stdout"] == "conformance.txt\n"
    assert len(marked(env_dir)) == 3  # Xvfb, openbox and the env's session bus only


@needs_x
def test_session_extras_in_process(root: Path) -> None:
    """Clipboard, window activation and closing, held keys and refused actions, on a session in this process."""
    from cua_bench.backends.local.session import LocalSession  # needs python-xlib: only where it runs

    async def until(check: Callable[[], Any], timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not await check():
            assert time.monotonic() < deadline, f"not true within {timeout} s"
            await asyncio.sleep(0.02)

    async def scenario() -> Path:
        session = LocalSession.start(640, 480)
        try:
            await session.set_clipboard("héllo wörld")
            assert await session.clipboard() == "héllo wörld"
            first = await session.launch("xterm")
            second = await session.launch("xterm", args=["-T", "second"])
            assert [w["title"] for w in await session.windows()] == ["second", "xterm"]  # front to back
            await session.activate(first)

            async def first_focused() -> bool:
                return [w["id"] for w in await session.windows() if w["focused"]] == [first]

            await until(first_focused)
            errors = await session.apply(
                [Pinch(Point(500, 500), 2.0), SystemButton("home"), Scroll("down", 3, Point(100, 100)),
                 Drag(Point(10, 10), Point(20, 20)), Wait(0.01), KeyDown("shift"), KeyDown("shift"), KeyUp("shift"),
                 OpenApp("xterm")]
            )  # fmt: skip
            assert [e.split(":")[0] if e else e for e in errors] == [
                "pinch", "system_button", None, None, None, None, "key_down", None, "open_app"
            ]  # fmt: skip
            assert 0 < await session.settle() < 2.5
            await session.close_window(second)

            async def one_left() -> bool:
                return len(await session.windows()) == 1

            await until(one_left)
            await session.reset()
            assert await session.windows() == []
            assert await session.clipboard() == ""
            return session.root
        finally:
            session.close()

    assert not asyncio.run(scenario()).exists()


@needs_x
def test_set_clipboard_returns_once_the_new_text_reads_back(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """xclip exits before its forked child owns the selection, so a read straight after could get
    the old text; here an xclip whose child takes it a second late, as one can on a busy machine."""
    from cua_bench.backends.local.session import LocalSession

    real = shutil.which("xclip")
    assert real is not None, "the local backend's clipboard needs xclip (scripts/system-deps.sh installs it)"
    late = tmp_path / "bin" / "xclip"
    late.parent.mkdir()
    late.write_text(
        f"""#!/bin/bash
case " $* " in
  *" -i "*) for last; do :; done; copy=$(mktemp); cp "$last" "$copy"
    (sleep 1; {real} -selection clipboard -i "$copy"; rm -f "$copy") </dev/null >/dev/null 2>&1 &
    exit 0;;
esac
exec {real} "$@"
"""
    )
    late.chmod(0o755)
    monkeypatch.setenv("PATH", f"{late.parent}:{os.environ['PATH']}")

    async def scenario() -> None:
        session = LocalSession.start(320, 240)
        try:
            await session.set_clipboard("first")
            await session.set_clipboard("second")
            assert await session.clipboard() == "second"
        finally:
            session.close()

    asyncio.run(scenario())


@needs_x
def test_the_reset_hook_runs_at_every_reset_and_its_failure_is_an_error_naming_it(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CUA_LOCAL_RESET_HOOK puts back machine state a task changed as root (the docker osworld image's time
    zone): it runs at each reset, and a hook that fails must stop the reset, not leave last episode's state."""
    from cua_bench.backends.local.session import LocalSession
    from cua_core.errors import CuaError

    count = tmp_path / "resets"
    monkeypatch.setenv("CUA_LOCAL_RESET_HOOK", f"echo reset >> {count}")

    async def scenario() -> None:
        session = LocalSession.start(320, 240)
        try:
            await session.reset()
            await session.reset()
            assert count.read_text() == "reset\nreset\n"
            monkeypatch.setenv("CUA_LOCAL_RESET_HOOK", "echo cannot put the zone back >&2; exit 3")
            with pytest.raises(CuaError, match=r"CUA_LOCAL_RESET_HOOK \(.*\) exited 3 at reset: cannot put the zone"):
                await session.reset()
        finally:
            session.close()

    asyncio.run(scenario())


@needs_x
@pytest.mark.skipif(shutil.which("chromium") is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_chromium_starts_under_a_deep_env_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium's singleton socket goes under $TMPDIR, and a deep CUA_LOCAL_ROOT made that path too long:
    Chromium died with SIGTRAP ("Socket path too long") on every task. Apps get a short link to tmp.
    Deeper still, dbus-daemon refused ROOT/env-N/bus (over 99 bytes) and no environment started: the
    bus gets an abstract socket there."""
    from cua_bench.backends.local.session import LocalSession

    # As under pytest-xdist (/tmp/pytest-of-root/pytest-N/popen-gw0/...), and some more.
    deep = tmp_path / "desktop-envs0" / ("d" * max(1, 100 - len(str(tmp_path))))
    deep.mkdir(parents=True)
    monkeypatch.setenv("CUA_LOCAL_ROOT", str(deep))

    async def scenario() -> Path:
        session = LocalSession.start(640, 480)
        try:
            assert len(str(session.tmp)) > 70  # too deep for the socket without the link
            assert len(str(session.root / "bus")) > 99  # too deep for dbus-daemon's path
            assert session.env["DBUS_SESSION_BUS_ADDRESS"].startswith("unix:abstract=")
            profile = session.home / "profile"
            # What is tested is that it starts at all (it died at once before): a cold Chromium beside the
            # suite's other two workers took over the default 10 s to draw its window in a CI run.
            args = ["--no-sandbox", f"--user-data-dir={profile}", "about:blank"]
            await session.launch("chromium", args=args, timeout=60)
            from cua_bench.backends.local.apps import tmp_link

            assert tmp_link(session.root).is_symlink()
            return session.root
        finally:
            session.close()

    root = asyncio.run(scenario())
    from cua_bench.backends.local.apps import tmp_link

    assert not tmp_link(root).is_symlink()  # removed with the environment


def test_an_unchanged_screen_is_not_encoded_again(root: Path) -> None:
    from cua_bench.backends.local.session import LocalSession

    async def scenario() -> None:
        session = LocalSession.start(320, 240)
        try:
            first = await session.screenshot()
            assert await session.screenshot() is first  # the same screen: the PNG kept, not encoded again
            await session.launch("xterm")
            deadline = time.monotonic() + 10
            while (shot := await session.screenshot()) == first:
                assert time.monotonic() < deadline, "the xterm never showed"
                await asyncio.sleep(0.05)
            await session.settle()
            shot = await session.screenshot()
            frame = session.frame()
            assert frame is not None
            assert np.array_equal(np.asarray(Image.open(io.BytesIO(shot)).convert("RGB")), frame)
        finally:
            session.close()

    asyncio.run(scenario())


def test_reset_disconnects_a_window_of_a_client_that_is_not_its_process(root: Path) -> None:
    from cua_bench.backends.local.session import LocalSession

    async def scenario() -> None:
        session = LocalSession.start(320, 240)
        env = {k: v for k, v in session.env.items() if k != MARKER}  # not marked: kill_all cannot find it
        stranger = subprocess.Popen(["xterm", "-T", "stranger"], env=env, start_new_session=True)
        try:
            deadline = time.monotonic() + 10
            while [w["title"] for w in await session.windows()] != ["stranger"]:
                assert time.monotonic() < deadline, "the xterm never showed"
                await asyncio.sleep(0.05)
            await session.reset()  # not one of its apps: kill_all misses it, so its X connection is cut
            assert await session.windows() == []
            stranger.wait(10)  # it exits once the X server has closed its connection
        finally:
            if stranger.poll() is None:
                stranger.kill()
                stranger.wait()
            session.close()

    asyncio.run(scenario())


@needs_x
def test_a_core_x_error_arrives_as_itself_not_as_python_xlibs_randr_class(root: Path) -> None:
    """python-xlib files RandR's errors under the bare numbers 1 and 2, which are the core BadRequest
    and BadValue: killing a client that had just gone then failed a reset with "'BadRRModeError'
    object has no attribute 'sequence_number'" (4 OSWorld resets on docker)."""
    from Xlib import error

    from cua_bench.backends.local.session import LocalSession

    session = LocalSession.start(320, 240)
    try:
        conn = session.conn
        assert conn.query_extension("RANDR") is not None  # what loads the wrong table
        seen: list[Any] = []
        conn.set_error_handler(lambda err, request: seen.append(err))
        conn.create_resource_object("window", 0x1FFFFFFF).kill_client()  # no such resource: BadValue
        conn.sync()
        assert [type(err) for err in seen] == [error.BadValue]
        conn.screen().root.get_geometry()  # the connection goes on
    finally:
        session.close()


@needs_x
def test_accessibility_tree_through_atspi(root: Path) -> None:
    """A real GTK app's widgets, with bounds that are action coordinates, and OSWorld's XML of them."""
    from cua_bench.backends.local.session import LocalSession

    def nodes(tree: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [n for top in tree for n in walk(top)]

    def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield node
        for child in node["children"]:
            yield from walk(child)

    async def scenario() -> Path:
        session = LocalSession.start(800, 600)
        try:
            await session.launch("xterm")
            await session.launch("mousepad")
            await session.apply([TypeText("hello a11y")])
            await session.settle()
            tree = await session.accessibility_tree()
            assert [(top["role"], top["app"]) for top in tree] == [("window", "mousepad"), ("window", "xterm")]
            assert tree[1]["children"] == []  # xterm has no accessibility: a bare window node
            text = [n for n in nodes(tree[:1]) if n["role"] == "text" and "editable" in n["states"]]
            assert [n["value"] for n in text] == ["hello a11y"]
            file_menu = next(n for n in nodes(tree) if n["role"] == "menu" and n["name"] == "File")
            left, top, right, bottom = file_menu["bounds"]
            assert not any(n["role"] == "menu item" for n in nodes(tree))  # closed menus are not shown
            await session.apply([Click(Point((left + right) / 2, (top + bottom) / 2))])
            await session.settle()
            items = [n["name"].strip() for n in nodes(await session.accessibility_tree()) if n["role"] == "menu item"]
            assert "Save" in items and "Quit" in items  # the click at the node's centre opened that menu

            check = official_metrics().functions.get("check_accessibility_tree")
            if check is not None:  # OSWorld's own metric on our XML of a real app
                xml = to_osworld_xml(tree, 800, 600)
                assert check(xml, [{"selectors": ['application[name="mousepad"] menu[name="File"]']}]) == 1.0
                assert check(xml, [{"xpath": "//text", "text": "hello a11y", "exact": True}]) == 1.0

            for _ in range(2):  # reset kills the accessibility bus with the apps; the next app gets a new one
                await session.reset()
                await session.launch("gnumeric")
                assert any(n["role"] == "menu" for n in nodes(await session.accessibility_tree()))
            await session.reset()
            assert await session.accessibility_tree() == []
            return session.root
        finally:
            session.close()

    env_dir = asyncio.run(scenario())
    assert not env_dir.exists()
    assert marked(env_dir) == []


@needs_x
def test_kill_9_of_the_server_takes_its_display_along(root: Path) -> None:
    backend = LocalBackend()
    computer = backend.provision(width=640, height=480)
    env_dir = Path(computer.info["root"])
    number, xvfb = (int(v) for v in (env_dir / "display").read_text().split())
    with EnvClient(computer.address) as env:
        env.session("launch", app="xterm")
    assert alive(xvfb)
    os.kill(computer.info["pid"], signal.SIGKILL)
    computer.handle.wait()
    eventually(lambda: not alive(xvfb), timeout=3)
    eventually(lambda: not os.path.exists(f"/tmp/.X11-unix/X{number}"), timeout=3)
    backend.teardown(computer)  # removes what the server could not: its folder, detached processes
    assert not env_dir.exists()
    assert marked(env_dir) == []


def _identity(path: str) -> tuple[int, int]:
    status = os.stat(path)
    return status.st_ino, status.st_ctime_ns


@needs_x
def test_a_crashed_xvfb_leaves_no_socket(root: Path) -> None:
    backend = LocalBackend()
    computer = backend.provision(width=640, height=480)
    number, xvfb = (int(v) for v in (Path(computer.info["root"]) / "display").read_text().split())
    os.kill(xvfb, signal.SIGKILL)
    eventually(lambda: not alive(xvfb), timeout=3)
    socket = f"/tmp/.X11-unix/X{number}"
    stale = _identity(socket)  # SIGKILL: Xvfb could not remove it
    backend.teardown(computer)
    # Removed; a socket there now is another display's: a parallel test's Xvfb may take the free
    # number at once, and the file system may give its socket the inode number just freed (CI saw
    # it), so identity is the inode with its change time.
    assert not os.path.exists(socket) or _identity(socket) != stale
    assert marked(Path(computer.info["root"])) == []


@needs_x
def test_parallel_environments_get_their_own_display(root: Path) -> None:
    backend = LocalBackend()

    def one(index: int) -> tuple[Computer, str, str]:
        computer = backend.provision(width=640, height=480)
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none", "max_steps": 10})
            env.session("launch", app="xterm")
            env.step([TypeText(f"echo env{index} > who.txt", press_enter=True)])
            who = eventually(lambda: read(env, "who.txt"))
        return computer, (Path(computer.info["root"]) / "display").read_text().split()[0], who

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(one, range(3)))
    try:
        assert len({display for _, display, _ in results}) == 3
        assert [who for _, _, who in results] == ["env0\n", "env1\n", "env2\n"]
    finally:
        for computer, _, _ in results:
            backend.teardown(computer)


@needs_x
@pytest.mark.slow
def test_20_cycles_leave_nothing_behind(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = root / "cycles"  # apart from the module's computer, which is still running
    monkeypatch.setenv("CUA_LOCAL_ROOT", str(root))
    backend = LocalBackend()
    displays: list[tuple[int, int]] = []
    for cycle in range(20):  # every leak is per cycle: 20 show it (50 took 39 s of CI)
        computer = backend.provision(width=640, height=480)
        env_dir = Path(computer.info["root"])
        number, xvfb = (int(v) for v in (env_dir / "display").read_text().split())
        displays.append((number, xvfb))
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            env.session("run_command", command="setsid sleep 300 >/dev/null 2>&1 < /dev/null &")
            if cycle % 10 == 0:
                env.session("launch", app="xterm")
            if cycle % 10 == 5:  # a GTK app: the bus activates the accessibility bus and registry
                env.session("launch", app="mousepad")
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
        backend.teardown(computer)
        assert computer.handle.poll() is not None
    assert marked(root) == []
    assert not root.exists() or list(root.iterdir()) == []
    for number, xvfb in displays:
        assert not alive(xvfb)
        # The socket is gone, unless another server (the module's computer) holds that number now.
        assert not os.path.exists(f"/tmp/.X11-unix/X{number}") or _listening(number)
