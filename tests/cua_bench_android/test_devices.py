"""Choosing the device, and adb's failures as errors that name the device and the fix.

The ``adb devices -l`` listings and adb's error lines were written from adb's documented output (fixtures/
README.md), not recorded from a device: none exists here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cua_bench import BackendError
from cua_bench_android import AndroidSession, choose_device, parse_devices
from cua_core import Point, Tap

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_listing_gives_serials_states_and_details() -> None:
    several = parse_devices((FIXTURES / "devices_several.txt").read_text())
    assert [(d.serial, d.state) for d in several] == [("emulator-5554", "device"), ("R58M41ABCDE", "device")]
    assert several[1].details == {
        "usb": "1-1", "product": "a54xnsxx", "model": "SM_A546B", "device": "a54x", "transport_id": "3",
    }  # fmt: skip
    assert parse_devices((FIXTURES / "devices_none.txt").read_text()) == []  # the daemon's start lines are not devices
    denied = parse_devices((FIXTURES / "devices_no_permissions.txt").read_text())
    assert [(d.serial, d.state, d.details) for d in denied] == [
        ("R58M41ABCDE", "no permissions", {"usb": "1-1", "transport_id": "3"})
    ]
    assert [(d.serial, d.state) for d in parse_devices("List of devices attached\nemulator-5556\toffline\n")] == [
        ("emulator-5556", "offline")
    ]  # `adb devices` without -l: a tab between serial and state


def test_the_only_device_is_chosen(adb: FakeAdb) -> None:
    adb.load(adb.devices("one"))
    assert choose_device(str(adb.path)) == "emulator-5554"
    assert adb.calls() == [["devices", "-l"]]
    adb.check()


def test_no_device_says_how_to_attach_one(adb: FakeAdb) -> None:
    adb.load(adb.devices("none"))
    with pytest.raises(
        BackendError, match=r"no Android device or emulator is attached .*`emulator -avd NAME`.*adb connect"
    ):
        choose_device(str(adb.path))


def test_several_devices_are_named_and_the_option_to_choose_one(adb: FakeAdb) -> None:
    adb.load(adb.devices("several"))
    with pytest.raises(BackendError) as caught:
        choose_device(str(adb.path))
    message = str(caught.value)
    assert "2 Android devices are attached" in message
    assert "emulator-5554 (device, sdk_gphone64_x86_64), R58M41ABCDE (device, SM_A546B)" in message
    assert "--backend-option serial=SERIAL (CUA_ANDROID_SERIAL)" in message


def test_a_serial_among_several_is_chosen(adb: FakeAdb) -> None:
    adb.load(adb.devices("several"))
    assert choose_device(str(adb.path), "R58M41ABCDE") == "R58M41ABCDE"


def test_a_serial_not_attached_names_what_is(adb: FakeAdb) -> None:
    adb.load(adb.devices("one"))
    with pytest.raises(BackendError, match=r"device 'pixel-7' \(CUA_ANDROID_SERIAL\) is not attached; `adb devices` "
                                           r"lists emulator-5554 \(device, sdk_gphone64_x86_64\)"):  # fmt: skip
        choose_device(str(adb.path), "pixel-7")


@pytest.mark.parametrize(
    ("listing", "serial", "fix"),
    [
        (
            "unauthorized",
            "R58M41ABCDE",
            r"is not ready \(adb says unauthorized\): .*accept the \"Allow USB debugging\?\" prompt.*adb devices",
        ),
        (
            "offline",
            "emulator-5554",
            r"is not ready \(adb says offline\): .*reconnect the cable or restart the emulator \(`adb reconnect`\)",
        ),
        ("no_permissions", "R58M41ABCDE", r"is not ready \(adb says no permissions\): .*udev rule.*plugdev"),
    ],
)
def test_a_device_that_is_not_ready_is_named_with_the_fix(adb: FakeAdb, listing: str, serial: str, fix: str) -> None:
    adb.load(adb.devices(listing))
    with pytest.raises(BackendError, match=rf"Android device '{serial}' {fix}"):
        choose_device(str(adb.path))


def test_a_missing_adb_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as caught:
        choose_device(str(tmp_path / "no-adb-here"))
    message = str(caught.value)
    assert "adb is not installed" in message and "no-adb-here" in message
    assert "apt-get install adb" in message and "platform-tools" in message and "CUA_ANDROID_ADB" in message


@pytest.mark.parametrize(
    ("said", "fix"),
    [
        ("adb: device offline\n", "reconnect the cable"),
        ("adb: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n", "Allow USB debugging"),
        ("adb: device 'emulator-5554' not found\n", "it is not attached: check `adb devices`"),
        ("error: device offline\n", "reconnect the cable"),  # older clients say "error:"
        ("adb: insufficient permissions for device: user in plugdev group; are your udev rules wrong?\n", "udev rule"),
    ],
)
def test_a_device_lost_during_an_episode_is_a_backend_error_naming_it(adb: FakeAdb, said: str, fix: str) -> None:
    adb.load(adb.connect(), adb.shell("input tap 540 1200", stderr=said, exit=1))
    session = AndroidSession.connect(str(adb.path))
    with pytest.raises(BackendError) as caught:
        asyncio.run(session.apply([Tap(Point(500, 500))]))
    assert "adb cannot reach Android device 'emulator-5554'" in str(caught.value)
    assert fix in str(caught.value)
