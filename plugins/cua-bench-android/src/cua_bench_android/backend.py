"""The ``android`` backend: a phone or an emulator that adb reaches, as one environment.

The env server runs on this host, as for ``sim`` and ``local`` (``python -m cua_bench.server --backend
android``); its session (``AndroidSession``) drives the device with adb's command line. Provisioning
chooses the device first (the ``serial`` option, else the only one ``adb devices`` lists), so that a
missing, unauthorized or offline device is refused before a server starts, names the device and says the
fix; the server is then told that serial. One environment per device at a time: a phone has one screen,
and two environments on it would act on each other's apps and score each other's work.
"""

from __future__ import annotations

import os
import shutil
import threading
from typing import Any

from cua_bench import Backend, BackendError, Computer, ProcessBackend, Session
from cua_bench.backend_kit import Capabilities, Option, hold_computer, hookimpl, provisioning, resolve_options
from cua_bench_android.adb import ADB_ENV, INSTALL_HINT, SERIAL_ENV
from cua_bench_android.devices import choose_device
from cua_core import CuaError, Register, RpcClient, RpcError

__all__ = ["AndroidBackend"]


class AndroidBackend(ProcessBackend):
    name = "android"
    # The device's shell (not root on a production build); apps are packages, launched by their name.
    capabilities = Capabilities(os="android", shell=True)
    options = (
        Option("serial", str, "", "the device to drive, as `adb devices` lists it (empty: the only one attached)",
               SERIAL_ENV),
        Option("adb", str, "adb", "the adb program: a name on PATH or a path", ADB_ENV),
    )  # fmt: skip

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._locks: dict[str, int] = {}  # env server address -> the fd holding its device's lock
        self._chosen = threading.local()  # the serial the server being started must drive

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        """Choose the device, hold it, start the env server on it; the computer's size is the device's screen
        (``width`` and ``height`` cannot change a phone's).

        Raises:
            BackendError: adb is missing, the device is not attached or not ready (the message says the fix),
                it serves another environment already, or the server did not start.
        """
        serial = choose_device(self.option("adb"), self.option("serial"))
        with provisioning() as undo:
            lock = _lock(serial)
            undo.callback(os.close, lock)
            self._chosen.serial = serial
            try:
                computer = super().provision(width=width, height=height, timeout=timeout)
            finally:
                self._chosen.serial = None
            undo.callback(ProcessBackend.teardown, self, computer)
            computer.width, computer.height = _screen(computer.address, timeout)
        computer.info["serial"] = serial
        self._locks[computer.address] = lock
        return computer

    def server_env(self) -> dict[str, str] | None:
        """The server's environment, naming the device provisioning chose (it would choose again otherwise,
        and a device plugged in meanwhile would make that choice fail)."""
        env = super().server_env()
        serial = getattr(self._chosen, "serial", None)
        if not serial:
            return env
        return {**(env if env is not None else os.environ), SERIAL_ENV: serial}

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        try:
            super().teardown(computer, timeout=timeout)
        finally:
            lock = self._locks.pop(computer.address, None)
            if lock is not None:
                os.close(lock)

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """The device's session (in the env server): its own screen size, whatever ``width`` and ``height`` say."""
        from cua_bench_android.session import AndroidSession

        options = resolve_options(cls, {})
        return AndroidSession.connect(options["adb"], options["serial"])

    @classmethod
    def unavailable(cls) -> str | None:
        """Why no environment can start on this host, without asking a device (backend choice asks): no adb."""
        try:
            adb = str(resolve_options(cls, {}, ("adb",))["adb"])
        except CuaError as exc:  # a variable of the wrong type (OptionError): its message says which
            return str(exc)
        if shutil.which(adb) is None:
            return f"adb is not installed ({adb!r} is not on PATH): {INSTALL_HINT}"
        return None


def _screen(address: str, timeout: float) -> tuple[int, int]:
    """The size the server's session reports: the device's screen."""
    try:
        with RpcClient(address, timeout=timeout, heartbeat_timeout=timeout, retries=0) as client:
            info = client.call("info")
    except RpcError as exc:
        raise BackendError(f"the android env server at {address} did not say its screen size: {exc}") from exc
    return int(info["width"]), int(info["height"])


def _lock(serial: str) -> int:
    """Hold device ``serial`` for one environment (across processes of this host)."""
    return hold_computer(
        "android",
        serial,
        f"Android device {serial!r} already serves an environment (it has one screen): run one at a time "
        f"(--max-parallel 1), or attach another device and give each environment its serial ({SERIAL_ENV})",
    )


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("android", AndroidBackend)
