"""The adversary of ``cua-bench check``: generic end-state mutations that every task's reward must refuse.

A red team earns reward without doing the task by leaving an end state that is *nearly* the
oracle's: the deleted file renamed to ``.name``, a hard link where a copy was asked, an untouched
file chmod'ed, three blank lines after "exactly the line", a number stored as text, a CSV under a
workbook's name, a junk second sheet, a forged write to the record the reward reads. Each such
trick is a mutation here, applied after the task's own oracle (or, for a forged write, instead of
it) by the env server, as the desktop's own user would do it. The reward of every mutation that
applies must be 0, unless the task waives it with a written reason (``WAIVED`` in its module).

The env server keeps an ``Adversary`` per episode: ``begin`` (after reset) records the files as
setup left them, ``plan`` (after the oracle) names the mutations that apply to its end state, and
``mutate`` applies one. Mutations see the files through ``cua_bench.filestate`` snapshots and act
through ``Hands``: a shell as the desktop's user, or the sim's own file system.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import posixpath
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from cua_bench.filestate import CACHES, TRASH, FileState, Snapshot, shell_snapshot
from cua_core.errors import CuaError

__all__ = ["MUTATIONS", "Adversary", "Mutation", "waivers"]

_KEEP_BYTES = 1 << 20  # setup's files up to this size are kept, so a deleted one can come back hidden


class NotApplicable(Exception):
    """The mutation cannot be done on this computer (the sim has no hard links or modes)."""


class Hands:
    """File operations as the desktop's user (paths relative to home)."""

    async def snapshot(self) -> Snapshot:
        raise NotImplementedError

    async def read(self, path: str) -> bytes:
        raise NotImplementedError

    async def write(self, path: str, data: bytes) -> None:
        raise NotImplementedError

    async def mkdir(self, path: str) -> None:
        raise NotImplementedError

    async def link(self, source: str, target: str, *, symbolic: bool = False) -> None:
        raise NotApplicable("no links here")

    async def chmod(self, path: str, mode: int) -> None:
        raise NotApplicable("no file modes here")

    async def touch(self, path: str, seconds_earlier: int) -> None:
        raise NotApplicable("no file times here")

    def texts(self) -> dict[tuple[str, int], str]:
        """Every text field's text by (window id, its place among the window's widgets); {} without one."""
        return {}

    def move_text(self, source: tuple[str, int], target: tuple[str, int], restore: str) -> None:
        raise NotApplicable("no text fields here")


class ShellHands(Hands):
    """Through ``run_command``: the environment's user, so what it cannot write stays unwritten (a
    reward channel owned by another uid is out of this adversary's reach, as it is of the agent's)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def _run(self, command: str) -> None:
        result = await self.session.run_command(command, timeout=30)
        if result.returncode != 0:
            raise NotApplicable(f"{command[:80]}: {result.stderr.strip()[:200]}")

    async def snapshot(self) -> Snapshot:
        return await shell_snapshot(self.session)

    async def read(self, path: str) -> bytes:
        return bytes(await self.session.read_bytes(path))

    async def write(self, path: str, data: bytes) -> None:
        folder = posixpath.dirname(path) or "."
        encoded = base64.b64encode(data).decode()
        await self._run(f"mkdir -p -- {shlex.quote(folder)} && printf %s {encoded} | base64 -d > {shlex.quote(path)}")

    async def mkdir(self, path: str) -> None:
        await self._run(f"mkdir -p -- {shlex.quote(path)}")

    async def link(self, source: str, target: str, *, symbolic: bool = False) -> None:
        flag = "-sfr" if symbolic else "-f"
        await self._run(f"ln {flag} -- {shlex.quote(source)} {shlex.quote(target)}")

    async def chmod(self, path: str, mode: int) -> None:
        await self._run(f"chmod {mode:o} -- {shlex.quote(path)}")

    async def touch(self, path: str, seconds_earlier: int) -> None:
        await self._run(
            f"touch -h -d @$(( $(stat -c %Y -- {shlex.quote(path)}) - {seconds_earlier} )) -- {shlex.quote(path)}"
        )


class SimHands(Hands):
    """The sim's in-memory file system under its home: contents and names only."""

    def __init__(self, session: Any) -> None:
        self.session = session

    @property
    def fs(self) -> Any:
        return self.session.sim.fs  # a reset gives the session a new desktop, and a new file system

    def _abs(self, path: str) -> str:
        return posixpath.join(self.fs.home, path)

    async def snapshot(self) -> Snapshot:
        found: Snapshot = {}
        folders = [self.fs.home]
        while folders:
            folder = folders.pop()
            for name in self.fs.listdir(folder):
                path = posixpath.join(folder, name)
                relative = posixpath.relpath(path, self.fs.home)
                if self.fs.is_dir(path):
                    found[relative] = FileState("dir")
                    folders.append(path)
                else:
                    data = self.fs.read(path)
                    found[relative] = FileState("file", hashlib.sha256(data).hexdigest(), len(data))
        return found

    async def read(self, path: str) -> bytes:
        return bytes(self.fs.read(self._abs(path)))

    async def write(self, path: str, data: bytes) -> None:
        self.fs.write(self._abs(path), data)

    async def mkdir(self, path: str) -> None:
        self.fs.mkdir(self._abs(path))

    def _fields(self) -> dict[tuple[str, int], Any]:
        from cua_bench.sim.textwidgets import _TextWidget  # here: only a sim env server loads the sim

        return {
            (window.id, index): widget
            for window in self.session.sim.windows()
            for index, widget in enumerate(window.all_widgets())
            if isinstance(widget, _TextWidget)
        }

    def texts(self) -> dict[tuple[str, int], str]:
        return {key: field.text for key, field in self._fields().items()}

    def move_text(self, source: tuple[str, int], target: tuple[str, int], restore: str) -> None:
        """The text in ``source`` moves to ``target`` whole, with every character's recorded origin
        (typed, pasted, from where), and ``source`` holds ``restore`` again, as a program set it."""
        from cua_bench.sim.text import TextBuffer

        fields = self._fields()
        moved, back = fields[source], fields[target]
        back.buffer, moved.buffer = moved.buffer, TextBuffer(restore, multiline=moved.multiline)
        moved._after_edit(changed=True)  # redraw and notify, as an edit does
        back._after_edit(changed=True)


def hands_for(session: Any) -> Hands:
    return SimHands(session) if hasattr(session, "sim") else ShellHands(session)


def _cached(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in (*CACHES, TRASH))


@dataclass
class State:
    """What the mutations see: setup's files (and the small ones' bytes), the oracle's end state, and
    the files the oracle's evaluation read with what they held."""

    before: Snapshot
    kept: dict[str, bytes]
    after: Snapshot = field(default_factory=dict)
    reads: dict[str, bytes] = field(default_factory=dict)
    texts: dict[tuple[str, int], str] = field(default_factory=dict)  # the text fields as setup left them

    def removed(self) -> list[str]:
        return [p for p, s in self.before.items() if s.kind == "file" and p not in self.after and not _cached(p)]

    def made(self) -> list[str]:
        """Files the oracle created or changed (outside caches)."""
        return [
            p
            for p, s in self.after.items()
            if s.kind == "file" and not _cached(p) and (p not in self.before or self.before[p].sha256 != s.sha256)
        ]

    def made_dirs(self) -> list[str]:
        """Folders the oracle created (outside caches)."""
        return [p for p, s in self.after.items() if s.kind == "dir" and p not in self.before and not _cached(p)]

    def untouched(self) -> list[str]:
        return [p for p, s in self.before.items() if s.kind == "file" and self.after.get(p) == s and not _cached(p)]

    def touched_files(self) -> bool:
        return bool(self.removed() or self.made() or self.made_dirs())


Apply = Callable[[Hands, State], Awaitable[list[str]]]


@dataclass(frozen=True)
class Mutation:
    """One generic trick: ``apply`` changes the end state and says what it did ([] when it does not apply)."""

    name: str
    doc: str
    apply: Apply
    after_oracle: bool = True  # False: played on the state setup left (a forged write needs no work done)


def _hidden(path: str) -> str:
    folder, name = posixpath.split(path)
    return posixpath.join(folder, "." + name)


async def _hide_instead_of_delete(hands: Hands, state: State) -> list[str]:
    done = []
    for path in state.removed():
        data = state.kept.get(path)
        if data is not None and _hidden(path) not in state.after:
            await hands.write(_hidden(path), data)
            done.append(f"{path} kept as {_hidden(path)}")
    return done


def _originals(state: State) -> dict[str, str]:
    """New files whose content a file that is still there held at setup: {new file: original}."""
    by_content = {s.sha256: p for p, s in sorted(state.before.items()) if s.kind == "file" and p in state.after}
    return {
        p: by_content[s.sha256]
        for p, s in state.after.items()
        if p not in state.before and s.kind == "file" and s.sha256 in by_content and not _cached(p)
    }


async def _hard_link(hands: Hands, state: State) -> list[str]:
    for new, original in _originals(state).items():
        await hands.link(original, new)
    return [f"{new} hard-linked to {original}" for new, original in _originals(state).items()]


async def _symlink(hands: Hands, state: State) -> list[str]:
    for new, original in _originals(state).items():
        await hands.link(original, new, symbolic=True)
    return [f"{new} a symbolic link to {original}" for new, original in _originals(state).items()]


def _one_untouched(state: State) -> str | None:
    """A file the oracle left as it was, visible ones first: the one the mutation changes."""
    files = sorted(state.untouched(), key=lambda p: ("/." in "/" + p, p))
    return files[0] if files and state.touched_files() else None


async def _chmod_untouched(hands: Hands, state: State) -> list[str]:
    path = _one_untouched(state)
    if path is None:
        return []
    await hands.chmod(path, 0o777)
    return [f"{path} chmod 777"]


async def _touch_untouched(hands: Hands, state: State) -> list[str]:
    path = _one_untouched(state)
    if path is None:
        return []
    await hands.touch(path, 3600)
    return [f"{path} modification time an hour earlier"]


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8") if b"\0" not in data else None
    except UnicodeDecodeError:
        return None


async def _trailing_blank_lines(hands: Hands, state: State) -> list[str]:
    done = []
    for path in state.made():
        data = await hands.read(path)
        if data and _text(data) is not None:
            await hands.write(path, data + (b"\n\n\n" if data.endswith(b"\n") else b"\n\n\n\n"))
            done.append(f"{path} + three blank lines")
    return done


async def _extra_file(hands: Hands, state: State) -> list[str]:
    done = []
    for path in state.made():
        stray = _hidden(path) + "~"
        if stray not in state.after:
            await hands.write(stray, await hands.read(path))
            done.append(f"a stray copy {stray}")
    for path in state.made_dirs():
        stray = _hidden(path) + "~"
        if stray not in state.after:
            await hands.mkdir(stray)
            done.append(f"a stray folder {stray}")
    return done


async def _forged_write(hands: Hands, state: State) -> list[str]:
    """Without doing the task, write into every file the oracle's evaluation read what it held then."""
    done = []
    for path, data in sorted(state.reads.items()):
        if state.before.get(path) is not None and state.kept.get(path) == data:
            continue  # setup's own content: writing it back changes nothing
        try:
            await hands.write(path, data)
        except NotApplicable:
            continue  # out of the desktop user's reach: as it should be
        done.append(f"{path} written with what the oracle's evaluation read")
    return done


def _wrong_windows(hands: Hands, state: State) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """(changed field, field of another window it can move to): each field the oracle wrote, paired
    with an untouched field of another window (one of the same place first)."""
    now = hands.texts()
    changed = [key for key, text in now.items() if key in state.texts and state.texts[key] != text]
    free = [key for key, text in now.items() if key not in changed and state.texts.get(key) == text]
    pairs = []
    for key in changed:
        others = sorted((k for k in free if k[0] != key[0]), key=lambda k: (k[1] != key[1], k))
        if others:
            pairs.append((key, others[0]))
            free.remove(others[0])
    return pairs


async def _wrong_window(hands: Hands, state: State) -> list[str]:
    done = []
    for source, target in _wrong_windows(hands, state):
        hands.move_text(source, target, state.texts[source])
        done.append(f"the text of field {source[1]} of window {source[0]} left in window {target[0]} instead")
    return done


def _workbook(data: bytes) -> bool:
    """A Gnumeric workbook by its content (gzip'd XML naming Gnumeric's schema), whatever its name."""
    if data[:2] != b"\x1f\x8b":
        return False
    try:
        return b"gnumeric" in gzip.decompress(data)[:2000]
    except (OSError, EOFError):
        return False


def _sheet_mutation(transform_name: str, label: str) -> Apply:
    async def apply(hands: Hands, state: State) -> list[str]:
        from cua_bench.tasksets.desktop import _sheets  # the workbook format lives with its tasks

        transform: Callable[[bytes], bytes | None] = getattr(_sheets, transform_name)
        done = []
        for path in state.made():
            data = await hands.read(path)
            if _workbook(data):
                changed = transform(data)
                if changed is not None and changed != data:
                    await hands.write(path, changed)
                    done.append(f"{path}: {label}")
        return done

    return apply


MUTATIONS: dict[str, Mutation] = {
    m.name: m
    for m in (
        Mutation(
            "hidden-instead-of-delete",
            "each file the oracle removed is kept under a hidden name (.NAME) beside where it was",
            _hide_instead_of_delete,
        ),
        Mutation(
            "hard-link-instead-of-copy",
            "each file the oracle created with the content of a file still there is a hard link to it",
            _hard_link,
        ),
        Mutation(
            "symlink-instead-of-copy",
            "each file the oracle created with the content of a file still there is a symbolic link to it",
            _symlink,
        ),
        Mutation("chmod-untouched", "a file the oracle left untouched gets mode 777", _chmod_untouched),
        Mutation(
            "touch-untouched", "a file the oracle left untouched gets an older modification time", _touch_untouched
        ),
        Mutation(
            "trailing-blank-lines",
            "each text file the oracle created or changed gets three blank lines at its end",
            _trailing_blank_lines,
        ),
        Mutation(
            "extra-file",
            "a hidden stray copy beside each file the oracle created or changed, a hidden folder beside each it made",
            _extra_file,
        ),
        Mutation(
            "numbers-as-text",
            "each workbook the oracle saved has its numbers stored as text",
            _sheet_mutation("numbers_as_text", "numbers stored as text"),
        ),
        Mutation(
            "extra-sheet",
            "each workbook the oracle saved gets a second sheet of junk",
            _sheet_mutation("with_extra_sheet", "an extra sheet"),
        ),
        Mutation(
            "wrong-format",
            "each workbook the oracle saved holds its first sheet as CSV text under the same name",
            _sheet_mutation("as_csv", "CSV under the workbook's name"),
        ),
        Mutation(
            "wrong-window",
            "each text field the oracle wrote holds its setup text again; what it wrote (typed or pasted, as "
            "recorded) is in a field of another window",
            _wrong_window,
        ),
        Mutation(
            "forged-write",
            "with no work done, every file the oracle's evaluation read gets what it held then",
            _forged_write,
            after_oracle=False,
        ),
    )
}


def waivers(module: Any) -> dict[str, str]:
    """A task module's ``WAIVED`` (``{mutation: reason}``), checked: known names, a reason for each."""
    waived = getattr(module, "WAIVED", {})
    if not isinstance(waived, dict):
        raise CuaError(f"{module.__file__}: WAIVED must be a dict of mutation name to the reason it is waived")
    for name, reason in waived.items():
        if name not in MUTATIONS:
            raise CuaError(f"{module.__file__}: WAIVED names {name!r}, not a mutation ({', '.join(MUTATIONS)})")
        if not isinstance(reason, str) or len(reason.strip()) < 10:
            raise CuaError(f"{module.__file__}: WAIVED[{name!r}] needs a written reason, got {reason!r}")
    return dict(waived)


class Adversary:
    """The env server's side: one per episode that ``begin`` starts."""

    def __init__(self, session: Any) -> None:
        self.hands = hands_for(session)
        self.state: State | None = None
        self.reads: dict[str, bytes] = {}  # what this episode's evaluation read
        self.recording = False
        self.planned: State | None = None  # the oracle's end state, kept across the mutations' episodes

    async def begin(self) -> None:
        before = await self.hands.snapshot()
        kept = {}
        for path, state in before.items():
            if state.kind == "file" and state.size <= _KEEP_BYTES:
                try:
                    kept[path] = await self.hands.read(path)
                except (OSError, CuaError):
                    continue
        self.state, self.reads, self.recording = State(before, kept, texts=self.hands.texts()), {}, True

    def read(self, path: str, data: bytes) -> None:
        """The evaluator read ``path`` (relative to home) and found ``data``."""
        if self.recording:
            self.reads[path] = data

    async def plan(self) -> list[str]:
        """The mutations that apply to the oracle's end state (call after the oracle's evaluation)."""
        state = self._state()
        state.after, state.reads = await self.hands.snapshot(), dict(self.reads)
        self.planned = state
        return [name for name, mutation in MUTATIONS.items() if await self._applies(mutation, state)]

    async def _applies(self, mutation: Mutation, state: State) -> bool:
        if mutation.name == "forged-write":
            return any(state.kept.get(p) != data for p, data in state.reads.items())
        if mutation.name in ("hard-link-instead-of-copy", "symlink-instead-of-copy"):
            return bool(_originals(state)) and not isinstance(self.hands, SimHands)
        if mutation.name in ("chmod-untouched", "touch-untouched"):
            return _one_untouched(state) is not None and not isinstance(self.hands, SimHands)
        if mutation.name in ("numbers-as-text", "extra-sheet", "wrong-format"):
            return any(p.endswith(".gnumeric") for p in state.made())
        if mutation.name == "hidden-instead-of-delete":
            return any(p in state.kept for p in state.removed())
        if mutation.name == "wrong-window":
            return bool(_wrong_windows(self.hands, state))
        if mutation.name == "extra-file":
            return bool(state.made() or state.made_dirs())
        return bool(state.made())

    async def mutate(self, name: str) -> list[str]:
        """Apply mutation ``name`` to the current end state; what it did ([] when nothing applied)."""
        if name not in MUTATIONS:
            raise CuaError(f"no mutation {name!r}; known: {', '.join(MUTATIONS)}")
        planned = self.planned
        if planned is None:
            raise CuaError("mutate before plan: run the oracle and plan() on this variant first")
        state = self._state()
        mutation = MUTATIONS[name]
        current = State(state.before, state.kept, await self.hands.snapshot(), planned.reads, state.texts)
        self.recording = False  # the mutated state's evaluation is not the oracle's
        try:
            return await mutation.apply(self.hands, current)
        except NotApplicable:
            return []

    def _state(self) -> State:
        if self.state is None:
            raise CuaError("the adversary has not begun: call adversary.begin right after reset")
        return self.state
