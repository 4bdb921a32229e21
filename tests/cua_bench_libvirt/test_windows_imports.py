"""What a Windows guest's env server imports must not need POSIX-only modules: Windows has no fcntl, pwd,
grp, termios or resource. Checked here by hiding them (no Windows can run here); each of the four imports
that broke it (cua_core.events, the local backend's isolate module through the backend kit, and the key
and cache checks that assumed POSIX) was found so."""

from __future__ import annotations

import subprocess
import sys

POSIX_ONLY = ("fcntl", "pwd", "grp", "termios", "resource")


def test_the_windows_guests_env_server_imports_without_posix_only_modules() -> None:
    code = (
        f"import sys; sys.modules.update(dict.fromkeys({POSIX_ONLY!r}));"
        "import cua_core, cua_core.events, cua_bench.server, cua_bench.backend_kit, cua_bench.bundles;"
        "import cua_bench_libvirt.backend, cua_bench_libvirt.windows"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
