"""What an env server imports: only what serving needs, at start and after an episode (issue 36).

Every environment is one server process, idle most of its life; each module it imports for nothing
(a command line's click, a plugin's provisioning machinery, another task format's metrics) is memory
every environment pays. These name the modules that were once imported so and must stay out; the
figures are bench/server_memory.py's. Each runs in a fresh interpreter, with every installed plugin
loaded, as a server loads them: tasks and task sets come from plugins, so none may be left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

# Each was imported by every env server until it was made lazy, by the module named.
NOT_SERVING = {
    "click": "cua_core.options (for one usage error)",
    "tarfile": "backend_kit.debootstrap, cua_bench_libvirt.seed, cua_bench_macos.guest and .payload",
    "gzip": "cua_bench.adversary.mutations, cua_bench_macos.payload",
    "xml.sax": "backends.local.display, cua_bench_libvirt.windows.kit (for one escape)",
    "urllib.request": "xml.sax.saxutils, cua_bench_macos.lume, cua_bench_cua.client",
    "http.client": "agents.openai and agents.model_server (built-in plugins), urllib.request",
    "websockets": "cua_bench_cua (its endpoint and client)",
    "sqlite3": "cua_bench_osworld.metrics, through the package's __init__",
    "zoneinfo": "cua_bench_osworld.getters, through the package's __init__",
    "plistlib": "cua_bench_macos.guest",
    "cua_bench.adversary.mutations": "cua_bench.adversary's __init__ (the server imports Adversary)",
    "cua_bench.filestate": "cua_bench.adversary.hands, through cua_bench.adversary's __init__",
    "cua_bench_osworld.evaluate": "cua_bench_osworld.taskset (the entry point) and the package's __init__",
    "cua_bench_osworld.report": "cua_bench_osworld's __init__",
    "cua_bench_cua.endpoint": "cua_bench_cua's __init__",
    "cua_bench_macos.session": "cua_bench_macos's __init__",
    "cua_bench_android.session": "cua_bench_android's __init__ (pillow's decoding and the XML parser, for a device)",
}

_LOADED = """
import importlib.metadata, json, sys
loaded = [ep.value.split(":")[0] for ep in importlib.metadata.entry_points(group="cua_bench")]
print(json.dumps({"modules": sorted(sys.modules), "entry_points": loaded}))
"""


def _run(code: str) -> dict[str, list[str]]:
    # Every installed plugin loads, as in a server started by a backend (no user's selection applies).
    env = {k: v for k, v in os.environ.items() if k not in ("CUA_BENCH_DISABLE_PLUGINS", "CUA_BENCH_LOAD_PLUGINS")}
    done = subprocess.run(
        [sys.executable, "-c", code + _LOADED], check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _check(result: dict[str, list[str]]) -> None:
    modules = set(result["modules"])
    assert set(result["entry_points"]) <= modules, "every installed cua_bench plugin must load"
    imported = {name: why for name, why in NOT_SERVING.items() if name in modules}
    assert not imported, f"an env server imports what it never uses: {imported}"


def test_an_env_server_at_start_imports_only_what_serving_needs() -> None:
    # What ``python -m cua_bench.server`` loads before its ready line, and what it looks tasks up through.
    code = """
import cua_bench.server
from cua_bench.registry import agents, backends, task_formats, tasksets
from cua_bench.taskset import locate_task
agents(); backends(); tasksets(); task_formats(); locate_task("sim/click-button")
"""
    _check(_run(code))


def test_an_env_server_that_served_an_episode_imports_only_what_serving_needs() -> None:
    # An env that has served sits idle in a pool: the saving must hold after a reset and steps too.
    code = textwrap.dedent("""
        from cua_bench.backends.sim import SimBackend
        from cua_bench.client import EnvClient
        from cua_bench.server import EnvServer
        from cua_core import Click, Point, TypeText

        server = EnvServer(SimBackend.create_session(width=640, height=400), "tcp://127.0.0.1:0", backend="sim")
        server.start()
        with EnvClient(server.address) as env:
            env.reset(options={"task": "sim/click-button", "observes": "rgb"})
            for i in range(4):
                env.step([Click(Point(300, 120))] if i % 2 == 0 else [TypeText("x")])
            env.evaluate()
        server.rpc.close()
    """)
    _check(_run(code))
