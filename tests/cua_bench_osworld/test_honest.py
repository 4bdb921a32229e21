"""No silent zeros, through the whole stack: env server, runner, summary, CLI.

A getter the computer refuses (the local backend reads only the environment's home, /home/user
included, and tmp) makes the episode an error with the reason; a result file the agent did not
make is OSWorld's 0; a setup step that ran and failed is recorded with the episode and counted in
the summary.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cua_bench.backends.local import unavailable
from cua_bench.cli import main
from cua_bench.client import EnvClient
from cua_bench.server import EnvServer
from cua_bench.sim import SimDesktop, SimSession
from cua_core.actions import Done
from cua_core.errors import RemoteError, SecurityError

GOLD = "print('hello')\n"


def _write(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['id']}.json"
    path.write_text(json.dumps(data))
    return path


def _compare(path: str) -> dict[str, Any]:
    return {
        "func": "compare_text_file",
        "result": {"type": "vm_file", "path": path, "dest": "result.py"},
        "expected": {"type": "cloud_file", "path": "gold.py", "dest": "gold.py"},
    }


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    """Two tasks scored on a file: one outside anything an environment may read (/opt), one where
    OSWorld puts it (/home/user/Desktop), with a setup step that cannot run."""
    root = tmp_path / "examples" / "os"
    root.mkdir(parents=True)
    (root / "gold.py").write_text(GOLD)
    _write(root, {"id": "refused-file", "instruction": "Write /opt/osworld/test.py", "config": [],
                  "evaluator": _compare("/opt/osworld/test.py")})  # fmt: skip
    _write(root, {"id": "desktop-file", "instruction": "Write test.py on the Desktop",
                  "config": [{"type": "execute", "parameters": {"command": ["cua-no-such-program", "--now"]}}],
                  "evaluator": _compare("/home/user/Desktop/test.py")})  # fmt: skip
    return root.parent


class RefusingSim(SimSession):
    """The sim desktop refusing a path, as a backend refuses what lies outside an environment.

    Both readers refuse: ``read_file`` gives bytes today, and a Session that grows ``read_bytes``
    (Cua Bench's names) has the getters read through that."""

    @staticmethod
    def _refuse(path: str) -> None:
        if path.startswith("/home/user/Desktop/"):
            raise SecurityError(f"file path {path!r} resolves outside the environment's home")

    async def read_file(self, path: str) -> Any:
        self._refuse(path)
        return await super().read_file(path)

    async def read_bytes(self, path: str) -> bytes:
        self._refuse(path)
        return await super().read_bytes(path)  # type: ignore[misc,no-any-return]


@pytest.fixture
def refusing_env() -> Iterator[EnvClient]:
    server = EnvServer(RefusingSim(SimDesktop(640, 480)), "tcp://127.0.0.1:0").start()
    with EnvClient(server.address) as client:
        yield client
    server.rpc.close()


def test_a_refused_result_file_is_an_error_and_an_absent_one_a_zero(refusing_env: EnvClient, tasks: Path) -> None:
    task = str(tasks / "os" / "desktop-file.json")  # its setup needs a shell: run it as a plain copy
    _write(tasks / "os", {**json.loads(Path(task).read_text()), "id": "desktop-plain", "config": []})
    task = str(tasks / "os" / "desktop-plain.json")
    refusing_env.reset(options={"task": task, "observes": "none"})
    refusing_env.session("write_file", path="/home/user/Desktop/test.py", content=GOLD)  # the agent did the work
    with pytest.raises(
        RemoteError, match=r"PlatformError.*vm_file: the computer cannot read /home/user/Desktop/test\.py"
    ):
        refusing_env.step([Done()])
    # The same file where the computer lets us read it, absent: OSWorld's None, its metric's 0.
    plain = tasks / "os" / "plain.json"
    _write(tasks / "os", {"id": "plain", "instruction": "i", "evaluator": _compare("/home/user/test.py")})
    refusing_env.reset(options={"task": str(plain), "observes": "none"})
    assert refusing_env.step([Done()])[1] == 0.0


LOCAL = unavailable()


@pytest.mark.skipif(LOCAL is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {LOCAL}")
def test_on_the_local_backend_refusals_are_errors_and_setup_failures_are_counted(
    tasks: Path, tmp_path: Path, root: Path
) -> None:
    if LOCAL is not None:
        pytest.fail(f"CI is set but the local backend cannot run here: {LOCAL}")
    out = tmp_path / "run"
    args = ["run", str(tasks), "--backend", "local", "--agent", "noop", "--max-parallel", "1", "--output", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output  # an errored episode: the run says so
    episodes = {r["task"]: r for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}
    refused, desktop = episodes["refused-file"], episodes["desktop-file"]
    assert refused["status"] == "error" and refused["reward"] is None
    assert "vm_file: the computer cannot read /opt/osworld/test.py: SecurityError" in refused["error"]
    assert (desktop["status"], desktop["reward"]) == ("ok", 0.0)  # noop wrote nothing: a fair 0
    (failure,) = desktop["setup_failures"]
    assert failure.startswith("setup step 1 (execute): `cua-no-such-program --now`: exit 127")
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["errors"], summary["scored"], summary["setup_failures"], summary["setup_failed_episodes"]) == (
        1, 1, 1, 1,
    )  # fmt: skip
    assert "setup failures: 1 failed step(s) in 1 episode(s)" in result.output
    shown = CliRunner().invoke(main, ["report", str(out)])
    assert f"setup failed: desktop-file/test/0: {failure}" in shown.output
    assert "errored: refused-file/test/0: " in shown.output
