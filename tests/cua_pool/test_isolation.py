"""One space cannot read another's files, nor the host's keys or the controller's socket.

Mount-namespace isolation needs Linux and root (CI runs as root: there it must not be skipped).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from poolkit import JOBS, LocalPool, wait_for

from cua_pool.runtimes.process import can_isolate

BASIC = str(JOBS / "basic.py")

needs_root = pytest.mark.skipif(
    not can_isolate() and not os.environ.get("CI"),
    reason="space isolation uses mount namespaces: Linux, root and util-linux's unshare",
)


@needs_root
def test_a_space_cannot_read_another_space_or_the_hosts_secrets(local_pool: LocalPool) -> None:
    assert sys.platform == "linux" and can_isolate()
    holder = local_pool.cli("run", f"{BASIC}::keep_secret", "--detach").output.strip().splitlines()[-1]
    text = wait_for(
        "the secret's path", lambda: "SECRET" in (out := local_pool.cli("jobs", "logs", holder).output) and out
    )
    secret = text.split("SECRET ", 1)[1].split()[0]
    assert Path(secret).read_text() == "only mine"  # the file is there, outside any space
    config, runtime = os.environ["CUA_CONFIG_DIR"], os.environ["CUA_RUNTIME_DIR"]
    local_pool.cli("run", f"{BASIC}::peek", json.dumps(secret), json.dumps(config), json.dumps(runtime))
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    seen = json.loads(local_pool.cli("jobs", "result", job).output)
    assert seen["peer"] == "FileNotFoundError"
    assert seen["config"] == ["pool"]  # only the path down to its own space, not keys/ or the controller
    assert seen["runtime"] == []  # no controller socket to talk to without keys
    local_pool.cli("jobs", "cancel", holder)


def test_without_isolation_a_space_can_read_another(local_pool: LocalPool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback (macOS, an agent that is not root, or CUA_POOL_ISOLATE=0): spaces are private
    folders of the agent's user, so other users are kept out but other spaces are not. This is
    the contrast that shows the isolation above is what hides the file."""
    monkeypatch.setenv("CUA_POOL_ISOLATE", "0")  # the agent the CLI starts inherits it
    holder = local_pool.cli("run", f"{BASIC}::keep_secret", "--detach").output.strip().splitlines()[-1]
    text = wait_for(
        "the secret's path", lambda: "SECRET" in (out := local_pool.cli("jobs", "logs", holder).output) and out
    )
    secret = text.split("SECRET ", 1)[1].split()[0]
    assert oct(os.stat(os.path.dirname(os.path.dirname(secret))).st_mode & 0o777) == "0o700"
    config, runtime = os.environ["CUA_CONFIG_DIR"], os.environ["CUA_RUNTIME_DIR"]
    local_pool.cli("run", f"{BASIC}::peek", json.dumps(secret), json.dumps(config), json.dumps(runtime))
    job = json.loads(local_pool.cli("jobs", "--json").output)[0]["id"]
    assert json.loads(local_pool.cli("jobs", "result", job).output)["peer"] == "only mine"
    local_pool.cli("jobs", "cancel", holder)
