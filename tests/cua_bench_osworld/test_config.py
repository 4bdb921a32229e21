"""OSWorld setup steps and getters through a Session: a fake one with a shell, and the real sim."""

from __future__ import annotations

import asyncio
import io
import json
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from support.folder_server import serve_folder

from cua_bench.commands import CommandResult
from cua_bench.session import NotSupported, Session
from cua_bench.sim import SimDesktop, SimSession
from cua_bench_osworld import getters
from cua_bench_osworld.apps import APPS, apps_lacking, host_reach, needed_apps
from cua_bench_osworld.config import Context, has_shell, program_of, run_steps
from cua_bench_osworld.getters import get
from cua_bench_osworld.loader import PlatformError, Step, TaskSkipped, load_task
from cua_bench_osworld.support import check_support
from cua_bench_osworld.taskset import task_module
from cua_core.actions import Action, Click, KeyPress
from cua_core.errors import SecurityError


class ShellSession(Session):
    """In-memory files, a scripted shell (command -> result) and a window list; records everything."""

    def __init__(self, *, shell: bool = True, outputs: dict[str, CommandResult] | None = None) -> None:
        self.width, self.height = 1280, 800
        self.files: dict[str, bytes] = {}
        self.commands: list[str] = []
        self.applied: list[Action] = []
        self.shell = shell
        self.outputs = outputs or {}
        self.window_list: list[dict[str, Any]] = []
        self.tree: list[dict[str, Any]] = []  # what accessibility_tree gives
        self.errors: dict[str, Exception] = {}  # path -> what read_bytes raises for it

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        self.applied += actions
        return [None] * len(actions)

    async def screenshot(self) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (4, 4)).save(out, "PNG")
        return out.getvalue()

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return self.tree

    async def windows(self) -> list[dict[str, Any]]:
        return self.window_list

    async def launch(self, app: str, **params: Any) -> str:
        raise NotSupported("launch through the shell")

    async def read_bytes(self, path: str) -> bytes:
        if path in self.errors:
            raise self.errors[path]
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]

    async def write_file(self, path: str, content: bytes | str) -> None:
        self.files[path] = content.encode() if isinstance(content, str) else content

    async def run_command(self, command: str, timeout: float = 30.0) -> CommandResult:
        if not self.shell:
            raise NotSupported("no shell here")
        self.commands.append(command)
        result = self.outputs.get(command, CommandResult(0, "", ""))
        if callable(result):
            return result()  # type: ignore[no-any-return]
        return result


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    cache = tmp_path / "cache"
    cache.mkdir()
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    return Context(ShellSession(), task_dir, cache, password="pw", open_timeout=0.5)


def run(steps: list[tuple[str, dict[str, Any]]], ctx: Context, *, deadline: float | None = None) -> None:
    if deadline is not None:  # how long ``until`` and ``open`` wait
        ctx.open_timeout = ctx.until_timeout = deadline
    asyncio.run(run_steps([Step(t, p) for t, p in steps], ctx))


def session_of(ctx: Context) -> ShellSession:
    assert isinstance(ctx.session, ShellSession)
    return ctx.session


# -- steps ---------------------------------------------------------------------------------------


def test_execute_fills_in_placeholders_from_the_screen(ctx: Context) -> None:
    code = (
        "import pyautogui; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}); x={SCREEN_WIDTH}x{SCREEN_HEIGHT}"
    )
    run(
        [
            ("execute", {"command": ["python", "-c", code]}),
            ("execute", {"command": "echo {CLIENT_PASSWORD} | sudo -S true", "shell": True}),
        ],
        ctx,
    )
    first, second = session_of(ctx).commands
    assert shlex.split(first) == ["python", "-c", "import pyautogui; pyautogui.click(640, 400); x=1280x800"]
    assert second == "echo pw | sudo -S true"


def test_command_is_execute_and_stdout_goes_to_the_cache(ctx: Context) -> None:
    session_of(ctx).outputs["ls /tmp"] = CommandResult(0, "a\nb\n", "warn")
    run([("command", {"command": ["ls", "/tmp"], "stdout": "out.txt", "stderr": "err.txt"})], ctx)
    assert (ctx.cache_dir / "out.txt").read_text() == "a\nb\n"
    assert (ctx.cache_dir / "err.txt").read_text() == "warn"
    assert asyncio.run(get(ctx, {"type": "cache_file", "path": "out.txt"})) == str(ctx.cache_dir / "out.txt")


def test_execute_until_repeats_the_command(ctx: Context) -> None:
    answers = iter([CommandResult(1, "", ""), CommandResult(1, "", ""), CommandResult(0, "ready", "")])
    session_of(ctx).outputs["probe"] = lambda: next(answers)  # type: ignore[assignment]
    run([("execute", {"command": "probe", "shell": True, "until": {"stdout": "ready"}})], ctx)
    assert session_of(ctx).commands == ["probe"] * 3


def test_a_failing_command_does_not_stop_setup(ctx: Context) -> None:
    session_of(ctx).outputs["false"] = CommandResult(1, "", "nope")
    # OSWorld logs and goes on: the step after the failing one still runs.
    run([("execute", {"command": "false", "shell": True}), ("execute", {"command": "true", "shell": True})], ctx)
    assert session_of(ctx).commands == ["false", "true"]
    # ... and the failure is recorded: which step, why.
    assert [str(f) for f in ctx.failures] == ["setup step 1 (execute): `false` exited 1: nope"]
    assert not ctx.failures[0].platform


def test_failed_steps_are_recorded_with_the_computers_fault_marked(ctx: Context) -> None:
    session = session_of(ctx)
    session.outputs["echo pw | sudo -S mkdir /home/user/Shared"] = CommandResult(
        127, "", "bash: line 1: sudo: command not found"
    )
    pyautogui = 'python -c \'import pyautogui; pyautogui.hotkey("ctrl", "s")\''
    session.outputs[pyautogui] = CommandResult(1, "", "Traceback ...\nModuleNotFoundError: No module named 'pyautogui'")
    session.outputs["command -v gimp >/dev/null 2>&1"] = CommandResult(1, "", "")
    session.outputs["slow"] = CommandResult(1, "", "")
    session.outputs["wmctrl -a 'Untitled 1 - LibreOffice Calc'"] = CommandResult(1, "", "")  # no such window
    run(
        [
            ("execute", {"command": "echo {CLIENT_PASSWORD} | sudo -S mkdir /home/user/Shared", "shell": True}),
            ("execute", {"command": pyautogui, "shell": True}),
            ("launch", {"command": ["gimp", "/home/user/a.png"]}),
            ("execute", {"command": "slow", "shell": True, "until": {"returncode": 0}}),
            ("activate_window", {"window_name": "Untitled 1 - LibreOffice Calc"}),
            ("open", {"path": "/home/user/report.xlsx"}),
        ],
        ctx,
        deadline=0,
    )
    assert [str(f) for f in ctx.failures] == [
        "setup step 1 (execute): `echo pw | sudo -S mkdir /home/user/Shared`: exit 127, the shell cannot run it: "
        "bash: line 1: sudo: command not found",
        f"setup step 2 (execute): `{pyautogui}`: python lacks the module pyautogui (exit 1)",
        "setup step 3 (launch): gimp is not on this computer (launch gimp /home/user/a.png)",
        "setup step 4 (execute): `slow` did not reach {'returncode': 0} in 0 s (last exit 1)",
        "setup step 5 (activate_window): no window 'Untitled 1 - LibreOffice Calc'",
        "setup step 6 (open): no window named like 'report.xlsx' appeared in 0 s (open /home/user/report.xlsx)",
    ]
    assert [f.platform for f in ctx.failures] == [True, True, True, False, False, False]
    assert not any(c.startswith("nohup sh -c 'gimp") for c in session.commands)  # never started


def test_a_postconfig_step_the_computer_cannot_do_makes_the_evaluation_an_error(ctx: Context) -> None:
    session = session_of(ctx)
    save = 'python -c \'import pyautogui; pyautogui.hotkey("ctrl", "s")\''
    session.outputs[save] = CommandResult(1, "", "ModuleNotFoundError: No module named 'pyautogui'")
    session.outputs["pkill -f soffice"] = CommandResult(1, "", "")  # nothing to kill: the task's business
    steps = [Step("execute", {"command": "pkill -f soffice", "shell": True})]
    asyncio.run(run_steps(steps, ctx, phase="postconfig"))
    assert [str(f) for f in ctx.failures] == [
        "postconfig step 1 (execute): `pkill -f soffice` exited 1: no output on stderr"
    ]
    steps.append(Step("execute", {"command": save, "shell": True}))
    with pytest.raises(PlatformError, match=r"postconfig step 2 \(execute\): .* python lacks the module pyautogui"):
        asyncio.run(run_steps(steps, ctx, phase="postconfig"))
    # In setup the same failure is recorded and setup goes on, as OSWorld's does.
    asyncio.run(run_steps(steps, ctx, phase="setup"))
    assert str(ctx.failures[-1]).startswith("setup step 2 (execute)")


def test_programs_of_commands() -> None:
    assert program_of(["google-chrome", "--remote-debugging-port=1337"]) == "google-chrome"
    assert program_of("VLC_VERBOSE=-1 vlc --start-time=3") == "vlc"
    assert program_of("/usr/bin/thunderbird") == "/usr/bin/thunderbird"
    assert program_of("cd /home/user && ./setup.sh") is None  # a compound: not plain to see
    assert program_of("echo 'unclosed") is None and program_of("") is None


def test_launch_and_open_start_programs_in_the_background(ctx: Context) -> None:
    session_of(ctx).window_list = [
        {
            "id": "w",
            "title": "report.xlsx - LibreOffice Calc",
            "app": "soffice",
            "bounds": [0, 0, 1000, 1000],
            "focused": True,
        }
    ]
    run(
        [
            ("launch", {"command": ["google-chrome", "--remote-debugging-port=1337"]}),
            ("launch", {"command": "VLC_VERBOSE=-1 vlc --no-audio", "shell": True}),
            ("open", {"path": "/home/user/report.xlsx"}),
        ],
        ctx,
    )
    commands = session_of(ctx).commands
    probes = [c for c in commands if c.startswith("command -v")]
    assert probes == [f"command -v {p} >/dev/null 2>&1" for p in ("google-chrome", "vlc", "xdg-open")]
    chrome, vlc, xdg = [c for c in commands if c not in probes]
    assert chrome == "nohup sh -c 'google-chrome --remote-debugging-port=1337' >/dev/null 2>&1 &"
    assert shlex.split(vlc)[:4] == ["nohup", "sh", "-c", "VLC_VERBOSE=-1 vlc --no-audio"]
    assert xdg == "nohup xdg-open /home/user/report.xlsx >/dev/null 2>&1 &"


def test_steps_that_need_a_shell_are_skipped_without_one(ctx: Context) -> None:
    session_of(ctx).shell = False
    assert asyncio.run(has_shell(ctx.session)) is False
    for step in (("execute", {"command": ["ls"]}), ("launch", {"command": ["gimp"]}), ("open", {"path": "/x"})):
        with pytest.raises(TaskSkipped, match="backend has no shell"):
            run([step], ctx)


def test_unknown_steps_are_skips_and_broken_ones_are_errors(ctx: Context) -> None:
    with pytest.raises(TaskSkipped, match="unsupported config step: update_browse_history"):
        run([("update_browse_history", {"history": []})], ctx)
    with pytest.raises(Exception, match=r"step 1 \(download\) failed"):
        run([("download", {"files": [{"url": "", "path": "/x"}]})], ctx)


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[str]:
    served = tmp_path / "served"
    served.mkdir()
    (served / "data.bin").write_bytes(b"from loopback")

    with serve_folder(served) as url:
        yield url


def test_download_from_local_paths_loopback_and_the_mirror_only(ctx: Context, tmp_path: Path, loopback: str) -> None:
    (ctx.task_dir / "beside.txt").write_text("relative")
    absolute = tmp_path / "abs.txt"
    absolute.write_text("absolute")
    mirror = tmp_path / "mirror"
    (mirror / "gimp" / "t1").mkdir(parents=True)
    (mirror / "gimp" / "t1" / "gate.jpeg").write_bytes(b"jpeg")
    ctx.mirror = mirror
    hf = "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main"
    run(
        [
            (
                "download",
                {
                    "files": [
                        {"url": "beside.txt", "path": "/home/user/a.txt"},
                        {"url": str(absolute), "path": "/home/user/b.txt"},
                        {"url": absolute.as_uri(), "path": "/home/user/c.txt"},
                        {"url": f"{loopback}/data.bin", "path": "/home/user/d.bin"},
                        {"url": f"{hf}/gimp/t1/gate.jpeg", "path": "/home/user/gate.jpeg"},
                    ]
                },
            ),
            ("upload_file", {"files": [{"local_path": "beside.txt", "path": "/home/user/e.txt"}]}),
        ],
        ctx,
    )
    files = session_of(ctx).files
    assert files == {
        "/home/user/a.txt": b"relative",
        "/home/user/b.txt": b"absolute",
        "/home/user/c.txt": b"absolute",
        "/home/user/d.bin": b"from loopback",
        "/home/user/gate.jpeg": b"jpeg",
        "/home/user/e.txt": b"relative",
    }
    with pytest.raises(TaskSkipped, match="unsupported: network download"):
        run([("download", {"files": [{"url": f"{hf}/gimp/t2/absent.png", "path": "/x"}]})], ctx)
    with pytest.raises(TaskSkipped, match="unsupported: network download"):
        run([("download", {"files": [{"url": "http://10.0.0.1/x", "path": "/x"}]})], ctx)


def test_windows_are_activated_and_closed_with_wmctrl_when_it_works(ctx: Context) -> None:
    run(
        [
            ("activate_window", {"window_name": "Visual Studio Code"}),
            ("close_window", {"window_name": "Mail.thunderbird", "strict": True, "by_class": True}),
        ],
        ctx,
    )
    assert session_of(ctx).commands == ["wmctrl -a 'Visual Studio Code'", "wmctrl -xFc Mail.thunderbird"]
    assert session_of(ctx).applied == []


def test_without_wmctrl_windows_are_clicked_and_closed_with_alt_f4(ctx: Context) -> None:
    session = session_of(ctx)
    missing = CommandResult(127, "", "wmctrl: not found")
    session.outputs = {"wmctrl -a terminal": missing, "wmctrl -c Terminal": missing, "wmctrl -a Nothing": missing}
    session.window_list = [
        {"id": "a", "title": "Files", "app": "nautilus", "bounds": [0, 0, 500, 500], "focused": True},
        {
            "id": "b",
            "title": "user@host: ~ - Terminal",
            "app": "gnome-terminal",
            "bounds": [500, 100, 900, 600],
            "focused": False,
        },
    ]
    run([("activate_window", {"window_name": "terminal"}), ("activate_window", {"window_name": "Nothing"})], ctx)
    (click,) = session.applied
    assert isinstance(click, Click) and click.coordinate is not None
    assert click.coordinate.x == 700 and 100 < click.coordinate.y < 125  # on the title bar
    session.applied.clear()
    run([("close_window", {"window_name": "Terminal"})], ctx)
    assert session.applied[-1] == KeyPress(("alt", "f4"))


# -- getters --------------------------------------------------------------------------------------


def test_vm_file_copies_into_the_cache_and_gives_none_for_missing_files(ctx: Context) -> None:
    session_of(ctx).files["/home/user/a.txt"] = b"A"
    got = asyncio.run(get(ctx, {"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt"}))
    assert got == str(ctx.cache_dir / "a.txt") and Path(got).read_bytes() == b"A"
    assert asyncio.run(get(ctx, {"type": "vm_file", "path": "/home/user/none.txt", "dest": "n.txt"})) is None
    multi = {
        "type": "vm_file",
        "multi": True,
        "path": ["/home/user/a.txt", "/nope", "/home/user/a.txt"],
        "dest": ["1", "2", "3"],
        "gives": [0, 1],
    }
    assert asyncio.run(get(ctx, multi)) == [str(ctx.cache_dir / "1"), None]
    stamped = asyncio.run(
        get(ctx, {"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt", "time_suffix": True})
    )
    assert Path(stamped).name.startswith("a_") and stamped.endswith(".txt")


def test_cloud_file_reads_local_files_once(ctx: Context) -> None:
    (ctx.task_dir / "gold.txt").write_text("gold")
    config = {"type": "cloud_file", "path": "gold.txt", "dest": "gold_copy.txt"}
    assert Path(asyncio.run(get(ctx, config))).read_text() == "gold"
    (ctx.task_dir / "gold.txt").write_text("changed")
    assert Path(asyncio.run(get(ctx, config))).read_text() == "gold"  # OSWorld's cache: fetched once
    with pytest.raises(TaskSkipped, match="network download"):
        asyncio.run(get(ctx, {"type": "cloud_file", "path": "https://example.com/x", "dest": "x"}))


def test_command_getters_rule_and_sizes(ctx: Context) -> None:
    session = session_of(ctx)
    session.outputs["ls /home/user/Desktop"] = CommandResult(0, "a.pdf\n", "")
    session.outputs["cat /x"] = CommandResult(1, "", "cat: /x: No such file")
    session.window_list = [{"id": "w", "title": "GIMP", "app": "gimp", "bounds": [0, 0, 500, 250], "focused": True}]
    assert asyncio.run(get(ctx, {"type": "vm_command_line", "command": ["ls", "/home/user/Desktop"]})) == "a.pdf\n"
    assert (
        asyncio.run(get(ctx, {"type": "vm_command_error", "command": "cat /x", "shell": True}))
        == "cat: /x: No such file"
    )
    assert asyncio.run(get(ctx, {"type": "rule", "rules": {"expected": "100\n"}})) == {"expected": "100\n"}
    assert asyncio.run(get(ctx, {"type": "vm_screen_size"})) == {"width": 1280, "height": 800}
    assert asyncio.run(get(ctx, {"type": "vm_window_size", "app_class_name": "gimp"})) == {"width": 640, "height": 200}
    assert asyncio.run(get(ctx, {"type": "vm_window_size", "app_class_name": "vlc"})) is None
    with pytest.raises(FileNotFoundError):
        asyncio.run(get(ctx, {"type": "cache_file", "path": "absent"}))
    with pytest.raises(TaskSkipped, match="unsupported getter: no_such_getter"):
        asyncio.run(get(ctx, {"type": "no_such_getter"}))
    session.shell = False
    with pytest.raises(TaskSkipped, match="backend has no shell"):
        asyncio.run(get(ctx, {"type": "vm_command_line", "command": "ls"}))


def _terminal(text: str, *, active: bool = True, focused: bool = True) -> dict[str, Any]:
    """A GNOME Terminal window as the local backend's accessibility tree gives it."""
    states = ["showing", "focused"] if focused else ["showing"]
    terminal = {"role": "terminal", "name": "Terminal", "states": states, "value": text, "children": []}
    filler = {"role": "filler", "name": "", "states": ["showing"], "value": None, "children": [terminal]}
    return {"role": "window", "name": "user@host: ~", "app": "gnome-terminal-server", "value": None,
            "states": ["showing", "active"] if active else ["showing"], "children": [filler]}  # fmt: skip


def test_vm_terminal_output_reads_the_focused_terminal_of_the_active_window(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OSWorld's ``/terminal``: exactly one focused terminal in an active GNOME Terminal window, its text
    right-stripped; None otherwise (which its metric scores 0). Widgets missing altogether is the
    computer's fault: the accessibility bus does not reach the terminal."""
    session = session_of(ctx)

    def output() -> Any:
        return asyncio.run(get(ctx, {"type": "vm_terminal_output"}))

    assert output() is None  # no terminal
    session.tree = [{"role": "window", "name": "xterm", "app": "xterm", "states": ["active"], "children": []}]
    assert output() is None
    session.tree = [_terminal("user@host:~$ stty size\n43 132\nuser@host:~$   \n\n")]
    assert output() == "user@host:~$ stty size\n43 132\nuser@host:~$"
    session.tree = [_terminal("in the back", active=False), _terminal("in front")]
    assert output() == "in front"
    session.tree = [_terminal("one"), _terminal("two")]  # two candidates: OSWorld gives None
    assert output() is None
    session.tree = [_terminal("unfocused", focused=False)]
    assert output() is None
    opening = [{**_terminal(""), "children": []}]  # a window whose widgets are not on the bus yet
    reads = iter([opening, opening, [_terminal("user@host:~$ ")]])
    session.tree = opening
    monkeypatch.setattr(session, "accessibility_tree", lambda: asyncio.sleep(0, next(reads)))
    assert output() == "user@host:~$"  # waited for them
    monkeypatch.setattr(getters, "A11Y_WAIT", 0.3)
    monkeypatch.setattr(session, "accessibility_tree", lambda: asyncio.sleep(0, opening))
    with pytest.raises(PlatformError, match="GNOME Terminal's windows expose no accessibility tree"):
        output()


def test_a_task_scored_from_the_terminal_needs_gnome_terminal(shared_fixtures: Path) -> None:
    """os/13584542 opens a terminal by keys alone, so only its getter says which terminal it reads."""
    task = load_task(shared_fixtures / "osworld_more" / "os" / "13584542-872b-42d8-b299-866967b5c3ef.json")
    assert "GNOME Terminal" in [app.name for app in needed_apps(task)]
    assert check_support(task, backend="docker-osworld").supported
    reason = check_support(task, backend="docker").reason or ""
    assert reason.startswith("unsupported app: GNOME Terminal") and "gnome-terminal" in reason


def test_a_task_scored_from_the_wallpaper_setting_needs_settings_that_persist(shared_fixtures: Path) -> None:
    """A shared host keeps settings in memory, so the wallpaper the agent set could not be read back there."""
    task = load_task(shared_fixtures / "osworld_more" / "vlc" / "efcf0d81-0835-4880-b2fd-d866e8bc2294.json")
    assert "settings that persist (gsettings)" in host_reach(task)
    assert "gsettings" in [app.name for app in needed_apps(task)]


def test_getters_fail_as_errors_when_the_computer_is_at_fault(ctx: Context) -> None:
    """A 0 the agent did not earn is an error: a refused path, a missing program, a dead window list."""
    session = session_of(ctx)
    refused = (
        "file path '/home/user/Desktop/test.py' resolves to /home/user/Desktop/test.py, outside the environment's home"
    )
    session.errors["/home/user/Desktop/test.py"] = SecurityError(refused)
    session.errors["/home/user/locked.txt"] = PermissionError(13, "Permission denied")
    session.errors["/home/user/Desktop"] = IsADirectoryError(21, "Is a directory")
    for path in ("/home/user/Desktop/test.py", "/home/user/locked.txt"):
        with pytest.raises(
            PlatformError, match=f"vm_file: the computer cannot read {path}: (SecurityError|PermissionError)"
        ):
            asyncio.run(get(ctx, {"type": "vm_file", "path": path, "dest": "x"}))
    # OSWorld's own None (its metric scores it 0): a file, or a folder in its place, the agent did not make
    assert asyncio.run(get(ctx, {"type": "vm_file", "path": "/home/user/Desktop", "dest": "x"})) is None
    assert asyncio.run(get(ctx, {"type": "vm_file", "path": "/home/user/absent.txt", "dest": "x"})) is None

    session.outputs["python -c 'print(1)'"] = CommandResult(127, "", "bash: line 1: python: command not found")
    session.outputs["command -v python >/dev/null 2>&1"] = CommandResult(1, "", "")
    with pytest.raises(
        PlatformError, match=r"vm_command_line: python is not on this computer \(`python -c 'print\(1\)'`\)"
    ):
        asyncio.run(get(ctx, {"type": "vm_command_line", "command": ["python", "-c", "print(1)"]}))
    # A script the agent was to write and did not: the shell's 127 is the agent's, scored as OSWorld does.
    session.outputs["./check.sh"] = CommandResult(127, "", "bash: line 1: ./check.sh: No such file or directory")
    assert asyncio.run(get(ctx, {"type": "vm_command_error", "command": "./check.sh", "shell": True})).endswith(
        "No such file or directory"
    )

    with pytest.raises(PlatformError, match=r"cloud_file: cannot read gone.txt .*FileNotFoundError"):
        asyncio.run(get(ctx, {"type": "cloud_file", "path": "gone.txt", "dest": "gone.txt"}))

    async def no_windows() -> list[dict[str, Any]]:
        raise ConnectionError("the X server went away")

    session.windows = no_windows  # type: ignore[method-assign]
    with pytest.raises(PlatformError, match="getter vm_window_size failed: ConnectionError: the X server went away"):
        asyncio.run(get(ctx, {"type": "vm_window_size", "app_class_name": "gimp"}))


# -- apps -----------------------------------------------------------------------------------------


def test_a_task_whose_app_the_computer_lacks_is_skipped_naming_it(ctx: Context, tmp_path: Path) -> None:
    """Judged by the computer itself at setup: no GIMP, no pyautogui -> a skip, never a 0."""
    session = session_of(ctx)
    task = tmp_path / "gimp" / "t.json"
    task.parent.mkdir()
    launch = {"type": "launch", "parameters": {"command": ["gimp", "/home/user/a.png"]}}
    press = {"type": "execute", "parameters": {"command": ["python3", "-c", "import pyautogui; pyautogui.press('f')"]}}
    evaluator = {"func": "exact_match", "result": {"type": "vm_command_line", "command": "echo 1"},
                 "expected": {"type": "rule", "rules": {"expected": "1\n"}}}  # fmt: skip
    task.write_text(json.dumps({"id": "t", "instruction": "i", "config": [launch, press], "evaluator": evaluator}))
    module = task_module(task, mirror=None)
    (variant,) = module.variants("test")
    setup = module.function("setup_task", "test")
    assert setup is not None
    session.outputs["command -v gimp >/dev/null 2>&1"] = CommandResult(1, "", "")
    session.outputs["python3 -c 'import pyautogui' >/dev/null 2>&1"] = CommandResult(1, "", "")
    with pytest.raises(TaskSkipped) as raised:
        asyncio.run(setup(variant, session))
    assert raised.value.reason == (
        "unsupported app: GIMP is not on this computer (Debian: gimp); pyautogui is not on this computer "
        "(python3 with pyautogui on the display; not in Debian: pip install pyautogui on the computer)"
    )
    assert not any(c.startswith("nohup") for c in session.commands)  # nothing of the task ran
    lacking = asyncio.run(apps_lacking(session, [a for a in APPS if a.name in ("GIMP", "VLC")]))
    assert [a.name for a in lacking] == ["GIMP"]
    # With both there, setup runs and reports what it did not do in the variant's metadata.
    session.outputs.clear()
    session.outputs["python3 -c 'import pyautogui; pyautogui.press('\"'\"'f'\"'\"')'"] = CommandResult(1, "", "boom")
    asyncio.run(setup(variant, session))
    assert variant.metadata["setup_failures"] == [
        "setup step 2 (execute): `python3 -c 'import pyautogui; pyautogui.press('\"'\"'f'\"'\"')'` exited 1: boom"
    ]


# -- the sim backend ----------------------------------------------------------------------------


def test_files_and_windows_on_the_sim_desktop(tmp_path: Path) -> None:
    session = SimSession(SimDesktop(800, 600))
    (tmp_path / "seed.txt").write_text("seed")
    ctx = Context(session, tmp_path, tmp_path, open_timeout=0)

    async def scenario() -> None:
        assert not await has_shell(session)
        await run_steps(
            [
                Step("download", {"files": [{"url": "seed.txt", "path": "/home/user/Desktop/seed.txt"}]}),
                Step("sleep", {"seconds": 0}),
            ],
            ctx,
        )
        assert await session.read_bytes("/home/user/Desktop/seed.txt") == b"seed"
        assert await get(ctx, {"type": "vm_file", "path": "/home/user/Desktop/seed.txt", "dest": "s.txt"}) == str(
            tmp_path / "s.txt"
        )
        assert await get(ctx, {"type": "vm_file", "path": "/home/user/Desktop/none.txt", "dest": "n.txt"}) is None
        first = session.sim.open_window("First window", x=20, y=20, width=300, height=200)
        session.sim.open_window("Second window", x=400, y=300, width=300, height=200)
        assert session.sim.focused_window is not first
        await run_steps([Step("activate_window", {"window_name": "first"})], ctx)
        assert session.sim.focused_window is first
        await run_steps([Step("close_window", {"window_name": "Second window", "strict": True})], ctx)
        assert [w["title"] for w in await session.windows()] == ["First window"]
        assert await get(ctx, {"type": "vm_screen_size"}) == {"width": 800, "height": 600}
        with pytest.raises(TaskSkipped, match="backend has no shell"):
            await run_steps([Step("execute", {"command": ["ls"]})], ctx)

    asyncio.run(scenario())


def test_json_parameters_round_trip(ctx: Context) -> None:
    # steps come from JSON: parameters OSWorld's server ignores are ignored here too
    steps = json.loads('[{"type": "execute", "parameters": {"command": "echo hi", "shell": true, "note": "x"}}]')
    run([(s["type"], s["parameters"]) for s in steps], ctx)
    assert session_of(ctx).commands == ["echo hi"]


def test_cache_names_stay_in_the_cache(ctx: Context) -> None:
    session_of(ctx).files["/a"] = b"A"
    got = asyncio.run(get(ctx, {"type": "vm_file", "path": "/a", "dest": "../../escape.txt"}))
    assert got == str(ctx.cache_dir / "escape.txt")


def test_chrome_settings_getters_read_chrome_then_chromium_with_osworlds_fallbacks(ctx: Context) -> None:
    files = session_of(ctx).files

    def value(kind: str) -> Any:
        return asyncio.run(get(ctx, {"type": kind}))

    # No profile at all: what OSWorld's getters give when the file is missing.
    assert (value("profile_name"), value("enable_do_not_track"), value("new_startup_page")) == (None, "false", "Google")
    assert value("chrome_font_size") == {"default_fixed_font_size": 13, "default_font_size": 16}
    assert value("bookmarks") == [] and value("enable_safe_browsing") == "false"
    chromium, chrome = "/home/user/.config/chromium/Default", "/home/user/.config/google-chrome/Default"
    files[f"{chromium}/Preferences"] = json.dumps(
        {"profile": {"name": "Thomas"}, "enable_do_not_track": True, "session": {"restore_on_startup": 5},
         "safebrowsing": {"enabled": True}, "webkit": {"webprefs": {"default_font_size": 20}}}
    ).encode()  # fmt: skip
    files[f"{chromium}/Bookmarks"] = json.dumps({"roots": {"bookmark_bar": {"children": []}}}).encode()
    trio = ("profile_name", "enable_do_not_track", "new_startup_page")
    assert tuple(map(value, trio)) == ("Thomas", "true", "true")
    assert value("enable_safe_browsing") == "true" and value("chrome_font_size") == {"default_font_size": 20}
    assert value("bookmarks") == {"bookmark_bar": {"children": []}}
    # Chrome's own profile, where there is one, is the one OSWorld reads.
    files[f"{chrome}/Preferences"] = json.dumps({"profile": {"name": "Ann"}}).encode()
    assert tuple(map(value, trio)) == ("Ann", "false", "true")
    files[f"{chrome}/Preferences"] = b"{not json"
    assert value("profile_name") is None  # unreadable, as OSWorld's except-fallback
    session_of(ctx).errors[f"{chrome}/Preferences"] = SecurityError("outside the environment")
    with pytest.raises(PlatformError, match=r"cannot read /home/user/\.config/google-chrome/Default/Preferences"):
        value("profile_name")  # a refusal is the computer's fault, never OSWorld's fallback
