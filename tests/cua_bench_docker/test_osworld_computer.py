"""OSWorld's computer on the docker backend: user ``user`` at /home/user, sudo (OSWorld's ``sudo -S`` too),
python3 with pyautogui on the display, gsettings kept by dconf, google-chrome with its debugging port.

CI builds the osworld variant's Dockerfile on the default image with OSWorld's computer alone (its
packages, user, sudo, pyautogui; a minute), not with OSWorld's apps (LibreOffice, GIMP, VLC and
Thunderbird take minutes to install) nor its metric modules (scipy, opencv, librosa ...): the full
image is built and run by ``bench/osworld.py``.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from support.docker import ours

from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK
from cua_bench_docker import DockerBackend, DockerSettings, build_image, connect
from cua_bench_docker.image import COMPUTER_PACKAGES, OSWORLD_IMAGE, VARIANTS, image_exists
from cua_bench_osworld.apps import APPS, BACKEND_PACKAGES, apps_missing_on, needed_apps
from cua_bench_osworld.config import Context
from cua_bench_osworld.getters import TERMINAL_APP, vm_terminal_output
from cua_bench_osworld.loader import load_task, load_tasks
from cua_bench_osworld.official import official_metrics
from cua_bench_osworld.support import check_support
from cua_core.actions import KeyPress, TypeText

pytestmark = pytest.mark.timeout(900)  # the first test waits for the image builds (minutes)

COMPUTER_IMAGE = "cua-bench/desktop-osworld-computer:test"


@pytest.fixture(scope="module")
def computer_image(docker_image: str) -> str:
    """The osworld variant without OSWorld's apps, on the default image (``docker_image``)."""
    client = connect()
    if not image_exists(client, COMPUTER_IMAGE):
        build_image(
            client, variant="osworld", tag=COMPUTER_IMAGE, base=docker_image, packages=COMPUTER_PACKAGES, metrics=False
        )
    return COMPUTER_IMAGE


@pytest.fixture(scope="module")
def env(computer_image: str) -> Iterator[EnvClient]:
    backend = DockerBackend(DockerSettings(variant="osworld", image=computer_image))
    computer = backend.provision(width=800, height=600)
    try:
        with EnvClient(computer.address) as client:
            client.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            yield client
    finally:
        backend.teardown(computer)
        assert [c.name for c in ours(backend.client)] == [], "containers left behind"


def _run(env: EnvClient, command: str, timeout: float = 30) -> dict[str, Any]:
    result: dict[str, Any] = env.session("run_command", command=command, timeout=timeout)
    return result


def test_the_variant_is_chosen_by_its_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_DOCKER_VARIANT", "osworld")
    monkeypatch.delenv("CUA_DOCKER_IMAGE", raising=False)
    monkeypatch.delenv("CUA_DOCKER_MEMORY", raising=False)
    settings = DockerSettings.from_env()
    assert (settings.image, settings.memory, settings.computer) == (OSWORLD_IMAGE, "4g", True)
    assert DockerSettings().computer is False and DockerSettings().memory == "2g"
    assert {"libreoffice-calc", "gimp", "vlc", "thunderbird", "chromium", "sudo"} <= set(VARIANTS["osworld"].packages)
    monkeypatch.setenv("CUA_DOCKER_VARIANT", "vm")
    with pytest.raises(Exception, match="CUA_DOCKER_VARIANT must be one of default, office, osworld, got 'vm'"):
        DockerSettings.from_env()


def test_commands_run_as_user_in_home_user(env: EnvClient) -> None:
    seen = _run(env, 'id -un; echo "$HOME"; pwd; echo "$DISPLAY"')
    user, home, cwd, display = seen["stdout"].split("\n")[:4]
    assert (user, home, cwd) == ("user", "/home/user", "/home/user") and display.startswith(":")
    # The session's file calls and the task's own commands see the same /home/user and /tmp.
    env.session("write_file", path="/home/user/Desktop/from-session.txt", content="hello\n")
    seen = _run(env, "cat /home/user/Desktop/from-session.txt; stat -c %U /home/user/Desktop/from-session.txt")
    assert seen["stdout"].split() == ["hello", "user"]
    _run(env, "echo made > /home/user/made.txt && echo tmp > /tmp/made.txt")
    assert env.session("read_file", path="/home/user/made.txt") == "made\n"
    assert env.session("read_file", path="~/made.txt") == "made\n"
    assert env.session("read_file", path="/tmp/made.txt") == "tmp\n"


def test_sudo_needs_no_password_and_takes_osworlds_too(env: EnvClient) -> None:
    seen = _run(env, "echo password | sudo -S mkdir -p /opt/made-by-sudo && stat -c %U /opt/made-by-sudo")
    assert (seen["returncode"], seen["stdout"].strip()) == (0, "root"), seen
    seen = _run(env, "sudo -n id -u")
    assert (seen["returncode"], seen["stdout"].strip()) == (0, "0"), seen
    # Without sudo, user is no root: /opt is not writable.
    assert _run(env, "touch /opt/plain")["returncode"] != 0


def test_timedatectl_answers_from_the_clocks_zone_which_is_not_utc_until_sudo_sets_it_and_reset_puts_back(
    env: EnvClient,
) -> None:
    """os/b6781586 ("set my time zone to UTC+0") is scored by OSWorld's ``is_utc_0`` on ``timedatectl status``:
    systemd is not init in a container, so a stand-in answers, and the clock starts off UTC (as on OSWorld's
    VM), so doing nothing scores 0."""
    is_utc_0 = official_metrics().functions.get("is_utc_0")
    if is_utc_0 is None:
        pytest.fail(f"OSWorld's is_utc_0 is not loaded: {official_metrics().error}")
    before = _run(env, "timedatectl status")
    assert before["returncode"] == 0, before
    assert before["stdout"].splitlines()[3].strip() == "Time zone: Asia/Hong_Kong (HKT, +0800)", before["stdout"]
    assert is_utc_0(before["stdout"]) == 0
    assert _run(env, "date +%z")["stdout"].strip() == "+0800"  # what apps see is the same zone
    refused = _run(env, "timedatectl set-timezone UTC")  # as user, without sudo
    assert refused["returncode"] == 1 and "Access denied" in refused["stderr"], refused
    bad = _run(env, "sudo timedatectl set-timezone Mars/Olympus")
    assert bad["returncode"] == 1 and "Invalid or not installed time zone" in bad["stderr"], bad
    assert _run(env, "sudo timedatectl set-timezone UTC")["returncode"] == 0
    after = _run(env, "timedatectl status")["stdout"]
    assert is_utc_0(after) == 1, after
    assert _run(env, "date +%z; timedatectl show | head -1")["stdout"].split() == ["+0000", "Timezone=UTC"]
    # The next episode starts from the image's zone, not this one's work (CUA_LOCAL_RESET_HOOK).
    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
    assert is_utc_0(_run(env, "timedatectl status")["stdout"]) == 0
    assert _run(env, "date +%z; cat /etc/timezone")["stdout"].split() == ["+0800", "Asia/Hong_Kong"]


def test_python3_drives_the_display_with_pyautogui(env: EnvClient) -> None:
    code = "import pyautogui; print(*pyautogui.size()); pyautogui.moveTo(123, 234)"
    seen = _run(env, f'python -c "{code}" && xdotool getmouselocation --shell')
    lines = seen["stdout"].split()
    assert seen["returncode"] == 0, seen
    assert lines[:2] == ["800", "600"] and "X=123" in lines and "Y=234" in lines


def test_gsettings_persist_through_dconf_until_reset(env: EnvClient) -> None:
    key = "org.gnome.desktop.interface font-name"
    before = _run(env, f"gsettings get {key}")["stdout"].strip()
    seen = _run(env, f"echo \"$GSETTINGS_BACKEND\"; gsettings set {key} 'Cua Test 13'")
    assert seen["returncode"] == 0 and seen["stdout"].strip() == "", seen  # no memory backend
    # Another process reads it back, as OSWorld's getters do; dconf keeps it in home.
    assert _run(env, f"gsettings get {key}")["stdout"].strip() == "'Cua Test 13'"
    assert _run(env, "dconf read /org/gnome/desktop/interface/font-name")["stdout"].strip() == "'Cua Test 13'"
    assert env.session("file_exists", path="~/.config/dconf/user")
    # GNOME Shell's schemas are there (os/ec4e3f68 sets org.gnome.shell favorite-apps in its setup).
    favorites = "\"['thunderbird.desktop', 'vim.desktop']\""
    assert _run(env, f"gsettings set org.gnome.shell favorite-apps {favorites}")["returncode"] == 0
    assert _run(env, "gsettings get org.gnome.shell favorite-apps")["stdout"].strip() == favorites.strip('"')
    # GNOME's "Dim screen" switch: one of the answers OSWorld's task accepts (the schema was missing: a silent 0)
    power = "org.gnome.settings-daemon.plugins.power idle-dim"
    assert _run(env, f"gsettings set {power} false")["returncode"] == 0
    assert _run(env, f"gsettings get {power}")["stdout"].strip() == "false"
    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
    assert _run(env, f"gsettings get {key}")["stdout"].strip() == before != "'Cua Test 13'"
    assert not env.session("file_exists", path="/home/user/made.txt")  # reset restored home too


def test_vlcs_web_interface_is_configured_and_the_clipboard_reads_through_xsel(env: EnvClient) -> None:
    """OSWorld's VM has VLC's web interface on (its VLC getters ask it what is playing) and xsel (a
    getter reads the clipboard with it); both stay through a reset, as the rest of home does."""
    for _ in range(2):
        vlcrc = env.session("read_file", path="/home/user/.config/vlc/vlcrc")
        assert "extraintf=http" in vlcrc and "http-port=8080" in vlcrc and "http-password=password" in vlcrc
        assert _run(env, "stat -c %U /home/user/.config/vlc/vlcrc")["stdout"].strip() == "user"
        env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
    assert _run(env, "printf %s /home/user/x.docx | xsel --clipboard --input")["returncode"] == 0
    # xsel's parent exits before its forked child owns the selection (xsel.c: become_daemon, then
    # set_selection), so a read straight after can find it empty on a busy machine: read for a while.
    read = (
        'for i in $(seq 100); do o=$(xsel --clipboard --output); [ -n "$o" ] && break; sleep 0.1; done; printf %s "$o"'
    )
    seen = _run(env, read)
    assert seen["returncode"] == 0 and seen["stdout"] == "/home/user/x.docx", seen


def test_google_chrome_is_chromium_with_osworlds_debugging_port(env: EnvClient) -> None:
    """OSWorld starts Chrome with --remote-debugging-port=1337 and forwards 9222 to it with socat."""
    _run(env, "google-chrome --remote-debugging-port=1337 about:blank >/dev/null 2>&1 &")
    _run(env, "socat tcp-listen:9222,fork tcp:localhost:1337 >/dev/null 2>&1 &")
    probe = (
        "import json, time, urllib.request\n"
        "for _ in range(300):\n"
        "    try:\n"
        "        print(json.load(urllib.request.urlopen('http://localhost:9222/json/version'))['Browser']); break\n"
        "    except OSError: time.sleep(0.1)\n"
    )
    env.session("write_file", path="/tmp/probe.py", content=probe)
    seen = _run(env, "python3 /tmp/probe.py", timeout=60)
    assert seen["stdout"].startswith("Chrome/"), seen


class _TreeOf:
    """A getter's session that reads the container's accessibility tree through the env server."""

    def __init__(self, env: EnvClient) -> None:
        self.env = env

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        tree: list[dict[str, Any]] = self.env.session("accessibility_tree")
        return tree


def _terminal_output(env: EnvClient) -> str | None:
    return asyncio.run(vm_terminal_output(cast(Context, SimpleNamespace(session=_TreeOf(env))), {}))


def test_ctrl_alt_t_opens_gnome_terminal_whose_text_vm_terminal_output_reads(env: EnvClient) -> None:
    """OSWorld's tasks open a terminal with ctrl+alt+t (Ubuntu's GNOME binds it) and score what it shows
    through the accessibility tree (``vm_terminal_output``): the image binds the key to GNOME Terminal."""
    assert _terminal_output(env) is None  # no terminal yet: OSWorld's None, which its metric scores 0
    env.step([KeyPress(("ctrl", "alt", "t"))])
    deadline = time.monotonic() + 60
    while not (_terminal_output(env) or "").endswith("$"):  # its window, focused, with the shell's prompt
        assert time.monotonic() < deadline, env.session("windows")
        time.sleep(0.2)
    env.step([TypeText("stty size", press_enter=True)])
    while "$ stty size\n24 80\n" not in (_terminal_output(env) or ""):  # GNOME Terminal's default size
        assert time.monotonic() < deadline, _terminal_output(env)
        time.sleep(0.2)
    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})  # reset closes it, as it does every app
    assert not any(w["app"] == TERMINAL_APP for w in env.session("windows"))


def test_the_support_table_holds_the_image_and_skips_vs_code_there(shared_fixtures: Path) -> None:
    stand_ins = {app.stand_in for app in APPS if app.stand_in}
    assert BACKEND_PACKAGES["docker-osworld"] == frozenset(VARIANTS["osworld"].packages) | stand_ins
    vs_code = load_task(shared_fixtures / "osworld" / "vs_code" / "276cc624-87ea-4f08-ab93-f770e3790175.json")
    assert check_support(vs_code, official=(), mirror=None, backend="docker-osworld").reasons == (
        "unsupported app: VS Code (not on the docker-osworld backend's desktop; Microsoft's build, not in Debian)",
    )
    # Chrome, pyautogui and sudo are there: tasks of theirs are judged by their other needs only.
    apps = {app.name for task in load_tasks(shared_fixtures / "osworld") for app in needed_apps(task)}
    assert {"Google Chrome", "pyautogui", "sudo", "LibreOffice Calc", "GIMP", "VLC", "Thunderbird"} <= apps
    missing = {app.name for app in apps_missing_on("docker-osworld", [a for a in APPS if a.name in apps])}
    assert missing == {"VS Code", "Files (nautilus)"} & apps, missing


def test_tasks_in_a_folder_only_the_hosts_user_reads_still_load(
    computer_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server runs as ``user`` but keeps the right to read task folders (a 0700 temp folder of root's)."""
    tasks = tmp_path / "private"
    shutil.copytree(CONFORMANCE_TASK, tasks / "conformance")
    tasks.chmod(0o700)
    monkeypatch.setenv("CUA_DOCKER_MOUNTS", str(tasks))
    backend = DockerBackend(DockerSettings(variant="osworld", image=computer_image))
    computer = backend.provision(width=640, height=480)
    try:
        with EnvClient(computer.address) as client:
            client.reset(options={"task": str(tasks / "conformance"), "observes": "none"})
            seen = _run(client, f"id -un; ls {tasks} 2>&1; grep CapEff /proc/self/status")["stdout"]
            assert seen.split("\n")[0] == "user" and "Permission denied" in seen
            assert seen.split()[-2:] == ["CapEff:", "0" * 16]  # the task's commands have no capability
    finally:
        backend.teardown(computer)


def test_after_an_episode_that_had_root_the_runner_gives_the_next_one_a_new_computer(
    computer_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reset puts home back, not what root changed elsewhere: task ``a`` leaves /opt/leak through sudo, and
    task ``b``, run next on the same worker, scores 1 only if it starts without it (OSWorld reverts its VM)."""
    import json

    from cua_bench.runner import RunConfig, Runner

    folder = tmp_path / "tasks" / "os"
    folder.mkdir(parents=True)
    check = "test -e /opt/leak && echo leaked || echo clean"
    tasks = {
        "a": {"config": [{"type": "execute", "parameters": {"command": "echo password | sudo -S touch /opt/leak",
                                                             "shell": True}}],
              "evaluator": {"func": "infeasible"}},
        "b": {"config": [],
              "evaluator": {"func": "exact_match", "result": {"type": "vm_command_line", "command": check,
                                                               "shell": True},
                            "expected": {"type": "rule", "rules": {"expected": "clean\n"}}}},
    }  # fmt: skip
    for task_id, body in tasks.items():
        (folder / f"{task_id}.json").write_text(json.dumps({"id": task_id, "instruction": "Nothing.", **body}))
    monkeypatch.setenv("CUA_DOCKER_VARIANT", "osworld")
    monkeypatch.setenv("CUA_DOCKER_IMAGE", computer_image)
    monkeypatch.setenv("CUA_DOCKER_MOUNTS", str(tmp_path / "tasks"))
    out = tmp_path / "run"
    config = RunConfig(str(tmp_path / "tasks"), out, backend="docker", agent="noop", max_parallel=1, record=False)
    Runner(config).run()
    ran = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [e["task"] for e in ran] == ["a", "b"]  # one worker: b on the computer a used, were it kept
    episodes = {e["task"]: e for e in ran}
    assert [episodes[t]["status"] for t in "ab"] == ["ok", "ok"], episodes
    assert episodes["b"]["reward"] == 1.0, episodes["b"]  # /opt/leak was not carried over
