"""``qemu:///session``: a user who is not root boots a machine from an image root built, reverts it and
tears it down, on the libvirtd that libvirt starts for that user (no root, no system daemon involved).

The user is made here (``cua-vmtest``); it runs Debian's python3 (this venv's interpreter may live in
root's home) with the venv's site-packages and this checkout's sources on its path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(900)]
USER = "cua-vmtest"
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, time
from cua_bench import client_for
from cua_bench_libvirt import LibvirtBackend

backend = LibvirtBackend(images=IMAGES, memory=1024, cpus=1)
found = {"uri": backend.uri, "accel": str(backend.accel())}
computer = backend.provision(width=800, height=600)
try:
    with client_for(computer, step_timeout=120) as env:
        found["uid"] = env.session("run_command", command="id -u; touch /etc/trace")["stdout"].strip()
    backend.restore(computer)
    with client_for(computer, step_timeout=120) as env:
        found["trace_kept"] = env.session("run_command", command="test -e /etc/trace")["return_code"] == 0
finally:
    backend.teardown(computer)
found["left"] = [name for name, _, _ in backend.hypervisor.ours()]
print(json.dumps(found))
"""


def _python() -> str:
    """Debian's python3 when it is this Python's version (its extension modules load there), else skip."""
    system = "/usr/bin/python3"
    if not os.path.exists(system):
        pytest.skip("no /usr/bin/python3 for the session user")
    version = subprocess.run([system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, check=True).stdout.strip()  # fmt: skip
    if version != str(sys.version_info[:2]):
        pytest.skip(f"/usr/bin/python3 is {version}, this venv's Python {sys.version_info[:2]}")
    return system


def test_a_user_who_is_not_root_runs_machines_on_their_own_libvirt(image_root: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making the session user needs root")
    if subprocess.run(["id", USER], capture_output=True, check=False).returncode != 0:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", USER], check=True)
    python = _python()
    home = Path(f"~{USER}").expanduser()
    images = home / "cua-libvirt"
    shutil.rmtree(images, ignore_errors=True)
    (images / "images" / "default").mkdir(parents=True)
    # The image root built, readable by all; the machines the user makes go in the user's own folder.
    (images / "images" / "default" / "current").symlink_to((image_root / "images" / "default" / "current").resolve())
    subprocess.run(["chown", "-R", f"{USER}:", str(images)], check=True)
    script = home / "session_check.py"
    script.write_text(SCRIPT.replace("IMAGES", repr(str(images))))
    path = ":".join([sysconfig.get_path("purelib"), *map(str, sorted(ROOT.glob("packages/*/src"))),
                     *map(str, sorted(ROOT.glob("plugins/*/src")))])  # fmt: skip
    done = subprocess.run(
        # A login shell: none of this process's settings (its CUA_CONFIG_DIR is root's) reach the user.
        ["su", "-", USER, "-c", f"PYTHONPATH={path} {python} {script}"],
        capture_output=True, text=True, timeout=840, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["uri"] == "qemu:///session" and found["uid"] == "0"  # root in the guest, not on the host
    assert found["trace_kept"] is False and found["left"] == []
