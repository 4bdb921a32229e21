"""The public backend kit: declared capabilities and options, owners and prune, the ready handshake,
provisioning that undoes itself, debootstrap, and plugins that use only the kit and public names."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import cua_bench
from cua_bench import backend_kit
from cua_bench.backend_kit import (
    BACKEND_LABEL,
    OWNER_LABEL,
    RUN_LABEL,
    BackendError,
    Capabilities,
    capabilities_of,
    debootstrap,
    export_options,
    labels,
    options_env,
    owner_gone,
    parse_options,
    provisioning,
    ready_address,
    stale,
    wait_ready,
)
from cua_bench.backends.local import LocalBackend
from cua_bench.backends.sim import SimBackend
from cua_bench.cli import main
from cua_core.options import OptionError

ROOT = Path(__file__).resolve().parents[3]
# What the plugins' backends may import of cua_bench: the package's own names and the kit, nothing private.
PLUGIN_MODULES = [
    *sorted((ROOT / "plugins/cua-bench-docker/src").rglob("*.py")),
    ROOT / "plugins/cua-bench-cua/src/cua_bench_cua/backend.py",
    ROOT / "plugins/cua-bench-cua/src/cua_bench_cua/session.py",
    *sorted((ROOT / "plugins/cua-bench-android/src").rglob("*.py")),
]
PUBLIC = {"cua_bench": set(cua_bench.__all__), "cua_bench.backend_kit": set(backend_kit.__all__)}


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_the_kit_exports_what_its_all_names() -> None:
    assert sorted(backend_kit.__all__) == sorted(set(backend_kit.__all__))
    missing = [name for name in backend_kit.__all__ if not hasattr(backend_kit, name)]
    assert missing == []
    assert backend_kit.BackendError is cua_bench.BackendError  # one error, wherever a backend imports it from


def _cua_bench_imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for each import of cua_bench or below in ``path``; name None for ``import module``."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "cua_bench"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "cua_bench":
            found += [(node.module, alias.name) for alias in node.names]
    return found


def test_plugin_backends_import_only_the_kit_and_public_names() -> None:
    assert len(PLUGIN_MODULES) > 5 and all(path.exists() for path in PLUGIN_MODULES)
    private = [
        f"{path.relative_to(ROOT)}: {module}{f'.{name}' if name else ''}"
        for path in PLUGIN_MODULES
        for module, name in _cua_bench_imports(path)
        if module not in PUBLIC or (name is not None and name not in PUBLIC[module])
    ]
    assert private == []


def test_the_docker_images_entrypoint_imports_only_the_kit() -> None:
    """Every image's start script holds Python too: it runs the server as `user` through the kit's serve_as."""
    script = (ROOT / "plugins/cua-bench-docker/src/cua_bench_docker/start-user").read_text()
    imported = re.findall(r"from (cua_bench[\w.]*) import (\w+)", script)
    assert imported == [("cua_bench.backend_kit", "serve_as")]


# -- capabilities ---------------------------------------------------------------------------------


def test_builtin_backends_declare_typed_capabilities() -> None:
    assert SimBackend.capabilities == Capabilities(os="none", apps=frozenset({"editor", "files", "form"}))
    local = LocalBackend.capabilities
    assert isinstance(local, Capabilities)
    assert (local.os, local.shell, local.root, local.browser, local.snapshots) == ("linux", True, False, True, False)
    assert {"terminal", "editor", "files", "spreadsheet"} <= local.apps


def test_capabilities_check_their_os_and_read_as_the_old_dict() -> None:
    with pytest.raises(ValueError, match=r"os must be one of linux, macos, windows, android, none"):
        Capabilities(os="beos")
    declared = Capabilities(os="linux", shell=True, apps=["xterm"])  # type: ignore[arg-type]
    assert declared.apps == frozenset({"xterm"}) and hash(declared)
    assert declared.get("os") == "linux" and dict(declared)["shell"] is True and "snapshots" in declared
    # A backend that still declares a dict (cua_bench_rl's PoolBackend) is read typed.
    legacy = type("Legacy", (), {"capabilities": {"os": "macos", "shell": True, "remote": True}})
    assert capabilities_of(legacy) == Capabilities(os="macos", shell=True)
    assert capabilities_of(object()) == Capabilities()


# -- options ----------------------------------------------------------------------------------------


def test_an_unknown_option_names_the_key_the_backend_and_its_options() -> None:
    with pytest.raises(OptionError) as caught:
        parse_options(LocalBackend, ["isolat=1"])
    message = str(caught.value)
    assert "'isolat'" in message and "backend 'local'" in message and "did you mean 'isolate'?" in message
    assert "its options: isolate, settle_quiet, settle_grace, settle_max" in message
    with pytest.raises(OptionError, match=r"backend 'sim' has no option 'memory' \(its options: pin, per_server\)"):
        SimBackend(memory="2g")


def test_a_value_of_the_wrong_type_names_the_type() -> None:
    with pytest.raises(OptionError, match=r"--backend-option settle_max=soon: settle_max must be a number \(float\)"):
        parse_options(LocalBackend, ["settle_max=soon"])
    with pytest.raises(OptionError, match=r"isolate=maybe: isolate must be one of auto, 1, 0"):
        parse_options(LocalBackend, ["isolate=maybe"])
    with pytest.raises(OptionError, match=r"pin must be true or false \(bool\)"):
        SimBackend(pin="often")


def test_options_reach_the_backend_typed_and_its_variable_stands_in(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_options(LocalBackend, ["settle_max=0.5", "isolate=0"]) == {"settle_max": 0.5, "isolate": "0"}
    monkeypatch.delenv("CUA_SIM_PIN", raising=False)
    assert SimBackend().option("pin") is True  # the declared default
    assert SimBackend(pin="no").option("pin") is False
    monkeypatch.setenv("CUA_SIM_PIN", "0")
    assert SimBackend().option("pin") is False  # the variable, where no option is given
    assert SimBackend(pin=True).option("pin") is True  # the option wins
    monkeypatch.setenv("CUA_SIM_PIN", "often")
    with pytest.raises(OptionError, match=r"CUA_SIM_PIN must be true or false \(bool\), got 'often'"):
        SimBackend().option("pin")
    assert options_env(LocalBackend, {"settle_max": 0.5, "isolate": "0"}) == {
        "CUA_LOCAL_SETTLE_MAX": "0.5",
        "CUA_LOCAL_ISOLATE": "0",
    }


def test_an_option_given_to_the_constructor_reaches_the_env_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server reads its settings in its environment: a process backend hands it the options it was given."""
    monkeypatch.delenv("CUA_SIM_PIN", raising=False)
    assert SimBackend().server_env() is None  # nothing given: it inherits this process's environment
    backend = SimBackend(pin=False)
    computer = backend.provision(width=320, height=240)
    try:
        environ = Path(f"/proc/{computer.info['pid']}/environ").read_bytes().split(b"\0")
        assert b"CUA_SIM_PIN=0" in environ
        assert "CUA_SIM_PIN" not in os.environ
    finally:
        backend.teardown(computer)


def test_a_local_option_decides_isolation_over_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "1")
    assert LocalBackend(isolate="0").isolate is False


def test_the_cli_refuses_a_bad_option_before_anything_starts(tmp_path: Path) -> None:
    output = tmp_path / "run"
    code, out = cli("run", "sim/click-button", "--backend-option", "pinn=0", "--output", output)
    assert code == 1 and "backend 'sim' has no option 'pinn'; did you mean 'pin'? (its options: pin, per_server)" in out
    assert not output.exists()  # refused before the run folder, let alone a computer
    code, out = cli("check", "sim/click-button", "--backend", "local", "--backend-option", "settle_max=soon")
    assert code == 1 and "settle_max must be a number (float)" in out
    code, out = cli("interact", "sim/click-button", "--backend-option", "pin")
    assert code == 2 and "'pin' is not KEY=VALUE" in out
    code, out = cli("prune", "--backend-option", "pin=0")
    assert code == 2 and "--backend-option needs --backend NAME" in out


def test_the_cli_sets_a_good_option_for_the_backend_it_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner and the checks build the backend by name: the CLI hands them the option as its variable."""
    monkeypatch.setenv("CUA_SIM_PIN", "1")  # restored after the test; the command sets it for its process
    code, out = cli("prune", "--backend", "sim", "--backend-option", "pin=false")
    assert code == 0 and out.startswith("sim: removed 0"), out
    assert os.environ["CUA_SIM_PIN"] == "0" and SimBackend().option("pin") is False
    monkeypatch.setenv("CUA_SIM_PIN", "1")
    assert export_options(SimBackend, ["pin=off"]) == {"pin": False} and os.environ["CUA_SIM_PIN"] == "0"


def test_a_run_records_the_options_its_backend_ran_with(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Set by flag or by variable, an option is a setting of the run's results: --resume compares it."""
    monkeypatch.setenv("CUA_SIM_PIN", "1")
    run = ["run", "sim", "--tasks", "click-button", "--variants", "1", "--no-record"]
    code, out = cli(*run, "--output", str(tmp_path / "a"), "--backend-option", "pin=false")
    assert code == 0, out
    assert json.loads((tmp_path / "a" / "settings.json").read_text())["results"]["backend_options"] == {
        "pin": False,
        "per_server": 1,
    }
    monkeypatch.setenv("CUA_SIM_PIN", "1")
    code, out = cli(*run, "--output", str(tmp_path / "a"), "--resume")
    assert (
        code != 0
        and "backend_options: the run has {'per_server': 1, 'pin': False}, now {'per_server': 1, 'pin': True}" in out
    ), out


def test_cb_takes_backend_options_too(tmp_path: Path) -> None:
    from cua_bench_cua.cb import main as cb

    result = CliRunner().invoke(cb, ["run", "task", "sim/click-button", "--backend", "sim", "--backend-option", "x=1"])
    assert result.exit_code == 1 and "backend 'sim' has no option 'x'" in result.output


# -- owners, ready, provisioning, debootstrap -----------------------------------------------------------


def test_labels_name_the_owner_and_prune_takes_only_what_a_gone_owner_left() -> None:
    mine = labels("docker", "run-1")
    assert mine == {BACKEND_LABEL: "docker", OWNER_LABEL: f"{os.uname().nodename}:{os.getpid()}", RUN_LABEL: "run-1"}
    assert not stale(mine) and stale(mine, everything=True)
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    assert owner_gone(f"{os.uname().nodename}:{done.stdout.strip()}")  # exited, and reaped
    assert (
        owner_gone(f"another-host-{os.uname().nodename}:{os.getpid()}") and owner_gone("garbage") and owner_gone(None)
    )


def test_the_ready_line_and_waiting_for_a_server_that_cannot_say_so() -> None:
    assert ready_address("ready ipc:///tmp/env.sock") == "ipc:///tmp/env.sock"
    assert ready_address("ready tcp://1.2.3.4:5 server_key=abc") == "tcp://1.2.3.4:5"
    assert ready_address("Traceback (most recent call last):") is None and ready_address("ready") is None
    answers = iter([False, False, True])
    wait_ready(lambda: next(answers), lambda: None, timeout=5, what="vm 1", interval=0)
    with pytest.raises(BackendError, match=r"^vm 1 stopped before its env server was ready \(OOM\); log: x$"):
        wait_ready(lambda: False, lambda: "OOM", timeout=5, what="vm 1", detail=lambda: "log: x")
    with pytest.raises(BackendError, match=r"^vm 2 was not ready within 0.01 s$"):
        wait_ready(lambda: False, lambda: None, timeout=0.01, what="vm 2", interval=0.001)


def test_provisioning_undoes_its_steps_newest_first_only_when_it_fails() -> None:
    done: list[str] = []

    def provision(fail: bool) -> None:
        with provisioning() as undo:
            undo.callback(done.append, "socket folder")
            undo.callback(done.append, "container")
            if fail:
                raise KeyboardInterrupt  # Ctrl-C half way: undone as any error is

    with pytest.raises(KeyboardInterrupt):
        provision(fail=True)
    assert done == ["container", "socket folder"]
    provision(fail=False)
    assert done == ["container", "socket folder"]  # kept: teardown owns them now


def test_debootstrap_keeps_a_root_filesystem_and_says_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "rootfs"
    (target / "etc").mkdir(parents=True)
    (tmp_path / "rootfs.debootstrap.json").write_text(
        json.dumps({"suite": "bookworm", "variant": "minbase", "mirror": "http://m", "include": []})
    )
    said: list[str] = []
    monkeypatch.setattr("shutil.which", lambda name: None)  # no debootstrap: only a kept one can be returned
    assert debootstrap(target, mirror="http://m", log=said.append) == target
    assert said == [f"debootstrap bookworm: kept in {target}"] and (target / "etc").is_dir()
    with pytest.raises(BackendError, match=r"needs debootstrap: apt-get install debootstrap"):
        debootstrap(target, mirror="http://other", log=said.append)  # another mirror: made again


def test_server_payload_pins_the_servers_wheels_and_copies_our_packages_with_their_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    from cua_bench.backend_kit import payload

    asked: list[tuple[Path, list[str], list[str]]] = []
    monkeypatch.setattr(
        payload, "_download_wheels", lambda folder, log, pins, platforms: asked.append((folder, pins, platforms))
    )
    backend_kit.server_payload(tmp_path, log=lambda line: None)  # no pip: what it would download is enough
    [(wheels, pins, platforms)] = asked
    assert wheels == tmp_path / "wheels" and wheels.is_dir()
    assert platforms and all(tag.startswith("manylinux") for tag in platforms)  # the Linux images' by default
    assert f"pyzmq=={metadata.version('pyzmq')}" in pins and not any(pin.startswith("desktop-env") for pin in pins)
    lib = tmp_path / "lib"
    assert (lib / "cua_bench/__init__.py").is_file() and not list(lib.rglob("__pycache__"))
    [info] = lib.glob("cua_bench_tasks_sim-*.dist-info")
    assert "sim = cua_bench_tasks_sim" in (info / "entry_points.txt").read_text()  # found by name inside
    assert (info / "METADATA").read_text().startswith("Metadata-Version: 2.1\nName: cua-bench-tasks-sim\n")


def test_the_office_payload_adds_the_readers_of_libreoffices_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    from cua_bench.backend_kit import payload

    asked: list[list[str]] = []
    monkeypatch.setattr(payload, "_download_wheels", lambda folder, log, pins, platforms: asked.append(pins))
    (tmp_path / "plain").mkdir()
    (tmp_path / "office").mkdir()
    backend_kit.server_payload(tmp_path / "plain", log=lambda line: None)
    backend_kit.server_payload(tmp_path / "office", office=True, log=lambda line: None)
    plain, office = asked
    readers = {f"{name}=={metadata.version(name)}" for name in ("odfpy", "openpyxl", "python-docx", "python-pptx")}
    assert readers <= set(office) and not readers & set(plain) and set(plain) < set(office)


def test_server_payload_takes_another_platforms_wheels_and_refuses_to_build_one_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cua_bench.backend_kit import payload

    download = payload._download_wheels
    asked: list[list[str]] = []
    monkeypatch.setattr(payload, "_download_wheels", lambda folder, log, pins, platforms: asked.append(platforms))
    backend_kit.server_payload(tmp_path, log=lambda line: None, platforms=("win_amd64",))
    assert asked == [["win_amd64"]]
    # A pin with only a source distribution (pip, not run here, would have left it): built here it would be a
    # wheel for this host, not for Windows, so it is refused before anything is built.
    wheels = tmp_path / "sdists"
    wheels.mkdir()
    (wheels / "onlysource-1.0.tar.gz").write_bytes(b"")
    monkeypatch.setattr(payload.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, "", ""))
    with pytest.raises(BackendError, match=r"onlysource-1.0.tar.gz has no wheel for win_amd64"):
        download(wheels, lambda line: None, ["onlysource==1.0"], ["win_amd64"])


def test_the_docker_image_carries_the_kits_desktop_packages() -> None:
    image = pytest.importorskip("cua_bench_docker.image")
    assert image.APT_PACKAGES is backend_kit.DESKTOP_PACKAGES and "xvfb" in backend_kit.DESKTOP_PACKAGES
    assert backend_kit.IMAGE_PYTHON.startswith("3.11.")


def test_server_settings_carry_the_hosts_tuning_and_task_settings_folders_only_where_seen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cua_bench.backend_kit import PRIVATE_TMP, server_settings

    monkeypatch.setenv("CUA_LOCAL_SETTLE_MAX", "0")
    monkeypatch.setenv("CUA_LOCAL_GLX", "1")  # Blender's tasks draw with OpenGL, in a container too
    monkeypatch.setenv("CUA_OSWORLD_METRICS", "on")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUA_OSWORLD_FILES", "mirror")  # relative: made absolute for a mount
    mounted = server_settings("/var/lib/cua/env", folders=True)
    assert mounted["CUA_LOCAL_SETTLE_MAX"] == "0" and mounted["CUA_OSWORLD_METRICS"] == "on"
    assert mounted["CUA_LOCAL_GLX"] == "1"
    assert mounted["CUA_OSWORLD_FILES"] == str(tmp_path / "mirror")
    assert (mounted[PRIVATE_TMP], mounted["CUA_LOCAL_ROOT"]) == ("1", "/var/lib/cua/env")
    machine = server_settings("/var/lib/cua/env", folders=False)  # a VM sees none of the host's folders
    assert "CUA_OSWORLD_FILES" not in machine and machine["CUA_OSWORLD_METRICS"] == "on"
    whole = server_settings(None, folders=True)  # OSWorld's computer: its /tmp and home are the real ones
    assert PRIVATE_TMP not in whole and "CUA_LOCAL_ROOT" not in whole
