"""Apps, files, commands, windows and reset on the device, each as the exact adb command lines it sends.

The answers (``monkey``'s, ``am start``'s, ``adb install``'s, ``dumpsys window``'s focus line, toybox's
complaints) were written from their documented or widely published output (fixtures/README.md), not
recorded from a device: none exists here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cua_bench import CommandFailed, NotSupported
from cua_bench_android import AndroidSession, InstallError, LaunchError, device_path
from cua_core import OpenApp, Point, Tap

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

FOCUS = "dumpsys window | grep mCurrentFocus"
MONKEY = "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1"


def session(adb: FakeAdb, *entries: dict[str, Any] | list[dict[str, Any]]) -> AndroidSession:
    adb.load(adb.connect(), *entries)
    return AndroidSession.connect(str(adb.path))


def device_commands(adb: FakeAdb) -> list[str]:
    """What was run in the device's shell after the session started (each call's last word)."""
    calls = adb.calls()[2:]
    assert all(call[:3] == ["-s", "emulator-5554", "shell"] and len(call) == 4 for call in calls), calls
    return [call[3] for call in calls]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- apps --------------------------------------------------------------------------------------------


def test_launch_starts_the_launcher_activity_and_waits_for_the_focus(adb: FakeAdb) -> None:
    device = session(adb, adb.shell(MONKEY, file="monkey_ok.txt"), adb.shell(FOCUS, file="focus_launcher.txt"),
                     adb.shell(FOCUS, file="focus_settings.txt"))  # fmt: skip
    assert run(device.launch("com.android.settings")) == "com.android.settings"
    assert device_commands(adb) == [MONKEY, FOCUS, FOCUS]
    adb.check()


def test_open_app_launches_a_package_and_refuses_a_label_or_a_missing_app(adb: FakeAdb) -> None:
    """The agent's open_app is launch's: a package starts and gets the focus; a label cannot be looked up
    through adb, and a missing package is monkey's words, each a reason the agent reads."""
    missing = "monkey -p com.example.missing -c android.intent.category.LAUNCHER 1"
    device = session(adb, adb.shell(MONKEY, file="monkey_ok.txt"), adb.shell(FOCUS, file="focus_settings.txt"),
                     adb.shell(missing, file="monkey_aborted.txt"))  # fmt: skip
    label, gone = OpenApp("Settings"), OpenApp("com.example.missing")
    assert run(device.apply([OpenApp("com.android.settings")])) == [None]
    [why] = run(device.apply([label]))
    assert (
        why is not None and why.startswith("open_app: 'Settings' is not a package name") and "pm list packages" in why
    )
    [why] = run(device.apply([gone]))
    assert why is not None and why.startswith("open_app: cannot start com.example.missing") and "monkey aborted" in why
    assert device_commands(adb) == [MONKEY, FOCUS, missing]  # nothing sent for the label
    adb.check()


def test_launch_an_activity(adb: FakeAdb) -> None:
    start = "am start -n com.android.settings/.wifi.WifiSettings"
    device = session(adb, adb.shell(start, file="am_start_ok.txt"), adb.shell(FOCUS, file="focus_settings.txt"))
    assert run(device.launch("com.android.settings", activity=".wifi.WifiSettings")) == "com.android.settings"
    assert device_commands(adb) == [start, FOCUS]


def test_launch_a_component_named_whole(adb: FakeAdb) -> None:
    start = "am start -n com.android.settings/.Nope"
    device = session(adb, adb.shell(start, file="am_start_error.txt"))
    with pytest.raises(LaunchError, match=r"(?s)cannot start com.android.settings/.Nope on emulator-5554: is it installed "
                                          r".* with that activity\? .*Error: Activity class"):  # fmt: skip
        run(device.launch("com.android.settings/.Nope"))


def test_launch_of_a_missing_package_says_monkeys_words(adb: FakeAdb) -> None:
    monkey = "monkey -p com.example.missing -c android.intent.category.LAUNCHER 1"
    device = session(adb, adb.shell(monkey, file="monkey_aborted.txt"))
    with pytest.raises(LaunchError) as caught:
        run(device.launch("com.example.missing"))
    message = str(caught.value)
    assert "`adb shell pm list packages com.example.missing`" in message and "with a launcher activity" in message
    assert message.endswith("** No activities found to run, monkey aborted.")
    assert device_commands(adb) == [monkey]  # no wait for a focus that cannot come


def test_launch_that_never_gets_the_focus_times_out_naming_the_focus(adb: FakeAdb) -> None:
    device = session(adb, adb.shell(MONKEY, file="monkey_ok.txt"), adb.shell(FOCUS, file="focus_statusbar.txt",
                                                                               repeat=True))  # fmt: skip
    with pytest.raises(LaunchError, match=r"did not come to the front within 0.5 s \(the focus is on StatusBar\)"):
        run(device.launch("com.android.settings", timeout=0.5))


def test_launch_refuses_parameters_it_does_not_take(adb: FakeAdb) -> None:
    device = session(adb)
    with pytest.raises(NotSupported, match="launch on android takes activity= and timeout=, not args"):
        run(device.launch("com.android.settings", args=["--x"]))
    assert device_commands(adb) == []


def test_windows_is_the_focused_app(adb: FakeAdb) -> None:
    device = session(adb, adb.shell(FOCUS, file="focus_settings.txt"), adb.shell(FOCUS, exit=1))
    assert run(device.windows()) == [{
        "id": "com.android.settings", "title": "com.android.settings/com.android.settings.Settings",
        "app": "com.android.settings", "bounds": [0.0, 0.0, 1000.0, 1000.0], "focused": True,
    }]  # fmt: skip
    assert run(device.windows()) == []  # grep found no focus line (the screen is off): no window


def test_install_apk_replaces_and_checks_success(adb: FakeAdb, tmp_path: Path) -> None:
    apk = tmp_path / "app.apk"
    apk.write_bytes(b"PK\x03\x04 an apk")
    device = session(adb, adb.entry(["-s", "emulator-5554", "install", "-r", str(apk)], file="install_success.txt"))
    run(device.install_apk(apk))
    adb.check()


def test_install_apk_failure_quotes_adb(adb: FakeAdb, tmp_path: Path) -> None:
    apk = tmp_path / "app.apk"
    apk.write_bytes(b"PK\x03\x04 an apk")
    device = session(adb, adb.entry(["-s", "emulator-5554", "install", "-r", str(apk)], stderr=(
        adb.fixtures / "install_failure.txt").read_text(), exit=1))  # fmt: skip
    with pytest.raises(InstallError, match=r"adb install -r .*app.apk failed on emulator-5554: adb: failed to install "
                                           r".*INSTALL_FAILED_OLDER_SDK"):  # fmt: skip
        run(device.install_apk(apk))


def test_install_apk_of_no_file(adb: FakeAdb, tmp_path: Path) -> None:
    device = session(adb)
    with pytest.raises(FileNotFoundError, match="no APK at"):
        run(device.install_apk(tmp_path / "none.apk"))
    assert device_commands(adb) == []


# -- commands ----------------------------------------------------------------------------------------


def test_run_command_is_adb_shell_from_the_home(adb: FakeAdb) -> None:
    device = session(adb, adb.shell("cd /sdcard || exit 1\nls Download; echo oops >&2", "a.txt\n", stderr="oops\n",
                                    exit=3))  # fmt: skip
    result = run(device.run_command("ls Download; echo oops >&2"))
    assert (result.returncode, result.stdout, result.stderr) == (3, "a.txt\n", "oops\n")
    assert (result["return_code"], result["success"]) == (3, False)
    adb.load(adb.shell("cd /sdcard || exit 1\nfalse", exit=1))
    with pytest.raises(CommandFailed):
        run(device.run_command("false", check=True))


def test_run_command_past_its_timeout_is_code_124(adb: FakeAdb) -> None:
    device = session(adb, adb.shell("cd /sdcard || exit 1\nsleep 30", sleep=5))
    result = run(device.run_command("sleep 30", timeout=0.5))
    assert (result.returncode, result.stderr) == (124, "timed out after 0.5 s on emulator-5554")


# -- files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "on_device"),
    [
        ("notes.txt", "/sdcard/notes.txt"), ("~", "/sdcard"), ("~/Download/a b.txt", "/sdcard/Download/a b.txt"),
        ("/tmp/x", "/data/local/tmp/x"), ("/tmp", "/data/local/tmp"), ("/tmpfile", "/tmpfile"),
        ("/data/local/tmp/y", "/data/local/tmp/y"),
    ],
)  # fmt: skip
def test_paths_on_the_device(path: str, on_device: str) -> None:
    assert device_path(path) == on_device


def test_write_then_read_a_file(adb: FakeAdb) -> None:
    device = session(
        adb,
        adb.shell("mkdir -p '/sdcard/Download/My Notes' && cat > '/sdcard/Download/My Notes/a.txt'"),
        adb.shell("cat '/sdcard/Download/My Notes/a.txt'", "héllo\n"),
    )
    run(device.write_file("Download/My Notes/a.txt", "héllo\n"))
    assert run(device.read_file("Download/My Notes/a.txt")) == "héllo\n"
    assert adb.stdins()[2] == "héllo\n".encode()  # the content went through adb's stdin
    adb.check()


@pytest.mark.parametrize(
    ("said", "error"),
    [
        ("cat: /sdcard/none.txt: No such file or directory\n", FileNotFoundError),
        ("cat: /sdcard/none.txt: Is a directory\n", IsADirectoryError),
        ("cat: /sdcard/none.txt: Not a directory\n", NotADirectoryError),
        ("cat: /sdcard/none.txt: Permission denied\n", PermissionError),
    ],
)
def test_read_errors_are_pythons(adb: FakeAdb, said: str, error: type[OSError]) -> None:
    device = session(adb, adb.shell("cat /sdcard/none.txt", stderr=said, exit=1))
    with pytest.raises(error, match=r"/sdcard/none\.txt on the device"):
        run(device.read_bytes("none.txt"))


def test_writing_over_a_folder_is_an_is_a_directory_error(adb: FakeAdb) -> None:
    said = "/system/bin/sh: can't create /sdcard/Download: Is a directory\n"
    device = session(adb, adb.shell("mkdir -p /sdcard && cat > /sdcard/Download", stderr=said, exit=1))
    with pytest.raises(IsADirectoryError):
        run(device.write_file("Download", b"x"))


def test_exists_and_listing(adb: FakeAdb) -> None:
    device = session(
        adb,
        adb.shell("test -f /sdcard/a.txt"),
        adb.shell("test -f /sdcard/Download", exit=1),
        adb.shell("test -d /sdcard/Download"),
        adb.shell("cd /sdcard/Download && ls -a", ".\n..\nb.pdf\n.hidden\na.txt\n"),
        adb.shell("cd /sdcard/none && ls -a", stderr="/system/bin/sh: cd: /sdcard/none: No such file or directory\n",
                  exit=2),
    )  # fmt: skip
    assert run(device.file_exists("a.txt")) is True
    assert run(device.file_exists("Download")) is False
    assert run(device.directory_exists("Download")) is True
    assert run(device.list_dir("Download")) == [".hidden", "a.txt", "b.pdf"]
    with pytest.raises(FileNotFoundError):
        run(device.list_dir("none"))
    adb.check()


# -- episodes ----------------------------------------------------------------------------------------


def test_reset_stops_the_episodes_apps_and_goes_home(adb: FakeAdb) -> None:
    device = session(
        adb,
        adb.shell(MONKEY, file="monkey_ok.txt"),
        adb.shell(FOCUS, file="focus_settings.txt"),
        adb.shell("am force-stop com.android.settings; input keyevent KEYCODE_WAKEUP; input keyevent KEYCODE_HOME"),
        adb.shell("input keyevent KEYCODE_WAKEUP; input keyevent KEYCODE_HOME"),
    )
    run(device.launch("com.android.settings"))
    run(device.reset())
    run(device.reset())  # the next episode launched nothing: nothing to stop
    adb.check()


def test_settle_waits_only_after_input(adb: FakeAdb) -> None:
    device = session(adb, adb.shell("input tap 540 1200"))
    assert run(device.settle()) == 0.0
    assert run(device.apply([Tap(Point(500, 500))])) == [None]
    assert run(device.settle()) == 0.3
    assert run(device.settle()) == 0.0
