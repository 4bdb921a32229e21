"""``--variant osworld``: OSWorld's computer in a machine (qemu:///system). The env server runs as ``user`` with
/home/user, sudo takes OSWorld's password, pyautogui drives the display, the clock's zone is not UTC and
every reset puts it back (the kit's ``reset-machine``), as in the docker backend's osworld image.

CI builds the variant with the small desktop and OSWorld's computer alone (conftest's ``computer_root``), not
OSWorld's apps nor its metric modules, which take many minutes more on two cores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench import EnvClient, client_for
from cua_bench.conformance import CONFORMANCE_TASK
from cua_bench_libvirt import VARIANTS, LibvirtBackend, current_image

pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(1800), pytest.mark.usefixtures("session_keys")]


@pytest.fixture(scope="module")
def env(system_libvirt: str, computer_root: Path) -> Iterator[EnvClient]:
    backend = LibvirtBackend(uri=system_libvirt, images=str(computer_root), variant="osworld", memory=1024, cpus=1)
    backend.run_id = "libvirt-osworld-tests"
    computer = backend.provision(width=800, height=600)
    try:
        with client_for(computer, step_timeout=120) as client:
            client.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            yield client
    finally:
        backend.teardown(computer)


def run(env: EnvClient, command: str) -> dict[str, Any]:
    result: dict[str, Any] = env.session("run_command", command=command, timeout=60)
    return result


def test_the_variant_is_osworlds_computer_with_its_apps() -> None:
    chosen = VARIANTS["osworld"]
    assert chosen.computer and chosen.metrics
    assert {"libreoffice-calc", "gimp", "vlc", "thunderbird", "chromium", "sudo", "gnome-terminal"} <= set(
        chosen.packages
    )


def test_the_server_and_commands_are_user_in_home_user(env: EnvClient, computer_root: Path) -> None:
    image = current_image(computer_root, "osworld")
    assert image is not None and image.info["computer"] is True
    user, home, cwd, display = run(env, 'id -un; echo "$HOME"; pwd; echo "$DISPLAY"')["stdout"].split("\n")[:4]
    assert (user, home, cwd) == ("user", "/home/user", "/home/user") and display.startswith(":")
    server = 'ps -eo user=,args= | awk \'$2 == "/opt/cua/venv/bin/python" && $4 == "cua_bench.server" {print $1}\''
    assert run(env, server)["stdout"].split() == ["user"]  # runuser stays root, as its parent
    env.session("write_file", path="/home/user/Desktop/from-session.txt", content="hello\n")
    assert run(env, "stat -c %U /home/user/Desktop/from-session.txt")["stdout"].strip() == "user"


def test_sudo_takes_osworlds_password_and_user_alone_is_not_root(env: EnvClient) -> None:
    made = run(env, "echo password | sudo -S mkdir -p /opt/made-by-sudo && stat -c %U /opt/made-by-sudo")
    assert (made["returncode"], made["stdout"].strip()) == (0, "root"), made
    assert run(env, "touch /opt/plain")["returncode"] != 0


def test_pyautogui_drives_the_display(env: EnvClient) -> None:
    code = "import pyautogui; print(*pyautogui.size()); pyautogui.moveTo(123, 234)"
    seen = run(env, f'python -c "{code}" && xdotool getmouselocation --shell')
    assert seen["returncode"] == 0, seen
    lines = seen["stdout"].split()
    assert lines[:2] == ["800", "600"] and "X=123" in lines and "Y=234" in lines


def test_the_zone_is_not_utc_and_every_reset_puts_it_back(env: EnvClient) -> None:
    assert run(env, "date +%z")["stdout"].strip() == "+0800"
    assert run(env, "sudo timedatectl set-timezone UTC")["returncode"] == 0
    assert run(env, "date +%z")["stdout"].strip() == "+0000"
    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})  # the reset hook, through sudo
    assert run(env, "date +%z; cat /etc/timezone")["stdout"].split() == ["+0800", "Asia/Hong_Kong"]
