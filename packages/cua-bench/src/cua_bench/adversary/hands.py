"""The adversary's hands: file operations (and the sim's text fields) as the desktop's own user would use them."""

from __future__ import annotations

import base64
import copy
import dataclasses
import hashlib
import json
import posixpath
import shlex
from collections.abc import Callable
from typing import Any

from cua_bench.filestate import FileState, Snapshot, shell_snapshot

__all__ = ["Hands", "NotApplicable", "ShellHands", "SimHands", "hands_for"]


class NotApplicable(Exception):
    """The mutation cannot be done on this computer (the sim has no hard links or modes)."""


class Hands:
    """File operations as the desktop's user (paths relative to home)."""

    session: Any

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

    async def restore(self, target: Snapshot, contents: dict[str, bytes], *, kept: Kept, identities: set[int]) -> bool:
        """Put the files back as ``target`` has them (every path but those ``kept`` says to leave); whether
        they now are. See ``ShellHands.restore``."""
        return False  # the sim's resets cost nothing: its caller plays the oracle again

    def texts(self) -> dict[tuple[str, int], str]:
        """Every text field's text by (window id, its place among the window's widgets); {} without one."""
        return {}

    def move_text(self, source: tuple[str, int], target: tuple[str, int], restore: str) -> None:
        raise NotApplicable("no text fields here")

    def inputs(self) -> dict[tuple[str, int], Any]:
        """Every input's value (text, checked, chosen option, number, ...) by (window id, place); {} without one."""
        return {}

    def change_input(self, key: tuple[str, int]) -> Any:
        """Give the input ``key`` another value with the keys a person would press on it; its new value."""
        raise NotApplicable("no inputs here")

    def screen_inputs(self) -> list[tuple[str, int]]:
        """On a phone, the inputs of the screens in view now (lists, which a tap navigates, left out); []
        elsewhere. A phone's oracle leaves the screens setup opened for new ones, whose inputs are its state."""
        return []

    def has_phone(self) -> bool:
        return False

    def change_in_some_app(self) -> str:
        """On a phone, as a person would after the work: open an app, tap into the last row of its first
        list if its screen has no input, and change the last input that changes (the first ones are most
        often what a task asks for: a title, a name); what was changed."""
        raise NotApplicable("no phone here")

    async def run(self, command: str) -> None:
        """Run a shell command as the desktop's user."""
        raise NotApplicable("no shell here")

    def windows(self) -> list[str]:
        """The open windows' ids; [] where windows are not the adversary's to see."""
        return []

    async def titles(self) -> dict[str, str]:
        """Every window's title by id, as ``Session.windows`` gives them."""
        return {str(info["id"]): str(info["title"]) for info in await self.session.windows()}

    async def retitle(self, window_id: str, title: str) -> None:
        """Give the window another title, as any program of the desktop's user can."""
        raise NotApplicable("no window titles here")

    def close_window(self, window_id: str) -> None:
        """Close the window as its title bar's Close does."""
        raise NotApplicable("no windows here")


Kept = Callable[[str, FileState], bool]
"""Whether a path (as it is) is one ``restore`` leaves as it finds it (a cache an app rewrites on its own)."""

# Runs in the environment, as its user, from its home: ``ShellHands.restore``'s plan (base64 JSON in a file).
_RESTORE = r"""
import base64, json, os, shutil, sys
plan = json.loads(base64.b64decode(open(sys.argv[1]).read()))
def gone(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
for path in sorted(plan["remove"], key=len, reverse=True):
    gone(path)
for row in plan["set"]:
    path = row["path"]
    if "write" in row:
        if not (os.path.isfile(path) and not os.path.islink(path) and os.lstat(path).st_ino == row["inode"]):
            gone(path)
        with open(path, "wb") as f:
            f.write(base64.b64decode(row["write"]))
    elif "link" in row:
        gone(path)
        os.symlink(row["link"], path)
    else:
        if not os.path.islink(path):
            os.chmod(path, row["mode"])
        os.utime(path, ns=(row["mtime"], row["mtime"]), follow_symlinks=False)
for row in plan["folders"]:
    os.chmod(row["path"], row["mode"])
    os.utime(row["path"], ns=(row["mtime"], row["mtime"]))
"""

CHUNK = 64 * 1024  # base64 characters a command carries (one argument of a command line is at most 128 KiB)


class ShellHands(Hands):
    """Through ``run_command``: the environment's user, so what it cannot write stays unwritten (a
    reward channel owned by another uid is out of this adversary's reach, as it is of the agent's)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def run(self, command: str) -> None:
        result = await self.session.run_command(command, timeout=30)
        if result.returncode != 0:
            raise NotApplicable(f"{command[:80]}: {result.stderr.strip()[:200]}")

    async def snapshot(self) -> Snapshot:
        return await shell_snapshot(self.session)

    async def read(self, path: str) -> bytes:
        return bytes(await self.session.read_bytes(path))

    async def write(self, path: str, data: bytes) -> None:
        folder, target = shlex.quote(posixpath.dirname(path) or "."), shlex.quote(path)
        encoded = base64.b64encode(data).decode()
        if len(encoded) <= CHUNK:
            await self.run(f"mkdir -p -- {folder} && printf %s {encoded} | base64 -d > {target}")
            return
        await self._staged(data, lambda staged: f"mkdir -p -- {folder} && base64 -d {staged} > {target}")

    async def _staged(self, data: bytes, command: Callable[[str], str]) -> None:
        """``command(FILE)`` run with FILE holding ``data`` base64-encoded. A command is one argument of
        ``sh -c``, at most 128 KiB (Linux's MAX_ARG_STRLEN): a larger file (a calendar's database, 800 KB)
        goes through a staging file in the environment's temp folder, in chunks."""
        encoded = base64.b64encode(data).decode()
        made = await self.session.run_command("mktemp", timeout=30)
        staged = shlex.quote(made.stdout.strip())
        if made.returncode != 0 or not made.stdout.strip():
            raise NotApplicable(f"mktemp: {made.stderr.strip()[:200]}")
        try:
            for start in range(0, len(encoded), CHUNK):
                await self.run(f"printf %s {encoded[start : start + CHUNK]} >> {staged}")
            await self.run(command(staged))
        finally:
            await self.session.run_command(f"rm -f -- {staged}", timeout=30)

    async def restore(self, target: Snapshot, contents: dict[str, bytes], *, kept: Kept, identities: set[int]) -> bool:
        """Put the files under home back as ``target`` (a snapshot) has them, as the desktop's user: paths
        it lacks removed; each file's content (from ``contents``), mode and time; each folder's mode and
        time. A file whose inode in ``target`` is one of ``identities`` (setup's files: an evaluator may
        check that a moved file is the one setup made) must still be that inode; any other file may be
        made anew, as the oracle made it anew in every episode. Paths ``kept`` says to leave (caches) are
        left. Whether the snapshot after matches ``target`` in every field but those new files' inodes;
        when not, the caller plays the oracle again."""
        now = await self.snapshot()
        plan: dict[str, list[Any]] = {"remove": sorted(p for p, s in now.items() if p not in target and not kept(p, s))}
        plan["set"] = []
        for path, want in sorted(target.items()):
            have = now.get(path)
            if kept(path, want) or have == want or want.kind == "dir":
                continue
            if want.kind == "file" and (
                have is None or (have.kind, have.sha256, have.inode, have.links) != ("file", want.sha256, want.inode, 1)
            ):
                if (have is None or have.inode != want.inode) and want.inode in identities:
                    return False  # setup's file replaced: its identity cannot come back
                if path not in contents:
                    return False  # a content the adversary did not keep (over its size limit)
                plan["set"].append(
                    {"path": path, "write": base64.b64encode(contents[path]).decode(), "inode": want.inode}
                )
            elif want.kind == "link" and (have is None or have.kind != "link" or have.sha256 != want.sha256):
                plan["set"].append({"path": path, "link": want.sha256})
            elif have is None or have.kind != want.kind:
                return False  # a device or a socket: not the adversary's to make again
            plan["set"].append({"path": path, "mode": want.mode, "mtime": want.mtime_ns})
        # Folders last and deepest first: making and removing entries moves a folder's time.
        folders = [(p, s) for p, s in target.items() if s.kind == "dir" and not kept(p, s)]
        if any(p not in now or now[p].kind != "dir" for p, _ in folders):
            return False
        folders.sort(key=lambda row: -row[0].count("/"))
        plan["folders"] = [{"path": p, "mode": s.mode, "mtime": s.mtime_ns} for p, s in folders]
        try:
            await self._staged(
                json.dumps(plan).encode(), lambda staged: f"python3 -I -c {shlex.quote(_RESTORE)} {staged}"
            )
        except NotApplicable:
            return False
        after = await self.snapshot()
        for path in set(after) | set(target):
            got, wanted = after.get(path), target.get(path)
            if got is None or wanted is None:
                if not kept(path, got or wanted):  # type: ignore[arg-type]  # one of them is there
                    return False
                continue
            if kept(path, wanted):
                continue
            if got != wanted and (wanted.inode in identities or dataclasses.replace(got, inode=wanted.inode) != wanted):
                return False
        return True

    async def mkdir(self, path: str) -> None:
        await self.run(f"mkdir -p -- {shlex.quote(path)}")

    async def link(self, source: str, target: str, *, symbolic: bool = False) -> None:
        flag = "-sfr" if symbolic else "-f"
        await self.run(f"ln {flag} -- {shlex.quote(source)} {shlex.quote(target)}")

    async def retitle(self, window_id: str, title: str) -> None:
        await self.run(f"xdotool set_window --name {shlex.quote(title)} {shlex.quote(window_id)}")

    async def chmod(self, path: str, mode: int) -> None:
        await self.run(f"chmod {mode:o} -- {shlex.quote(path)}")

    async def touch(self, path: str, seconds_earlier: int) -> None:
        await self.run(
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

    def inputs(self) -> dict[tuple[str, int], Any]:
        return {key: copy.deepcopy(widget.value) for key, widget in _inputs_of(self.session).items()}

    def change_input(self, key: tuple[str, int]) -> Any:
        """The widget's own key handler, as after a person tabbed to it: the first key of ``_KEYS``
        that changes its value (a box ticks, a choice moves, a slider steps, a field gets an "x"). A
        drop area, which takes no keys, gets one more chip of its window dropped in."""
        from cua_bench.sim.dnd import Draggable, DropTarget
        from cua_bench.sim.events import KeyEvent

        widget = _inputs_of(self.session)[key]
        before = copy.deepcopy(widget.value)
        for name, text in _KEYS:
            if widget.enabled and widget.on_key(KeyEvent(name, text=text)) and widget.value != before:
                widget.invalidate()
                return copy.deepcopy(widget.value)
        if isinstance(widget, DropTarget) and widget.window is not None:
            chips = [w for w in widget.window.all_widgets() if isinstance(w, Draggable) and w.parent is not widget]
            for chip in chips:
                if widget.accepts(chip):
                    widget.accept(chip)
                    return copy.deepcopy(widget.value)
        raise NotApplicable(f"nothing a person does changes input {key}")

    def screen_inputs(self) -> list[tuple[str, int]]:
        from cua_bench.sim import ListView, input_widgets

        phone = self.session.sim.phone
        if phone is None:
            return []
        shown = input_widgets(phone.visible_windows())
        return sorted(key for key, widget in shown.items() if widget.visible and not isinstance(widget, ListView))

    def has_phone(self) -> bool:
        return self.session.sim.phone is not None

    def change_in_some_app(self) -> str:
        from cua_bench.sim import ListView

        phone = self.session.sim.phone
        if phone is None:
            raise NotApplicable("no phone here")
        for name in phone.apps:
            top = phone.open_app(name).top
            if not any(widget.is_input and not isinstance(widget, ListView) for widget in top.all_widgets()):
                rows = [w for w in top.all_widgets() if isinstance(w, ListView) and w.visible and w.items]
                if not rows:
                    continue
                rows[0].select(len(rows[0].items) - 1)  # a row's tap opens it: navigation, no app's state
            for key in self.screen_inputs()[::-1]:
                try:
                    value = self.change_input(key)
                except NotApplicable:
                    continue
                return f"in {name}, input {key[1]} of window {key[0]} changed to {value!r}"
        raise NotApplicable("no app on the phone has an input a person can change")

    def windows(self) -> list[str]:
        return [window.id for window in self.session.sim.windows()]

    async def retitle(self, window_id: str, title: str) -> None:
        self.session.sim.get_window(window_id).title = title

    def close_window(self, window_id: str) -> None:
        window = self.session.sim.get_window(window_id)
        if not window.closable:  # no Close on its title bar (a phone's screens): a person cannot close it so
            raise NotApplicable(f"window {window_id} has no Close")
        window.dismiss()
        if not window.closed:
            raise NotApplicable(f"window {window_id} would not close")  # its on_close said no


# The keys tried on an input, in turn, until its value changes: arrows before space, which on a list
# would open the item rather than choose another one.
_KEYS = (("down", None), ("up", None), ("right", None), ("left", None), ("x", "x"), ("space", " "))


def _inputs_of(session: Any) -> dict[tuple[str, int], Any]:
    from cua_bench.sim import input_widgets  # here: only a sim env server loads the sim

    return input_widgets(session.sim.windows())


def hands_for(session: Any) -> Hands:
    return SimHands(session) if hasattr(session, "sim") else ShellHands(session)
