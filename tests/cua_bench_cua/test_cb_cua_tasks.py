"""`cb run` on tasks written in Cua Bench's style (our own, written here): the backend it picks from
what a task uses (sim, local, docker; --backend overrides), provider "simulated" as a theme, and an
oracle that scores below 1 failing the run."""

from __future__ import annotations

import asyncio
import json
import os
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from cua_bench import backend_choice
from cua_bench.backend_choice import choose_backend, task_needs
from cua_bench.backends.local import unavailable
from cua_bench.registry import backends
from cua_bench.server import EnvServer
from cua_bench.sim import SimSession
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.task_computer import task_computer
from cua_bench.tasks import Task, TaskError, load_task_module
from cua_bench_cua.cb import main

# Only what the sim has: files. Its annotations use Cua's session names.
FILES = """
import cua_bench as cb

ANSWER = "/tmp/answer.txt"


@cb.tasks_config(split="train")
def load():
    return [
        cb.Task(
            description=f"Write {{word}} into {{ANSWER}}",
            task_id=f"files-{{word}}",
            metadata={{"word": word}},
            computer={{"provider": "{provider}", "setup_config": {{"os_type": "{os_type}", "width": 800, "height": 600}}}},
        )
        for word in ("hello", "bench")
    ]


@cb.setup_task(split="train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    await session.write_file("~/notes.txt", "left by setup")


@cb.evaluate_task(split="train")
async def evaluate(task_cfg: cb.Task, session: cb.MobileSession) -> list[float]:
    if not await session.file_exists(ANSWER):
        return [0.0]
    return [1.0 if (await session.read_file(ANSWER)).strip() == task_cfg.metadata["word"] else 0.0]


@cb.solve_task(split="train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    await session.write_file(ANSWER, {answer} + "\\n")
"""

# The shell, through a helper of the task's own (the scan follows it).
SHELL = """
import cua_bench as cb


@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Put hello in ~/answer.txt", metadata={"word": "hello"},
                    computer={"provider": "native", "setup_config": {"os_type": "linux", "width": 800, "height": 600}})]


async def shell(session, command):
    return await session.run_command(command, check=True)


@cb.setup_task(split="train")
async def start(task_cfg, session):
    await shell(session, "rm -f answer.txt")


@cb.evaluate_task(split="train")
async def evaluate(task_cfg, session):
    result = await session.read_file("answer.txt") if await session.file_exists("answer.txt") else ""
    return [1.0 if result.strip() == task_cfg.metadata["word"] else 0.0]


@cb.solve_task(split="train")
async def solve(task_cfg, session):
    await shell(session, "echo " + task_cfg.metadata["word"] + " > answer.txt")
"""

# An HTML window, as Cua's own small apps are.
HTML = """
import cua_bench as cb


@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Press OK")]


@cb.setup_task(split="train")
async def start(task_cfg, session):
    task_cfg.metadata["pid"] = await session.launch_window(html="<button id=ok onclick='window.ok=1'>OK</button>")


@cb.evaluate_task(split="train")
async def evaluate(task_cfg, session):
    return [1.0 if await session.execute_javascript(task_cfg.metadata["pid"], "window.ok === 1") else 0.0]


@cb.solve_task(split="train")
async def solve(task_cfg, session):
    await session.click_element(task_cfg.metadata["pid"], "#ok")
"""

# An app, named by a module-level constant.
LAUNCH = """
import cua_bench as cb

APP = "{app}"


@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Open it")]


@cb.setup_task(split="train")
async def start(task_cfg, session):
    await session.launch(APP)


@cb.evaluate_task(split="train")
async def evaluate(task_cfg, session):
    return [1.0 if await session.windows() else 0.0]
"""


def write(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(textwrap.dedent(source))
    return folder


def files_task(folder: Path, *, provider: str = "native", os_type: str = "linux", answer: str = "") -> Path:
    return write(folder, FILES.format(provider=provider, os_type=os_type, answer=answer or 'task_cfg.metadata["word"]'))


def cb(*args: object, stdin: str | None = None) -> tuple[int, str]:
    """Exit code and everything printed (stdout and stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.output


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def needs(folder: Path) -> set[str]:
    module = load_task_module(folder)
    return task_needs(module, module.default_split())[0]


# -- the oracle must score 1 ------------------------------------------------------------------------


def test_an_oracle_below_one_fails_the_run_naming_the_variants(here: Path) -> None:
    broken = files_task(here / "broken", answer='"wrong"')
    code, out = cb("run", broken, "--max-variants", "2", "--output-dir", "runs/broken")
    assert code == 1, out  # until now: 0, a run whose oracle scored 0.0 looked like a finished run
    assert "oracle scored 0: broken variant 0 (broken/train/0)" in out
    assert "oracle scored 0: broken variant 1 (broken/train/1)" in out
    assert (
        "Error: the task's own solution scored 0.0 in 2 episode(s): its solve or evaluate is wrong, "
        "or the backend cannot serve it"
    ) in out
    # with --json the summary is still the only thing on stdout
    result = CliRunner().invoke(main, ["run", str(broken), "--json", "--output-dir", "runs/json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["mean_reward"] == 0.0
    # a dataset names only the tasks whose oracle failed
    dataset = here / "dataset"
    dataset.mkdir()
    broken.rename(dataset / "broken")
    files_task(dataset / "good")
    code, out = cb("run", dataset, "--output-dir", "runs/dataset")
    assert code == 1
    assert "broken variant 0" in out and "broken variant 1" in out and "good variant" not in out
    # doing nothing scores 0 and is no failure: only the oracle's score says the task is broken
    code, out = cb("run", dataset / "good", "--noop", "--output-dir", "runs/noop")
    assert code == 0, out
    code, out = cb("run", dataset / "good", "--output-dir", "runs/good")
    assert code == 0, out


# -- which backend ----------------------------------------------------------------------------------


def test_a_task_using_only_what_the_sim_has_runs_on_sim(here: Path) -> None:
    task = files_task(here / "files")
    assert needs(task) == set()
    code, out = cb("run", task, "--output-dir", "runs/files")
    assert code == 0, out
    assert "cb: backend sim (the task needs nothing the sim lacks; --backend overrides)" in out
    assert "success 100.0%" in out


def test_needs_are_read_from_the_functions_and_their_helpers(here: Path) -> None:
    assert needs(write(here / "shell", SHELL)) == {"a shell"}
    assert needs(write(here / "html", HTML)) == {"HTML windows"}
    launches = write(here / "launches", LAUNCH.format(app="xterm"))
    assert needs(launches) == {"apps the sim lacks"}
    sim_app = write(here / "sim-app", LAUNCH.format(app="editor"))
    assert needs(sim_app) == set()  # the sim's own editor


def test_a_task_running_shell_commands_picks_local(here: Path) -> None:
    task = write(here / "shell", SHELL)
    backend, why = choose_backend([task], "train")
    if unavailable() is None:
        assert (backend, why) == ("local", "the task needs a shell")
    else:
        assert backend == "docker" and why.startswith("the task needs a shell; local cannot run here: ")
    code, out = cb("run", task, "--dry-run")
    assert code == 0, out
    assert f"cb: backend {backend} (the task needs a shell" in out and f"on {backend} with oracle" in out
    code, out = cb("run", task, "--backend", "sim", "--dry-run")  # --backend overrides: no line, no choice
    assert code == 0 and "cb: backend" not in out and "on sim with oracle" in out


@pytest.mark.skipif(
    unavailable() is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {unavailable()}"
)
def test_the_shell_task_runs_on_local_with_its_oracle(here: Path, root: Path) -> None:
    code, out = cb("run", write(here / "shell", SHELL), "--output-dir", "runs/shell")
    assert code == 0, out
    assert "cb: backend local (the task needs a shell; --backend overrides)" in out and "success 100.0%" in out


def test_local_unavailable_falls_back_to_docker(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = write(here / "html", HTML)
    monkeypatch.setattr(backend_choice, "backend_unavailable", lambda name: "no Xvfb here" if name == "local" else None)
    assert choose_backend([task], "train") == (
        "docker",
        "the task needs HTML windows; local cannot run here: no Xvfb here",
    )


def test_a_dataset_gets_one_backend_from_the_union_of_its_needs(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend_choice, "backend_unavailable", lambda name: None)
    dataset = here / "mixed"
    files_task(dataset / "files")
    write(dataset / "shell", SHELL)
    write(dataset / "html", HTML)
    folders = sorted(dataset.iterdir())
    assert choose_backend(folders, "train") == (
        "local",
        "its tasks need HTML windows (1 of 3) and a shell (1 of 3)",
    )
    assert choose_backend([dataset / "files"], "train")[0] == "sim"
    quiet = here / "quiet"
    files_task(quiet / "a")
    files_task(quiet / "b", provider="simulated", os_type="macos")
    assert choose_backend(sorted(quiet.iterdir()), "train") == ("sim", "its tasks need nothing the sim lacks")
    code, out = cb("run", "dataset", quiet, "--dry-run")
    assert code == 0 and "cb: backend sim (its tasks need nothing the sim lacks; --backend overrides)" in out


class FakeMac:
    name = "mac"
    capabilities: ClassVar[dict[str, Any]] = {"os": "macos"}


class Registry(dict[str, Any]):
    def names(self) -> list[str]:
        return list(self)


def test_a_native_os_goes_to_a_backend_that_declares_it(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = files_task(here / "mac", os_type="macos")
    module = load_task_module(task)
    assert task_needs(module, "train") == (set(), {"macos"})
    # the macos backend is installed but cannot start here (no Lume, no tart): the choice is as if the task asked
    # for no OS, and the run says which backend serves macOS and why it cannot start
    assert choose_backend([task], "train")[0] == "sim"
    code, out = cb("run", task, "--output-dir", "runs/mac")
    assert code == 1
    assert "wants os_type macos; backend sim serves linux (backend macos serves macos but cannot start here" in out
    real = backends()
    registry = Registry({name: real[name] for name in real.names() if name != "macos"}, mac=FakeMac)
    monkeypatch.setattr(backend_choice, "backends", lambda: registry)
    monkeypatch.setattr(backend_choice, "backend_unavailable", lambda name: None)
    assert choose_backend([task], "train") == ("mac", "the task wants os_type macos")


# -- provider "simulated": the os_type is a theme -------------------------------------------------------


def test_simulated_macos_parses_as_a_theme() -> None:
    block = {"provider": "simulated", "setup_config": {"os_type": "macOS", "width": 1024, "height": 768}}
    got = task_computer(Task("d", computer=block))
    assert (got.provider, got.os_type, got.theme, got.width, got.height) == ("simulated", None, "macos", 1024, 768)
    native = task_computer(Task("d", computer={"provider": "native", "setup_config": {"os_type": "win11"}}))
    assert (native.os_type, native.theme) == ("win11", None)
    assert task_computer(Task("d", computer={"provider": "simulated"})).theme is None
    with pytest.raises(TaskError, match="os_type"):
        task_computer(Task("d", computer={"provider": "simulated", "setup_config": {"os_type": 7}}))


def test_a_simulated_macos_task_runs_on_a_linux_backend_with_its_theme(here: Path) -> None:
    task = files_task(here / "themed", provider="simulated", os_type="macos")
    assert needs(task) == set()
    code, out = cb("run", task, "--output-dir", "runs/themed")
    assert code == 0, out
    assert "cb: backend sim" in out and "success 100.0%" in out

    async def reset(server: EnvServer, folder: Path) -> None:
        await server.reset(EpisodeSpec(str(folder), observes=Observes("none")).to_wire())

    server = EnvServer(SimSession(width=640, height=480), "tcp://127.0.0.1:0", backend="sim")

    def theme() -> str | None:
        return server.theme

    try:
        asyncio.run(reset(server, task))
        assert theme() == "macos"  # carried to where the server applies the computer block
        assert (server.session.width, server.session.height) == (800, 600)
        asyncio.run(reset(server, files_task(here / "plain")))
        assert theme() is None  # each episode's own
        with pytest.raises(TaskError, match="wants os_type macos; backend sim serves linux"):
            asyncio.run(reset(server, files_task(here / "native-mac", os_type="macos")))
    finally:
        server.rpc.close()


def test_interact_picks_the_backend_as_run_does(here: Path) -> None:
    code, out = cb("interact", files_task(here / "files"), "--screenshots", "shots", stdin="quit\n")
    assert code == 0, out
    assert "cb: backend sim (the task needs nothing the sim lacks; --backend overrides)" in out
