"""The generic mutations of an oracle's end state, and what each needs to apply (``cua_bench.adversary``)."""

from __future__ import annotations

import gzip
import posixpath
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from cua_bench import documents, gnumeric, office
from cua_bench.adversary.channels import Channel
from cua_bench.adversary.hands import Hands, NotApplicable, SimHands
from cua_bench.filestate import CACHES, TRASH, FileState, Snapshot, ignored, office_lock
from cua_core import CuaError

__all__ = ["MUTATIONS", "Mutation", "State", "waivers"]


def _cached(path: str) -> bool:
    return ignored(path, (*CACHES, TRASH))


def not_the_work(path: str, state: FileState | None) -> bool:
    """A path no mutation touches and ``Adversary.restore`` leaves as it finds it: an app's cache, the
    trash, or the lock LibreOffice keeps beside an open document."""
    return _cached(path) or office_lock(path, state)


@dataclass
class State:
    """What the mutations see: setup's files (and the small ones' bytes), the oracle's end state, and
    the files the oracle's evaluation read with what they held."""

    before: Snapshot
    kept: dict[str, bytes]
    after: Snapshot = field(default_factory=dict)
    reads: dict[str, bytes] = field(default_factory=dict)
    texts: dict[tuple[str, int], str] = field(default_factory=dict)  # the text fields as setup left them
    inputs: dict[tuple[str, int], Any] = field(default_factory=dict)  # every input's value as setup left it
    windows: list[str] = field(default_factory=list)  # the windows setup left open
    titles: dict[str, str] = field(default_factory=dict)  # every window's title as setup left it
    titles_read: bool = False  # the oracle's evaluation read window titles
    recorded: dict[str, list[Any]] = field(default_factory=dict)  # the oracle's channels: what each recorded
    channels: dict[str, Channel] = field(default_factory=dict)  # this episode's channels, to forge into

    def removed(self) -> list[str]:
        return [
            p for p, s in self.before.items() if s.kind == "file" and p not in self.after and not not_the_work(p, s)
        ]

    def made(self) -> list[str]:
        """Files the oracle created or changed (outside caches and LibreOffice's locks)."""
        return [
            p
            for p, s in self.after.items()
            if s.kind == "file"
            and not not_the_work(p, s)
            and (p not in self.before or self.before[p].sha256 != s.sha256)
        ]

    def made_dirs(self) -> list[str]:
        """Folders the oracle created (outside caches)."""
        return [p for p, s in self.after.items() if s.kind == "dir" and p not in self.before and not _cached(p)]

    def untouched(self) -> list[str]:
        return [
            p for p, s in self.before.items() if s.kind == "file" and self.after.get(p) == s and not not_the_work(p, s)
        ]

    def touched_files(self) -> bool:
        return bool(self.removed() or self.made() or self.made_dirs())


Apply = Callable[[Hands, State], Awaitable[list[str]]]
Applies = Callable[[Hands, State], bool | Awaitable[bool]]


@dataclass(frozen=True)
class Mutation:
    """One generic trick: ``applies`` says whether the oracle's end state gives it something to change,
    and ``apply`` changes it and says what it did ([] when, played again, it found nothing)."""

    name: str
    doc: str
    apply: Apply
    applies: Applies
    after_oracle: bool = True  # False: played on the state setup left (a forged write needs no work done)
    # Changes files under home and nothing else, so ``Adversary.restore`` can undo it for the next mutation.
    on_files: bool = False


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


def _untouched_inputs(hands: Hands, state: State) -> list[tuple[str, int]]:
    """Inputs of windows still open that hold what setup left in them."""
    now = hands.inputs()
    return sorted(key for key, value in now.items() if key in state.inputs and state.inputs[key] == value)


def _changed_inputs(hands: Hands, state: State) -> list[tuple[str, int]]:
    """Inputs of windows still open that the oracle changed, but toggles (a box has no step further, only back)."""
    now = hands.inputs()
    return sorted(
        key
        for key, value in now.items()
        if key in state.inputs and state.inputs[key] != value and not isinstance(value, bool)
    )


async def _change_one(hands: Hands, keys: list[tuple[str, int]]) -> list[str]:
    for key in keys:
        try:
            value = hands.change_input(key)
        except NotApplicable:
            continue  # read-only, or nothing moves it: the next one
        return [f"input {key[1]} of window {key[0]} changed to {value!r}"]
    return []


async def _change_untouched_input(hands: Hands, state: State) -> list[str]:
    return await _change_one(hands, _untouched_inputs(hands, state))


async def _overshoot(hands: Hands, state: State) -> list[str]:
    return await _change_one(hands, _changed_inputs(hands, state))


async def _change_screen_input(hands: Hands, state: State) -> list[str]:
    # The last first: a screen's first input is most often the one the task asked for (a title, a name).
    return await _change_one(hands, hands.screen_inputs()[::-1])


async def _change_in_some_app(hands: Hands, state: State) -> list[str]:
    try:
        return [hands.change_in_some_app()]
    except NotApplicable:
        return []


def _windows_left(hands: Hands, state: State) -> list[str]:
    """Windows setup opened that are still open with every input as setup left it."""
    inputs = hands.inputs()
    return sorted(
        window
        for window in hands.windows()
        if window in state.windows
        and all(inputs.get(key) == value for key, value in state.inputs.items() if key[0] == window)
    )


async def _close_a_window(hands: Hands, state: State) -> list[str]:
    for window in _windows_left(hands, state):
        try:
            hands.close_window(window)
        except NotApplicable:
            continue
        return [f"window {window} closed"]
    return []


async def _retitled(hands: Hands, state: State) -> dict[str, str]:
    """Windows the oracle gave a new title, where the evaluation read titles: {id: title}."""
    if not state.titles_read:
        return {}
    now = await hands.titles()
    return {w: title for w, title in now.items() if w in state.titles and state.titles[w] != title}


async def _any_retitled(hands: Hands, state: State) -> bool:
    return bool(await _retitled(hands, state))


async def _title_near_miss(hands: Hands, state: State) -> list[str]:
    done = []
    for window, title in sorted((await _retitled(hands, state)).items()):
        await hands.retitle(window, title + " ")
        done.append(f"window {window} titled {title + ' '!r}")
    return done


async def _forged_request(hands: Hands, state: State) -> list[str]:
    """Without doing the task, send each channel what the oracle's episode put in it, from the desktop's shell."""
    done = []
    for key, recorded in sorted(state.recorded.items()):
        channel = state.channels.get(key)
        if channel is None or not recorded:
            continue
        for command in channel.forge(recorded):
            await hands.run(command)
        done.append(f"{len(recorded)} record(s) of {key} sent again from a shell")
    return done


def _workbook_module(data: bytes) -> Any:
    """The module that reads and rewrites this workbook, by its content (whatever its name): ``gnumeric``
    for gzip'd XML naming Gnumeric's schema, ``office`` for an .ods or .xlsx; None for anything else."""
    if office.format_of(data) is not None:
        return office
    if data[:2] != b"\x1f\x8b":
        return None
    try:
        return gnumeric if b"gnumeric" in gzip.decompress(data)[:2000] else None
    except (OSError, EOFError):
        return None


def _sheet_transform(name: str) -> Callable[[bytes], bytes | None]:
    """The workbook transform ``name`` of whichever module reads this workbook (None: not a workbook)."""

    def transform(data: bytes) -> bytes | None:
        module = _workbook_module(data)
        return None if module is None else getattr(module, name)(data)

    return transform


def _file_mutation(label: str, *transforms: Callable[[bytes], bytes | None]) -> Apply:
    """Each file the oracle made, rewritten by the first of ``transforms`` that has something to do with it."""

    async def apply(hands: Hands, state: State) -> list[str]:
        done = []
        for path in state.made():
            data = await hands.read(path)
            for transform in transforms:
                changed = transform(data)
                if changed is not None and changed != data:
                    await hands.write(path, changed)
                    done.append(f"{path}: {label}")
                    break
        return done

    return apply


def _files_here(hands: Hands) -> bool:
    return not isinstance(hands, SimHands)  # the sim's files have no links, modes or times


def _made(hands: Hands, state: State) -> bool:
    return bool(state.made())


WORKBOOKS = (".gnumeric", ".ods", ".xlsx")
TEXT_DOCUMENTS = (".odt", ".docx")
PRESENTATIONS = (".odp", ".pptx")


def _made_with(*extensions: str) -> Applies:
    return lambda hands, state: any(p.endswith(extensions) for p in state.made())


MUTATIONS: dict[str, Mutation] = {
    m.name: m
    for m in (
        Mutation(
            "hidden-instead-of-delete",
            "each file the oracle removed is kept under a hidden name (.NAME) beside where it was",
            _hide_instead_of_delete,
            lambda hands, state: any(p in state.kept for p in state.removed()),
            on_files=True,
        ),
        Mutation(
            "hard-link-instead-of-copy",
            "each file the oracle created with the content of a file still there is a hard link to it",
            _hard_link,
            lambda hands, state: _files_here(hands) and bool(_originals(state)),
            on_files=True,
        ),
        Mutation(
            "symlink-instead-of-copy",
            "each file the oracle created with the content of a file still there is a symbolic link to it",
            _symlink,
            lambda hands, state: _files_here(hands) and bool(_originals(state)),
            on_files=True,
        ),
        Mutation(
            "chmod-untouched",
            "a file the oracle left untouched gets mode 777",
            _chmod_untouched,
            lambda hands, state: _files_here(hands) and _one_untouched(state) is not None,
            on_files=True,
        ),
        Mutation(
            "touch-untouched",
            "a file the oracle left untouched gets an older modification time",
            _touch_untouched,
            lambda hands, state: _files_here(hands) and _one_untouched(state) is not None,
            on_files=True,
        ),
        Mutation(
            "trailing-blank-lines",
            "each text file the oracle created or changed gets three blank lines at its end",
            _trailing_blank_lines,
            _made,
            on_files=True,
        ),
        Mutation(
            "extra-file",
            "a hidden stray copy beside each file the oracle created or changed, a hidden folder beside each it made",
            _extra_file,
            lambda hands, state: bool(state.made() or state.made_dirs()),
            on_files=True,
        ),
        Mutation(
            "numbers-as-text",
            "each workbook the oracle saved has its numbers stored as text",
            _file_mutation("numbers stored as text", _sheet_transform("numbers_as_text")),
            _made_with(*WORKBOOKS),
            on_files=True,
        ),
        Mutation(
            "extra-sheet",
            "each workbook the oracle saved gets a second sheet of junk",
            _file_mutation("an extra sheet", _sheet_transform("with_extra_sheet")),
            _made_with(*WORKBOOKS),
            on_files=True,
        ),
        Mutation(
            "extra-paragraph",
            "each text document the oracle saved (.odt, .docx) gets a paragraph of junk at its end",
            _file_mutation("an extra paragraph", documents.with_extra_paragraph),
            _made_with(*TEXT_DOCUMENTS),
            on_files=True,
        ),
        Mutation(
            "extra-slide",
            "each presentation the oracle saved (.odp, .pptx) gets a slide of junk at its end",
            _file_mutation("an extra slide", documents.with_extra_slide),
            _made_with(*PRESENTATIONS),
            on_files=True,
        ),
        Mutation(
            "wrong-format",
            "each office file the oracle saved holds its content as plain text under the same name: a "
            "workbook's first sheet as CSV, a text document's or a presentation's paragraphs one a line",
            _file_mutation("plain text under the file's name", _sheet_transform("as_csv"), documents.as_text),
            _made_with(*WORKBOOKS, *TEXT_DOCUMENTS, *PRESENTATIONS),
            on_files=True,
        ),
        Mutation(
            "wrong-window",
            "each text field the oracle wrote holds its setup text again; what it wrote (typed or pasted, as "
            "recorded) is in a field of another window",
            _wrong_window,
            lambda hands, state: bool(_wrong_windows(hands, state)),
        ),
        Mutation(
            "untouched-input-changed",
            "an input the oracle left as setup made it (a box, a choice, a list, a slider, a field) gets another "
            "value, by the keys a person would press on it",
            _change_untouched_input,
            lambda hands, state: bool(_untouched_inputs(hands, state)),
        ),
        Mutation(
            "one-step-further",
            "an input the oracle changed is changed once more, as a person overshooting would: the list's choice "
            'a row on, the slider a step further, the field an "x" longer, one more chip in the drop area',
            _overshoot,
            lambda hands, state: bool(_changed_inputs(hands, state)),
        ),
        Mutation(
            "phone-screen-input-changed",
            "on a phone, an input of the screen the oracle ended on (a box, a choice, a slider, a field; the last "
            "first) gets another value, by the keys a person would press on it: one more touch on what shows",
            _change_screen_input,
            lambda hands, state: bool(hands.screen_inputs()),
        ),
        Mutation(
            "phone-collateral-change",
            "on a phone, after the work, an app opened (and the last row of its first list, where its screen "
            "has no input) and the last input there a person can change, changed: damage beside the task",
            _change_in_some_app,
            lambda hands, state: hands.has_phone(),
        ),
        Mutation(
            "untouched-window-closed",
            "a window setup opened and the oracle left open and untouched (every input as setup left it) is "
            "closed by its title bar's Close",
            _close_a_window,
            lambda hands, state: bool(_windows_left(hands, state)),
        ),
        Mutation(
            "title-near-miss",
            "each window the oracle gave a new title gets that title with a trailing space (where the evaluation "
            "read window titles)",
            _title_near_miss,
            _any_retitled,
        ),
        Mutation(
            "forged-request",
            "with no work done, every record the oracle's episode left in a reward channel that is not a file "
            "(a web server's requests) is sent again from the desktop's shell",
            _forged_request,
            lambda hands, state: any(state.recorded.values()),
            after_oracle=False,
        ),
        Mutation(
            "forged-write",
            "with no work done, every file the oracle's evaluation read gets what it held then",
            _forged_write,
            lambda hands, state: any(state.kept.get(p) != data for p, data in state.reads.items()),
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
