"""What the desktop tasks share: seeded variants, files, windows, and the moves their oracles make.

Not a task folder (no ``main.py``): tasks import it as ``from cua_bench_tasks_desktop._common import ...``.

The tasks run real Debian apps on the ``local`` backend. Setup may prepare anything (files, apps,
settings, a web server). Oracles act only through ``session.apply`` (keys and clicks at places a
person would find from the window list) and wait on what a person would watch: window titles,
dialogs coming and going, a file showing up. They never write the answer themselves. Evaluators
read the real result: file contents, spreadsheet cells parsed from the saved file, window titles,
settings files, and what a loopback server received (see ``_web.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import random
import shlex
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from cua_bench import Session, Task, TaskError, setup_task, solve_task, tasks_config
from cua_bench.builders import TaskFn
from cua_bench.filestate import TRASH, Snapshot, changes, holders, shell_snapshot
from cua_core import Action, Click, CuaError, KeyPress, Point, TypeText, Wait

__all__ = [
    "ADJECTIVES",
    "ENDINGS",
    "NEW_WORDS",
    "NOUNS",
    "OUTPUT_IS_THE_WORK",
    "REPLACEABLE",
    "TEST_VARIANTS",
    "TRAIN_VARIANTS",
    "TRASH",
    "VERBS",
    "WORDS",
    "Match",
    "act",
    "app_wrote",
    "caret_to",
    "click_at",
    "digest",
    "distinct",
    "edit_and_save",
    "env_var",
    "file_name",
    "file_title",
    "files_since_setup",
    "gone",
    "in_terminal",
    "key",
    "listing",
    "loaders",
    "moved",
    "no_window",
    "nothing_else_changed",
    "open_dialog",
    "open_in_mousepad",
    "output_bytes",
    "output_text",
    "press",
    "read_text",
    "remember_files",
    "replace_word_task",
    "replaced",
    "same_text",
    "save_and_wait",
    "save_as",
    "saved_text_is",
    "sentence",
    "shell",
    "snapshot_files",
    "start",
    "submit_dialog",
    "terminal_over",
    "text_difference",
    "type_text",
    "typed_until",
    "unchanged_but",
    "wait_for",
    "wait_path",
    "window",
    "write_files",
]

OUTPUT_IS_THE_WORK = {
    "forged-write": "the file the evaluator reads is the output the instruction asks for: writing it with the "
    "right content is the work, whoever's hands write it (the adversary's other mutations still apply)"
}
"""``WAIVED`` for a task whose reward is read from the file it asks the agent to write."""

TRAIN_VARIANTS = 50
TEST_VARIANTS = 25
Loader = Callable[[], list[Task]]
T = TypeVar("T")

WORDS = (
    "budget", "report", "notes", "invoice", "summary", "draft", "agenda", "minutes", "plan", "roadmap", "letter",
    "receipt", "schedule", "contacts", "recipes", "travel", "expenses", "inventory", "proposal", "review", "backlog",
    "ideas", "todo", "journal", "checklist", "outline", "memo", "results", "survey", "quotes", "payroll", "forecast",
    "meeting", "release", "changelog", "contract", "offer", "ledger", "timesheet",
)  # fmt: skip
NOUNS = (
    "server", "client", "meeting", "garden", "rocket", "kitten", "harbor", "window", "engine", "ticket", "folder",
    "pepper", "lantern", "violin", "marble", "castle", "river", "planet", "bridge", "camera", "orchard", "falcon",
    "compass", "tunnel", "meadow", "canyon", "pillow", "teapot", "anchor", "beacon",
)  # fmt: skip
VERBS = ("checks", "moves", "keeps", "finds", "sends", "builds", "opens", "reads", "holds", "paints", "turns")
ADJECTIVES = (
    "quiet", "green", "rapid", "bright", "heavy", "early", "silver", "narrow", "golden", "polite", "frozen", "gentle",
)  # fmt: skip
ENDINGS = ("today", "again", "slowly", "at noon", "twice", "for now", "on monday", "by hand")

# --- variants ------------------------------------------------------------------------------


def loaders(name: str, build: Callable[[random.Random], Task]) -> tuple[Loader, Loader]:
    """The task's ``train`` and ``test`` loaders, seeded ``random.Random(f"{name}/{split}/{i}")``."""

    def load(split: str) -> list[Task]:
        count = TRAIN_VARIANTS if split == "train" else TEST_VARIANTS
        return [build(random.Random(f"{name}/{split}/{index}")) for index in range(count)]

    def load_train() -> list[Task]:
        return load("train")

    def load_test() -> list[Task]:
        return load("test")

    tasks_config(split="train")(load_train)
    tasks_config(split="test")(load_test)
    return load_train, load_test


def file_name(rng: random.Random, ext: str = ".txt") -> str:
    """``budget_2027.txt``, ``notes-v3.md``: names a person would give, safe in any shell or dialog."""
    suffix = rng.choice([str(rng.randint(2015, 2031)), f"v{rng.randint(1, 9)}", rng.choice(NOUNS)])
    return f"{rng.choice(WORDS)}{rng.choice('_-')}{suffix}{ext}"


def sentence(rng: random.Random) -> str:
    """A lowercase line of distinct-looking words (no word is a prefix trap for search and replace)."""
    return (
        f"the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(VERBS)} "
        f"the {rng.choice(NOUNS)} {rng.choice(ENDINGS)}"
    )


# Words a replace task swaps in (none is in the vocabulary above), and the nouns it may swap out: those no
# other word contains, as editors' find dialogs search by substring unless told otherwise.
NEW_WORDS = ("purple", "walnut", "copper", "thunder", "velvet", "saffron", "glacier", "juniper", "cobalt", "maple")
VOCABULARY = {word for phrase in (*NOUNS, *ADJECTIVES, *VERBS, *ENDINGS) for word in phrase.split()}
REPLACEABLE = [noun for noun in NOUNS if not any(noun in word and noun != word for word in VOCABULARY)]


def replace_word_task(rng: random.Random, app: str) -> Task:
    """A "replace every occurrence of a word, then save" variant for the text editor ``app``: 4-8 lines in
    which the word stands at least twice, as a whole word. ``replaced(metadata)`` is the text asked for."""
    path = f"{rng.choice(WORDS)}/{file_name(rng)}"
    old = rng.choice(REPLACEABLE)
    lines = []
    for _ in range(rng.randint(4, 8)):
        words = sentence(rng).split()
        if rng.random() < 0.5:
            words[rng.choice([2, 5])] = old
        lines.append(" ".join(words))
    if sum(old in line.split() for line in lines) < 2:
        for index in rng.sample(range(len(lines)), 2):
            words = lines[index].split()
            words[2] = old
            lines[index] = " ".join(words)
    new = rng.choice(NEW_WORDS)
    return Task(
        description=f"The file ~/{path} is open in {app}. Replace every occurrence of the word '{old}' with "
        f"'{new}', then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n", "old": old, "new": new},
        max_steps=20,
        chance=0.0,
    )


def replaced(meta: dict[str, Any]) -> str:
    """A ``replace_word_task``'s text with every whole-word occurrence replaced."""
    return "\n".join(
        " ".join(meta["new"] if word == meta["old"] else word for word in line.split())
        for line in meta["text"].splitlines()
    )


def distinct(rng: random.Random, count: int, make: Callable[[random.Random], str]) -> list[str]:
    """``count`` different values of ``make``, none a prefix of another (dialogs complete prefixes)."""
    found: list[str] = []
    while len(found) < count:
        value = make(rng)
        if all(not value.startswith(other) and not other.startswith(value) for other in found):
            found.append(value)
    return found


def same_text(actual: str | None, expected: str) -> bool:
    """Exactly equal, but for one final newline (editors and shells differ on whether they add one).

    This is the text tasks' stated slack, and all of it: a blank line after the text, or a line
    left empty where one was deleted, is a different file.
    """
    return actual is not None and actual.removesuffix("\n") == expected.removesuffix("\n")


# --- files and commands (setup and evaluation) -----------------------------------------------


def shell(value: str) -> str:
    return shlex.quote(value)


async def write_files(session: Session, files: dict[str, str]) -> None:
    for path, text in files.items():
        await session.write_file(path, text)


async def read_text(session: Session, path: str) -> str | None:
    """The file's text, or None when it is missing, a folder or unreadable."""
    try:
        return (await session.read_bytes(path)).decode("utf-8", "replace")
    except (OSError, CuaError, ValueError):
        return None


async def listing(session: Session, folder: str) -> dict[str, str] | None:
    """Everything under ``folder`` (relative to home): ``{relative path: "f" | "d" | ...}``; None if missing."""
    result = await session.run_command(f"find {shell(folder)} -mindepth 1 -printf '%P\\t%y\\n'", timeout=20)
    if result.returncode != 0:
        return None
    entries = (line.split("\t", 1) for line in result.stdout.splitlines() if "\t" in line)
    return dict(entries)


async def snapshot_files(session: Session, folder: str = ".") -> Snapshot:
    """Every path under ``folder`` (relative to home), hidden ones included, as ``cua_bench.filestate``
    sees it: kind, inode, links, mode, size, mtime and content hash.

    Taken at setup (kept in ``task.scratch``) and again at evaluation, so an evaluator checks the
    whole end state: ``nothing_else_changed`` checks that nothing changed besides what the instruction asked for.
    """
    try:
        return await shell_snapshot(session, folder)
    except CuaError as exc:
        raise TaskError(str(exc)) from exc


def nothing_else_changed(task: Task, before: Snapshot, after: Snapshot, *, expect: Iterable[str] = ()) -> bool:
    """Nothing changed between two snapshots but the paths in ``expect`` (and what is inside them)
    and the app caches ``cua_bench.filestate.CACHES`` names; what else did is ``task.explain``-ed."""
    found = changes(before, after, expect=expect)
    if found:
        task.explain(f"besides what the task asks, {'; '.join(found[:5])}{' ...' if len(found) > 5 else ''}")
    return not found


def app_wrote(
    task: Task, before: Snapshot, after: Snapshot, own: Iterable[str], app: str, *, rewrites_unchanged: bool = False
) -> bool:
    """Whether what lies under ``own`` (the settings, histories and caches ``app`` writes by itself, which a task
    lets change) changed only as ``app`` changes it: by writing. Never a link (symbolic, or a file with a second
    name), a mode changed, a file's time set back, or, unless the app rewrites files whose content stays the same
    (``rewrites_unchanged``), a file's time moved on unchanged content: those are someone else's hand. A folder's
    time moves with its entries, so only its mode counts; a removed path is let be (such files are never a task's
    answer). What is wrong is ``task.explain``-ed."""
    places = list(own)

    def owned(path: str) -> bool:
        return any(path == place or path.startswith(place + "/") for place in places)

    for path, state in after.items():
        if owned(path) and (state.kind == "link" or (state.kind == "file" and state.links != 1)):
            task.explain(f"{path} is a link, which {app} never makes")
            return False
    for path, state in before.items():
        now = after.get(path)
        if now is None or not owned(path):
            continue
        if now.mode != state.mode:
            task.explain(f"{path}: its mode changed, which {app} never does")
            return False
        if state.kind == "file" and now.kind == "file":
            touched = now.sha256 == state.sha256 and now.mtime_ns != state.mtime_ns and not rewrites_unchanged
            if touched or now.mtime_ns < state.mtime_ns:
                task.explain(f"{path}: its time {'set back' if now.mtime_ns < state.mtime_ns else 'moved'} "
                             f"without {app} writing it")  # fmt: skip
                return False
    return True


def moved(before: Snapshot, after: Snapshot, source: str, target: str) -> bool:
    """``source`` was moved (or renamed) to ``target``: the source path is gone, the target is a file
    with its content, and no other new path holds that content (a hidden backup is not a move)."""
    state = before.get(source)
    if state is None or source in after or not _holds(after, target, state.sha256):
        return False
    return set(holders(after, state.sha256)) - {target} <= set(holders(before, state.sha256)) - {source}


def _holds(snapshot: Snapshot, path: str, sha256: str) -> bool:
    state = snapshot.get(path)
    return state is not None and state.kind == "file" and state.sha256 == sha256


def gone(before: Snapshot, after: Snapshot, path: str, *, trash: bool = False) -> bool:
    """The file at ``path`` is deleted: the path is gone and no path that did not hold its content at
    setup holds it now, hidden or cached ones included (the trash too, unless ``trash`` allows it)."""
    state = before.get(path)
    if state is None or path in after:
        return False
    held = set(holders(before, state.sha256)) - {path}
    return set(holders(after, state.sha256, outside=[TRASH] if trash else [])) <= held


async def env_var(session: Session, name: str) -> str:
    """A variable of the environment's programs (HOME, TMPDIR): absolute paths for app arguments."""
    result = await session.run_command(f'printf %s "${name}"', timeout=10)
    if result.returncode != 0 or not result.stdout:
        raise TaskError(f"the environment has no {name}")
    return result.stdout


# --- windows ---------------------------------------------------------------------------------

Match = str | Callable[[str], bool]
"""A window title: exactly this string, or any title the function accepts."""


def file_title(path: str, app: str, *, clean: bool = True) -> Callable[[str], bool]:
    """The title of an app showing the file at ``path`` (relative to home): ``NAME - App``, or the
    full path as Mousepad shows it; with ``clean``, only once it is saved (no leading ``*``)."""
    name = path.rsplit("/", 1)[-1]

    def accepts(title: str) -> bool:
        if clean and title.startswith("*"):
            return False
        shown = title.lstrip("*")
        return shown == f"{name} - {app}" or shown.endswith(f"/{path} - {app}")

    return accepts


async def save_and_wait(session: Session, path: str, app: str) -> None:
    """Oracle move: once the app's title shows unsaved changes (``*``), press ctrl+s and wait for
    the clean title. Waiting for the ``*`` first keeps a title that was clean before the edits were
    processed from passing for a saved file."""
    await window(session, lambda title: title.startswith("*") and file_title(path, app, clean=False)(title))
    await act(session, key("ctrl+s"))
    await window(session, file_title(path, app))


# How long an oracle or wrong way waits for the desktop to show what it did. The waits poll and return
# at once when it does; on two cores loaded by other work, Chromium has taken over 20 s to show a page.
PATIENCE = 60.0


def _accepts(match: Match, title: str) -> bool:
    return title == match if isinstance(match, str) else match(title)


async def wait_for(check: Callable[[], Awaitable[T | None]], what: str, timeout: float = PATIENCE) -> T:
    """Poll ``check`` until it returns something truthy; a bounded wait, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TaskError(f"gave up after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.05)


async def window(session: Session, match: Match, timeout: float = PATIENCE) -> dict[str, Any]:
    """The front-most window whose title matches, once there is one."""

    async def find() -> dict[str, Any] | None:
        return next((info for info in await session.windows() if _accepts(match, info["title"])), None)

    return await wait_for(find, f"a window titled {match if isinstance(match, str) else 'as expected'}", timeout)


async def no_window(session: Session, match: Match, timeout: float = PATIENCE) -> None:
    async def gone() -> bool:
        return not any(_accepts(match, info["title"]) for info in await session.windows())

    await wait_for(gone, "a window to close", timeout)


async def wait_path(
    session: Session, path: str, accept: Callable[[str | None], bool], timeout: float = PATIENCE
) -> None:
    """Wait until the file at ``path`` is as ``accept`` wants it (None: missing). Read only."""

    async def check() -> bool:
        return accept(await read_text(session, path))

    await wait_for(check, f"{path} to change", timeout)


async def start(
    session: Session,
    app: str,
    *args: str,
    title: Match | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> str:
    """Launch ``app`` (with extra environment variables through ``env``) and wait for its window."""
    if env:
        args = (*(f"{name}={value}" for name, value in env.items()), app, *args)
        app = "env"
    wid = await session.launch(app, args=list(args), timeout=timeout)
    if title is not None:
        await window(session, title, timeout)
    return wid


# --- the oracle's hands ------------------------------------------------------------------------


async def act(session: Session, *actions: Action) -> None:
    """Apply ``actions`` and wait for the screen to settle; a refused action is the oracle's bug."""
    errors = await session.apply(list(actions))
    refused = [error for error in errors if error]
    if refused:
        raise TaskError(f"the oracle's actions were refused: {refused}")
    await session.settle()


def key(combo: str) -> KeyPress:
    """``"ctrl+shift+s"`` as one key press."""
    return KeyPress(tuple(combo.split("+")))


async def press(session: Session, *combos: str) -> None:
    await act(session, *(key(combo) for combo in combos))


async def type_text(session: Session, text: str, enter: bool = False) -> None:
    await act(session, TypeText(text, press_enter=enter))


def caret_to(text: str, index: int, select: int = 0) -> list[Action]:
    """Keys that put a text editor's caret at ``text[index]`` from the top (and select ``select``
    characters after it): ctrl+home, down to the line, right to the column, shift+right."""
    row = text.count("\n", 0, index)
    col = index - (text.rfind("\n", 0, index) + 1)
    return [key("ctrl+home"), *[key("down")] * row, *[key("right")] * col, *[key("shift+right")] * select]


def click_at(session: Session, bounds: list[float], dx: float, dy: float) -> Click:
    """A click ``dx``, ``dy`` pixels from a window's top-left corner (negative: from its right or
    bottom edge), for controls at a fixed place in a known layout."""
    left, top, right, bottom = (
        value * size / 1000 for value, size in zip(bounds, (session.width, session.height) * 2, strict=True)
    )
    x = left + dx if dx >= 0 else right + dx
    y = top + dy if dy >= 0 else bottom + dy
    return Click(Point(x * 1000 / session.width, y * 1000 / session.height))


async def submit_dialog(session: Session, dialog: Match, text: str | None = None, *, tries: int = 5) -> None:
    """Fill a dialog's focused entry with ``text`` (replacing what is there) and press Enter until it closes.

    GTK's file chooser drops an Enter that comes while it is still looking up the typed name (the
    first time, mostly), so the oracle pauses briefly as a person would, and a dialog still open a
    few seconds later gets another Enter. Delete first removes any inline completion the entry
    appended, so the name saved is the name typed.
    """
    await window(session, dialog)
    if text is not None:
        await act(session, key("ctrl+a"), TypeText(text), key("delete"), Wait(0.3))
    for _ in range(tries):
        await press(session, "enter")
        try:
            await no_window(session, dialog, timeout=2.5)
        except TaskError:
            continue
        return
    raise TaskError(f"the dialog {dialog!r} did not close after {tries} presses of Enter")


# --- the whole end state, and the hands of wrong ways ---------------------------------------------


async def remember_files(task: Task, session: Session) -> None:
    """Setup's last step: every file under home as it is now, kept for ``files_since_setup``."""
    task.scratch["files"] = await snapshot_files(session)


async def files_since_setup(task: Task, session: Session) -> tuple[Snapshot, Snapshot]:
    """The snapshot ``remember_files`` kept at setup, and one taken now: the evaluator compares the
    two with ``nothing_else_changed``, or expects an exact ``after``. Without the setup's snapshot there is
    nothing to compare, and a silent pass would hide that."""
    before = task.scratch.get("files")
    if not isinstance(before, dict):
        raise TaskError("setup kept no snapshot of the files (call remember_files at its end)")
    return before, await snapshot_files(session)


async def unchanged_but(task: Task, session: Session, expect: list[str]) -> bool:
    """No file under home changed since setup but ``expect`` (caches, and LibreOffice's locks, aside)."""
    before, after = await files_since_setup(task, session)
    return nothing_else_changed(task, before, after, expect=expect)


async def output_text(session: Session, snapshot: Snapshot, path: str) -> str | None:
    """The text of the file the agent was asked to write: None unless ``path`` is a regular file with
    one link in ``snapshot`` (a symlink or a hard link to another file is not that file)."""
    state = snapshot.get(path)
    if state is None or state.kind != "file" or state.links != 1:
        return None
    return await read_text(session, path)


async def output_bytes(session: Session, snapshot: Snapshot, path: str) -> bytes | None:
    """The bytes of the file the agent was asked to write, as ``output_text`` reads its text."""
    state = snapshot.get(path)
    if state is None or state.kind != "file" or state.links != 1:
        return None
    try:
        return await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        return None


def digest(text: str) -> str:
    """The hash ``snapshot_files`` gives a file holding ``text``, to expect an exact content."""
    return hashlib.sha256(text.encode()).hexdigest()


_marks = itertools.count(1)


async def in_terminal(session: Session, command: str, timeout: float = PATIENCE) -> None:
    """Wrong ways' hand in xterm: type ``command`` and Enter, and wait until the shell has run it.

    The line ends by setting the window title to a fresh mark (the oracle of xterm-set-title shows
    the escape works), so the wait watches the window list as a person watches the prompt come
    back, reading nothing an agent could not.
    """
    mark = f"cua-done-{next(_marks)}"
    await act(session, TypeText(f"{command}; printf '\\033]0;%s\\007' {mark}", press_enter=True))
    await window(session, mark, timeout)


async def open_dialog(session: Session, combo: str, dialog: str) -> None:
    """Press ``combo`` until the ``dialog`` shows (a key pressed while the window is taking the focus
    back from the last dialog can go nowhere), three tries; the caller's next wait on it has the last word."""
    for _ in range(3):
        await act(session, key(combo))
        try:
            await window(session, dialog, timeout=5)
            return
        except TaskError:
            continue


async def save_as(session: Session, combo: str, dialog: str, path: str, app: str) -> None:
    """``combo`` until the ``dialog`` shows (``open_dialog``), save under ``~/path``, and wait for ``app``'s title."""
    await open_dialog(session, combo, dialog)
    await submit_dialog(session, dialog, f"~/{path}")
    await window(session, file_title(path, app))


# --- what the Mousepad edit tasks and the terminal tasks share ----------------------------------------


async def open_in_mousepad(task: Task, session: Session, text: str) -> None:
    """An edit task's setup: ``~/metadata["path"]`` holding ``text``, open in Mousepad, and the files
    under home remembered for ``saved_text_is``."""
    path = task.metadata["path"]
    await write_files(session, {path: text})
    await start(session, "mousepad", path, title=file_title(path, "Mousepad"))
    await remember_files(task, session)


async def saved_text_is(task: Task, session: Session, expected: str) -> list[float]:
    """An edit task's reward: 1.0 when ``~/metadata["path"]`` is that file (one link) holding ``expected``
    (``same_text``) and no other file under home changed since setup."""
    before, after = await files_since_setup(task, session)
    path = task.metadata["path"]
    actual = await output_text(session, after, path)
    ok = same_text(actual, expected)
    if not ok:
        task.explain(f"{path}: {text_difference(actual, expected)}")
    return [1.0 if ok and nothing_else_changed(task, before, after, expect=[path]) else 0.0]


def text_difference(actual: str | None, expected: str) -> str:
    """Where ``actual`` first parts from ``expected`` (for ``task.explain``)."""
    if actual is None:
        return "no such file (or not a plain file with one link)"
    got, want = actual.removesuffix("\n").split("\n"), expected.removesuffix("\n").split("\n")
    for number, (line, wanted) in enumerate(zip(got, want, strict=False), start=1):
        if line != wanted:
            return f"line {number} is {line[:80]!r}, not {wanted[:80]!r}"
    return f"{len(got)} lines, not {len(want)}"


async def edit_and_save(session: Session, path: str, *actions: Action) -> None:
    """``actions`` in Mousepad, then ctrl+s and the wait for ``~/path`` to be saved."""
    await act(session, *actions)
    await save_and_wait(session, path, "Mousepad")


def terminal_over(files: Callable[[dict[str, Any]], dict[str, str]]) -> TaskFn:
    """A terminal task's setup, marked: the files ``files(metadata)`` names written, an xterm started,
    and the files under home remembered. New at each call (see ``cua_bench.builders``)."""

    @setup_task
    async def setup(task: Task, session: Session) -> None:
        await write_files(session, files(task.metadata))
        await start(session, "xterm")
        await remember_files(task, session)

    return setup


def typed_until(
    command: Callable[[dict[str, Any]], str], done: Callable[[Session, dict[str, Any]], Awaitable[bool]], what: str
) -> TaskFn:
    """A terminal task's oracle, marked: ``command(metadata)`` typed into the terminal and run, then a
    bounded wait until ``done(session, metadata)`` holds (``what`` names it when the wait gives up)."""

    @solve_task
    async def solve(task: Task, session: Session) -> None:
        meta = task.metadata
        await type_text(session, command(meta), enter=True)
        await wait_for(lambda: done(session, meta), what)

    return solve
