"""Tasks written as Cua Bench writes them run unchanged: its decorators (positional or keyword
split, train by default), ``cb.Task`` with ``task_id`` and a ``computer`` block, ``cb.DesktopSession``
with text ``read_file``, ``file_exists`` and ``/tmp`` paths, and ``[1.0]`` rewards.

The tasks here are our own, in Cua's style; they run on real sim env servers through the CLI, the
Runner and ``cua_bench.make``. One test runs a Cua-style task with ``run_command(check=False)`` on
``local`` (skipped without Xvfb).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import cua_bench as cb
from cua_bench.cli import main
from cua_bench.commands import CommandFailed, CommandResult
from cua_bench.runner import RunConfig, Runner
from cua_bench.session import NotSupported, Session
from cua_bench.sim import SimSession
from cua_bench.task_computer import TaskComputer, task_computer
from cua_bench.tasks import TaskError, load_task_module
from cua_core.actions import Action, Wait
from cua_core.errors import CuaError, RemoteError
from cua_data import DatasetReader

# A starter task the way Cua Bench scaffolds one: a word in /tmp/answer.txt. Positional split,
# task_id, a computer block (with keys we do not use), file_exists, text read_file with .strip().
WRITE_WORD = """
import cua_bench as cb

ANSWER = "/tmp/answer.txt"
WORDS = ["hello", "bench"]


@cb.tasks_config("train")
def load():
    return [
        cb.Task(
            description=f"Create the file {ANSWER} containing only the word '{word}'.",
            task_id=f"write-word-{word}",
            metadata={"word": word},
            computer={
                "provider": "native",
                "setup_config": {"os_type": "linux", "width": 1024, "height": 768, "background": "#c0c0c0"},
            },
        )
        for word in WORDS
    ]


@cb.setup_task("train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    await session.write_file("~/notes.txt", "left by setup")


@cb.evaluate_task("train")
async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:
    if not await session.file_exists(ANSWER):
        return [0.0]
    answer = (await session.read_file(ANSWER)).strip()
    return [1.0 if answer == task_cfg.metadata["word"] else 0.0]


@cb.solve_task("train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    await session.write_file(ANSWER, task_cfg.metadata["word"] + "\\n")
"""

# Keyword split, a list of several rewards (Cua Bench averages them), no computer block.
TWO_REWARDS = """
import cua_bench as cb


@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Write a.txt and b.txt in home", task_id="two-rewards")]


@cb.setup_task(split="train")
async def start(task_cfg, session):
    pass


@cb.evaluate_task(split="train")
async def evaluate(task_cfg, session):
    return [float(await session.file_exists(name)) for name in ("a.txt", "b.txt")]


@cb.solve_task(split="train")
async def solve(task_cfg, session):
    await session.write_file("a.txt", "a")
    await session.write_file("/home/user/b.txt", content=b"b")  # Cua's keyword
"""

# Evaluators that return what they are given; the server must refuse all but rewards in [0, 1].
RETURNS = """
import cua_bench as cb

VALUES = {values!r}


@cb.tasks_config("train")
def load():
    return [cb.Task(description=f"returns {{v!r}}", metadata={{"value": v}}) for v in VALUES]


@cb.setup_task("train")
async def start(task_cfg, session):
    pass


@cb.evaluate_task("train")
async def evaluate(task_cfg, session):
    return task_cfg.metadata["value"]
"""

WINDOWS_ONLY = """
import cua_bench as cb


@cb.tasks_config("train")
def load():
    return [cb.Task(description="Open Notepad", computer={"provider": "native", "setup_config": {"os_type": "windows"}})]


@cb.setup_task("train")
async def start(task_cfg, session):
    pass


@cb.evaluate_task("train")
async def evaluate(task_cfg, session):
    return [0.0]
"""

OUR_STYLE_TEST_SPLIT = """
import cua_bench as cb


@cb.tasks_config(split="test")
def load():
    return [cb.Task(description="nothing to do")]


@cb.setup_task
async def start(task, session):
    pass


@cb.evaluate_task
async def evaluate(task, session):
    return 1.0
"""


def write_task(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(textwrap.dedent(source))
    return folder


@pytest.fixture
def cua_tasks(tmp_path: Path) -> Path:
    """A folder of Cua-style tasks, all of them train-only."""
    tasks = tmp_path / "cua-tasks"
    write_task(tasks / "write-word", WRITE_WORD)
    write_task(tasks / "two-rewards", TWO_REWARDS)
    return tasks


# -- the contract, in process ---------------------------------------------------------------------


def test_decorators_take_the_split_positionally_by_keyword_or_not_at_all() -> None:
    @cb.tasks_config("train")
    def positional() -> list[cb.Task]:
        return []

    @cb.tasks_config(split="train")
    def keyword() -> list[cb.Task]:
        return []

    @cb.tasks_config
    def bare() -> list[cb.Task]:
        return []

    @cb.evaluate_task("train")
    async def evaluate(task: cb.Task, session: cb.DesktopSession) -> list[float]:
        return [1.0]

    assert positional.__cua_task__ == [("tasks_config", "train")]  # type: ignore[attr-defined]
    assert keyword.__cua_task__ == [("tasks_config", "train")]  # type: ignore[attr-defined]
    assert bare.__cua_task__ == [("tasks_config", None)]  # type: ignore[attr-defined]
    assert evaluate.__cua_task__ == [("evaluate_task", "train")]  # type: ignore[attr-defined]
    assert cb.tasks_config()(bare) is bare  # @cb.tasks_config(): every split
    with pytest.raises(TaskError, match="give the split once"):
        cb.setup_task("train", split="test")
    with pytest.raises(TaskError, match="non-empty name"):
        cb.setup_task("")
    with pytest.raises(TaskError, match=r"a split name .* or the function"):
        cb.setup_task(3)  # type: ignore[call-overload]


def test_task_takes_cua_fields_in_cua_order() -> None:
    task = cb.Task("Click OK", "click-ok-1", {"label": "OK"}, {"provider": "native"})
    assert (task.task_id, task.metadata, task.computer) == ("click-ok-1", {"label": "OK"}, {"provider": "native"})
    bare = cb.Task(description="x", task_id=None, metadata=None, computer=None)  # type: ignore[arg-type]
    assert (bare.metadata, bare.computer) == ({}, {})
    assert cb.Task.from_dict(task.to_dict()) == task
    assert cb.DesktopSession is cb.Session and cb.MobileSession is cb.Session


def test_the_computer_block_is_read_and_checked(caplog: pytest.LogCaptureFixture) -> None:
    setup = {"os_type": "Linux", "width": 1024, "height": 768, "image": "trycua/cua-xfce", "wallpaper": "x.png"}
    with caplog.at_level(logging.DEBUG, logger="cua_bench.task_computer"):
        got = task_computer(cb.Task("d", computer={"provider": "native", "setup_config": setup, "extra": 1}))
    assert (got.provider, got.os_type, got.width, got.height) == ("native", "linux", 1024, 768)
    assert "extra" in caplog.text and "image" in caplog.text and "wallpaper" in caplog.text
    assert task_computer(cb.Task("d", computer={"provider": "native"})) == TaskComputer(provider="native")
    for bad in ({"width": "1024"}, {"height": 0}, {"width": True}, {"width": 10_000}, {"os_type": 7}):
        with pytest.raises(TaskError, match="setup_config"):
            task_computer(cb.Task("d", computer={"setup_config": bad}))
    with pytest.raises(TaskError, match="computer must be a dict"):
        task_computer(cb.Task("d", computer="linux"))  # type: ignore[arg-type]


def test_a_task_declaring_only_train_defaults_to_train(tmp_path: Path) -> None:
    module = load_task_module(write_task(tmp_path / "write-word", WRITE_WORD))
    assert module.default_split() == "train"
    assert [t.task_id for t in module.variants()] == ["write-word-hello", "write-word-bench"]
    assert all(t.split == "train" for t in module.variants())
    with pytest.raises(TaskError, match=r"no @tasks_config for split 'test'.*--split train"):
        module.variants("test")
    assert load_task_module(write_task(tmp_path / "ours", OUR_STYLE_TEST_SPLIT)).default_split() == "test"


def test_the_sim_session_speaks_cua_files_and_says_what_it_cannot() -> None:
    async def scenario() -> None:
        session = SimSession(width=800, height=600)
        assert not await session.file_exists("/tmp/answer.txt")
        await session.write_file("/tmp/answer.txt", "hello\n")
        await session.write_bytes("~/data.bin", b"\xff\x00")
        assert await session.read_file("/tmp/answer.txt") == "hello\n"
        assert await session.read_bytes("/home/user/data.bin") == b"\xff\x00"
        assert await session.file_exists("/tmp/answer.txt") and await session.file_exists("data.bin")
        assert not await session.file_exists("/tmp") and await session.directory_exists("/tmp")
        assert "data.bin" in await session.list_dir("~")
        with pytest.raises(ValueError, match=r"not UTF-8 text.*read_bytes"):
            await session.read_file("data.bin")
        with pytest.raises(NotSupported, match=r"no shell.*local or docker"):
            await session.run_command("rm -f /tmp/answer.txt", check=False)
        with pytest.raises(NotSupported, match="HTML task windows need the local or docker backend"):
            await session.launch_window(html="<button>OK</button>", title="t", width=256, height=256)
        for call in (
            session.execute_javascript(1, "window.__submitted"),
            session.click_element(1, ".btn"),
            session.get_element_rect(1, ".btn", space="screen"),
        ):
            with pytest.raises(NotSupported, match=r"local or docker backend.*SimSession has no browser"):
                await call
        with pytest.raises(CuaError, match="execute_action: object is not an action"):
            await session.execute_action(object())
        await session.execute_action(Wait(0))  # actions themselves need no browser
        await session.resize(640, 480)
        assert (session.width, session.height) == (640, 480)
        assert (await session.windows()) == [] and session.frame().shape == (480, 640, 3)

    asyncio.run(scenario())


class Shell(SimSession):
    """The sim with a scripted shell, for run_command's result and check."""

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        return CommandResult(3, "out\n", "oops\n") if "fail" in command else CommandResult(0, "fine\n", "")


def test_run_command_answers_as_cua_and_as_us() -> None:
    async def scenario() -> None:
        session = Shell()
        ok = await session.run_command("true", check=True)
        assert ok["success"] is True and ok["return_code"] == 0 and ok["stdout"] == "fine\n"
        assert ok.returncode == 0 and ok.success and ok.get("stderr") == ""
        failed = await session.run_command("fail", check=False)
        assert (failed["success"], failed["return_code"], failed.returncode, failed["stderr"]) == (
            False,
            3,
            3,
            "oops\n",
        )
        assert dict(failed) == {
            "success": False,
            "stdout": "out\n",
            "stderr": "oops\n",
            "return_code": 3,
            "returncode": 3,
        }
        assert (await session.run_command("fail"))["return_code"] == 3  # our default: no raise
        with pytest.raises(CommandFailed, match="exited with code 3: fail") as raised:
            await session.run_command("fail", check=True)
        assert isinstance(raised.value, RuntimeError) and raised.value.result.stderr == "oops\n"
        with pytest.raises(KeyError, match="a command result has"):
            failed["exit_code"]

    asyncio.run(scenario())


def test_a_backend_that_cannot_resize_says_so() -> None:
    class Fixed(Session):
        width, height = 800, 600

        async def apply(self, actions: list[Action]) -> list[str | None]:  # type: ignore[override]
            return []

        async def screenshot(self) -> bytes:
            return b""

        async def accessibility_tree(self) -> list[dict[str, object]]:
            return []

        async def windows(self) -> list[dict[str, object]]:
            return []

        async def launch(self, app: str, **params: object) -> str:
            return ""

        async def read_bytes(self, path: str) -> bytes:
            raise FileNotFoundError(path)

        async def write_file(self, path: str, content: bytes | str) -> None:
            pass

    async def scenario() -> None:
        session = Fixed()
        await session.resize(800, 600)  # its own size: nothing to do
        with pytest.raises(NotSupported, match="cannot change its screen from 800x600 to 1024x768"):
            await session.resize(1024, 768)
        assert not await session.file_exists("x")  # the default file_exists, from read_bytes

    asyncio.run(scenario())


# -- on real sim env servers ---------------------------------------------------------------------


def test_cua_tasks_run_with_the_default_split_oracle_one_nothing_zero(cua_tasks: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    for agent, reward in (("oracle", 1.0), ("noop", 0.0)):
        out = tmp_path / f"run-{agent}"
        args = ["run", str(cua_tasks), "--agent", agent, "--output", str(out), "--max-parallel", "2", "--no-record"]
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        summary = json.loads((out / "summary.json").read_text())
        assert summary["split"] == "train"
        assert summary["episodes"] == 3 and summary["errors"] == 0
        episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
        assert sorted(e["key"] for e in episodes) == [
            "two-rewards/train/0",
            "write-word/train/0",
            "write-word/train/1",
        ]
        assert {e["key"]: e["reward"] for e in episodes} == {e["key"]: reward for e in episodes}, agent


def test_an_explicit_split_the_task_lacks_names_the_one_it_has(cua_tasks: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(cua_tasks), "--split", "test", "--output", str(tmp_path / "r")])
    assert result.exit_code != 0
    assert "no @tasks_config for split 'test'" in result.output and "--split train" in result.output
    write_task(cua_tasks / "ours", OUR_STYLE_TEST_SPLIT)
    result = CliRunner().invoke(main, ["run", str(cua_tasks), "--output", str(tmp_path / "r2")])
    assert result.exit_code != 0
    assert "different splits by default" in result.output and "--split" in result.output


def test_the_runner_records_the_size_the_task_asked_for(cua_tasks: Path, tmp_path: Path) -> None:
    config = RunConfig(str(cua_tasks), tmp_path / "run", split="train", max_parallel=1, heartbeat_timeout=2)
    summary = Runner(config).run()
    assert summary["mean_reward"] == 1.0
    sizes = {
        row.metadata.others["episode"]: row.metadata.others["resolution"]
        for row in DatasetReader(tmp_path / "run/trajectories")
    }
    # One env server ran all three: 1024x768 for write-word, back to its own 1280x800 for two-rewards.
    assert sizes == {
        "write-word/train/0": [1024, 768],
        "write-word/train/1": [1024, 768],
        "two-rewards/train/0": [1280, 800],
    }


def test_computer_block_size_os_and_reward_lists_on_an_env_server(
    cua_tasks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUA_LIBVIRT_IMAGES", str(tmp_path / "no-images"))  # the server's process inherits it
    returns = write_task(
        tmp_path / "returns", RETURNS.format(values=[[1.0], [0.0], [1.0, 0.0], 1, True, [], ["yes"], [1.5], None])
    )
    windows = write_task(tmp_path / "windows-only", WINDOWS_ONLY)
    with cb.make(backend="sim", width=900, height=700, observes="rgb") as env:
        obs, info = env.reset(options={"task": str(cua_tasks / "write-word")})
        assert (obs["width"], obs["height"]) == (1024, 768) and obs["screenshot"].shape == (768, 1024, 3)
        assert info["task"]["task_id"] == "write-word-hello" and info["task"]["split"] == "train"
        assert env.session("read_file", path="~/notes.txt") == "left by setup"
        assert env.session("file_exists", path="/tmp/answer.txt") is False
        assert env.evaluate() == 0.0
        env.session("write_file", path="/tmp/answer.txt", content="  hello \n")
        assert env.evaluate() == 1.0
        obs, _ = env.reset(options={"task": str(cua_tasks / "two-rewards")})
        assert (obs["width"], obs["height"]) == (900, 700)  # no computer block: the server's own size
        env.session("write_file", path="a.txt", content="a")
        assert env.evaluate() == 0.5  # [1.0, 0.0]: the mean, as Cua Bench scores it
        for variant, reward in enumerate([1.0, 0.0, 0.5, 1.0, 1.0]):
            env.reset(options={"task": str(returns), "variant": variant, "observes": "none"})
            assert env.evaluate() == reward, variant
        for variant in range(5, 9):
            env.reset(options={"task": str(returns), "variant": variant, "observes": "none"})
            with pytest.raises(RemoteError, match=r"task returns .*variant \d: @evaluate_task must return a reward"):
                env.evaluate()
        with pytest.raises(
            RemoteError, match="task windows-only wants os_type windows; backend sim serves linux"
        ) as no:
            env.reset(options={"task": str(windows)})
        # The backend that serves Windows is installed (cua-bench-libvirt) but has no image of the user's Windows
        # (CUA_LIBVIRT_IMAGES, an empty folder): the message says so and how to make one.
        assert "backend libvirt-windows serves windows but cannot start here: no Windows image under" in str(no.value)
        assert "cua-bench image build libvirt-windows --backend-option media=PATH" in str(no.value)
        win11 = write_task(tmp_path / "win11", WINDOWS_ONLY.replace('"os_type": "windows"', '"os_type": "win11"'))
        with pytest.raises(
            RemoteError, match=r"wants os_type win11; backend sim serves linux \(backend libvirt-windows"
        ):
            env.reset(options={"task": str(win11)})


# -- local: the starter task as Cua writes it, shell included ------------------------------------

STARTER = """
import cua_bench as cb

ANSWER = "/tmp/answer.txt"


@cb.tasks_config("train")
def load():
    return [cb.Task(description="Write hello into /tmp/answer.txt", task_id="starter", metadata={"word": "hello"},
                    computer={"provider": "native", "setup_config": {"os_type": "linux", "width": 800, "height": 600}})]


@cb.setup_task("train")
async def start(task_cfg, session):
    # Cua's starter removes /tmp/answer.txt with the shell; a program here sees the host's /tmp
    # (only the session's file calls map /tmp to the environment's own), so this removes $TMPDIR's.
    await session.run_command('rm -f "$TMPDIR/answer.txt"', check=False)
    result = await session.run_command("exit 4", check=False)
    assert result["return_code"] == 4 and not result["success"]


@cb.evaluate_task("train")
async def evaluate(task_cfg, session):
    if not await session.file_exists(ANSWER):
        return [0.0]
    return [1.0 if (await session.read_file(ANSWER)).strip() == task_cfg.metadata["word"] else 0.0]


@cb.solve_task("train")
async def solve(task_cfg, session):
    await session.write_file(ANSWER, task_cfg.metadata["word"])
"""


@pytest.mark.skipif(
    not (shutil.which("Xvfb") and shutil.which("openbox")) and not os.environ.get("CI"),
    reason="the local backend needs Xvfb and openbox",
)
def test_the_starter_task_on_local(tmp_path: Path, root: Path) -> None:
    task = write_task(tmp_path / "starter", STARTER)
    with cb.make(str(task), backend="local", width=640, height=480, observes="none") as env:
        obs, _ = env.reset()
        assert (obs["width"], obs["height"]) == (800, 600)  # the display was started again at the task's size
        assert env.evaluate() == 0.0
        env.solve()
        assert env.evaluate() == 1.0
        # /tmp/answer.txt is the environment's own tmp, not the host's
        assert env.session("run_command", command='cat "$TMPDIR/answer.txt"')["stdout"] == "hello"
        failed = env.session("run_command", command="exit 2")
        assert (failed["return_code"], failed["success"], failed["returncode"]) == (2, False, 2)
        with pytest.raises(RemoteError, match=r"CommandFailed.*exited with code 2"):
            env.session("run_command", command="exit 2", check=True)
