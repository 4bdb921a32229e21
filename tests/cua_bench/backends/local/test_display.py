"""The local backend's display: the window manager's own key bindings (``CUA_LOCAL_KEYBINDS``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cua_bench.backends.base import BackendError
from cua_bench.backends.local import LocalBackend, unavailable
from cua_bench.backends.local.apps import child_env, remove_env_root
from cua_bench.backends.local.display import KEYBINDS, openbox_rc, start_desktop
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK
from cua_core.actions import KeyPress

PROBLEM = unavailable()


def test_openbox_binds_the_keys_it_is_given_and_nothing_by_default() -> None:
    assert "<keyboard></keyboard>" in openbox_rc() == openbox_rc("") == openbox_rc(" ; ")
    rc = openbox_rc("C-A-t=gnome-terminal; W-e = sh -c 'echo a && echo b'")
    assert '<keybind key="C-A-t"><action name="Execute"><command>gnome-terminal</command>' in rc
    assert "<command>sh -c 'echo a &amp;&amp; echo b'</command>" in rc  # escaped for the XML


@pytest.mark.parametrize("bad", ["ctrl+alt+t=gnome-terminal", "C-A-t", "C-A-t=", "=xterm", "C-A-<t>=xterm"])
def test_a_binding_openbox_cannot_read_is_refused_naming_the_format(bad: str) -> None:
    with pytest.raises(BackendError, match=f"{KEYBINDS}: .* is not KEY=COMMAND .* C-A-t=gnome-terminal"):
        openbox_rc(bad)


@pytest.mark.skipif(PROBLEM is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {PROBLEM}")
def test_a_bound_key_runs_its_command_in_the_environment_with_its_session_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the key starts is the environment's (its home, its session bus, so GNOME Terminal's server is
    activated on the bus the accessibility tree is read through), as the osworld image's ctrl+alt+t is."""
    monkeypatch.setenv(KEYBINDS, 'C-A-t=sh -c "echo $DBUS_SESSION_BUS_ADDRESS > $HOME/bound.txt"')
    backend = LocalBackend()
    computer = backend.provision(width=640, height=480)
    try:
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            assert not env.session("file_exists", path="bound.txt")
            env.step([KeyPress(("ctrl", "alt", "t"))])
            deadline = time.monotonic() + 10
            while not env.session("file_exists", path="bound.txt"):
                assert time.monotonic() < deadline, "the bound key ran nothing"
                time.sleep(0.05)
            address = str(env.session("read_file", path="bound.txt")).strip()
            assert address.startswith("unix:path=") and address.endswith("/bus"), address
    finally:
        backend.teardown(computer)


@pytest.mark.skipif(
    (PROBLEM is not None or shutil.which("xdotool") is None) and not os.environ.get("CI"),
    reason=f"local backend or xdotool unavailable: {PROBLEM}",
)
def test_the_desktop_is_ready_only_once_openbox_holds_its_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound key pressed the moment the desktop is up must not be lost (the osworld image's ctrl+alt+t
    right after a reset was): start_desktop returns only after openbox ran its startup command, which it
    does once its key bindings are grabbed."""
    pressed = tmp_path / "pressed"
    monkeypatch.setenv(KEYBINDS, f"C-A-t=touch {pressed}")
    for folder in ("home", "tmp", "run"):
        (tmp_path / folder).mkdir()
    env = child_env(tmp_path, tmp_path / "home", tmp_path / "tmp", tmp_path / "run", "")
    desktop = start_desktop(tmp_path, 320, 240, env)
    try:
        assert (tmp_path / "openbox-ready").exists()
        subprocess.run(["xdotool", "key", "ctrl+alt+t"], env={**env, "DISPLAY": desktop.display}, check=True)
        deadline = time.monotonic() + 10
        while not pressed.exists():
            assert time.monotonic() < deadline, "the key pressed first was lost"
            time.sleep(0.02)
    finally:
        desktop.stop()
        remove_env_root(tmp_path)  # and the short link child_env made to its deep tmp (Chromium's socket path)


def test_the_desktops_timeouts_scale_for_slow_cpus_and_a_bad_scale_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A TCG guest runs the same desktop several times slower: its env server is told so (the libvirt backend's
    seed sets it); a value that is no positive number is an error naming the variable, not a silent 1."""
    from cua_bench.backends.local.session import timeout_scale
    from cua_core import CuaError

    monkeypatch.delenv("CUA_LOCAL_TIMEOUT_SCALE", raising=False)
    assert timeout_scale() == 1.0
    monkeypatch.setenv("CUA_LOCAL_TIMEOUT_SCALE", "6")
    assert timeout_scale() == 6.0
    for bad in ("0", "-2", "slow", "nan"):
        monkeypatch.setenv("CUA_LOCAL_TIMEOUT_SCALE", bad)
        with pytest.raises(CuaError, match="CUA_LOCAL_TIMEOUT_SCALE"):
            timeout_scale()
