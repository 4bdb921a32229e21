"""Archives in the desktop tasks: File Roller's hands, the archives setup seeds, and the reader
evaluators score them with (not a task: no ``main.py``).

**Reading.** An archive is judged by its content, never its name: ``read_archive`` tells a zip from a
gzip'd, bzip2'd or xz'd tar by its first bytes (a tar under ``pack.zip`` is no zip), and reads every
member's name and exact bytes with the standard library's maintained readers (``zipfile``,
``tarfile``, ``zlib``, ``bz2``, ``lzma``). It reads into memory only and extracts nothing. What an
agent left may be corrupt or hostile, so the reader bounds everything it expands (a member, the
whole, the number of members), refuses names that climb out of the archive (``../``, ``/etc``),
links and devices, encrypted or truncated members and trailing data, and says why in an
``ArchiveError``: the evaluator turns that into a 0 with the reason, never a crash.

**File Roller** (``file-roller``, GTK 3) reaches the accessibility bus whole, so its oracles find
buttons, rows and check boxes in the tree and click them where they are. Its own Add Files dialog
is not GTK's file chooser: it has a check box per row, and its location entry does not take typed
paths, so the oracle double-clicks folders from Home down. Its windows are titled ``NAME `` (a
trailing space), ``Archive Manager`` while empty.
"""

from __future__ import annotations

import bz2
import io
import lzma
import posixpath
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.filestate import Snapshot
from cua_bench_tasks_desktop._a11y import Node, app_window, nodes
from cua_bench_tasks_desktop._common import (
    Match,
    act,
    digest,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    open_dialog,
    remember_files,
    start,
    submit_dialog,
    wait_for,
    window,
    write_files,
)
from cua_core import Click, CuaError, Point, TypeText, Wait

__all__ = [
    "EMPTY_TITLE",
    "FORMATS",
    "MAX_ARCHIVE",
    "MAX_MEMBER",
    "MAX_MEMBERS",
    "MAX_TOTAL",
    "Archive",
    "ArchiveError",
    "Expected",
    "add_files",
    "archive_at",
    "archive_bytes",
    "archive_score",
    "archive_title",
    "delete_member",
    "extract_all",
    "extracted_exactly",
    "focus",
    "format_of",
    "holds_exactly",
    "new_archive",
    "read_archive",
    "start_empty",
]

FORMATS = ("zip", "tar", "tar.gz", "tar.bz2", "tar.xz")
"""The formats the reader knows, named as the extension File Roller gives them (without the dot)."""

MAX_ARCHIVE = 8 << 20
"""The largest archive file the evaluator reads at all (the tasks' archives are a few KiB)."""
MAX_MEMBER = 1 << 20
"""The most one member may expand to."""
MAX_TOTAL = 4 << 20
"""The most a whole archive may expand to (the tar stream, or the sum of a zip's members)."""
MAX_MEMBERS = 256

EMPTY_TITLE = "Archive Manager"
"""File Roller's window title with no archive open (its Delete dialog is titled so too)."""

COMPLETED = "Extraction completed successfully"


class ArchiveError(ValueError):
    """Why an archive cannot be scored: corrupt, truncated, hostile, or not an archive at all."""


@dataclass(frozen=True)
class Archive:
    """What an archive holds: its format by content, each file member's bytes by its name, and the
    names of its folder entries (without the trailing ``/``)."""

    format: str
    files: dict[str, bytes]
    folders: frozenset[str]


# --- reading ------------------------------------------------------------------------------------


def format_of(data: bytes) -> str | None:
    """The archive format of ``data`` by its first bytes (a compressed stream is taken for a tar,
    which ``read_archive`` then checks); None when it is none of ``FORMATS``."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    if data[:3] == b"BZh":
        return "tar.bz2"
    if data[:6] == b"\xfd7zXZ\x00":
        return "tar.xz"
    if data[257:262] == b"ustar":
        return "tar"
    return None


def _safe_name(name: str) -> str:
    """The member's name without a folder's trailing ``/``, if it stays inside the archive."""
    bare = name[:-1] if name.endswith("/") else name
    parts = bare.split("/")
    if (
        not bare
        or "\\" in name
        or "\0" in name
        or bare.startswith("/")
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise ArchiveError(f"the member name {name[:80]!r} is not a plain relative path (it could escape the folder)")
    return bare


def _read_zip(data: bytes) -> Archive:
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    total = 0
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(f"{len(infos)} members, more than {MAX_MEMBERS}")
        for info in infos:
            name = _safe_name(info.filename)
            if name in files or name in folders:
                raise ArchiveError(f"the member {name!r} is there twice")
            kind = stat.S_IFMT(info.external_attr >> 16)
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError(f"the member {name!r} is a link or a device, not a file")
            if info.flag_bits & 0x1:
                raise ArchiveError(f"the member {name!r} is encrypted")
            if info.is_dir():
                folders.add(name)
                continue
            if info.file_size > MAX_MEMBER:
                raise ArchiveError(f"the member {name!r} says it expands to {info.file_size} bytes")
            # The header's size may lie: read one byte past the bound, and let zipfile check the CRC.
            with archive.open(info) as member:
                content = member.read(MAX_MEMBER + 1)
            if len(content) > MAX_MEMBER:
                raise ArchiveError(f"the member {name!r} expands past {MAX_MEMBER} bytes")
            total += len(content)
            if total > MAX_TOTAL:
                raise ArchiveError(f"the members expand past {MAX_TOTAL} bytes in all")
            files[name] = content
    return Archive("zip", files, frozenset(folders))


def _decompressor(fmt: str) -> Any:
    if fmt == "tar.gz":
        return zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer around the deflate stream
    if fmt == "tar.bz2":
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ)


def _inflate(data: bytes, fmt: str) -> bytes:
    """The tar stream inside ``data``, bounded by ``MAX_TOTAL``: a whole single stream, nothing after it."""
    decompressor = _decompressor(fmt)
    # zlib's max_length is positional; bz2's and lzma's is a keyword of the same meaning
    raw = (
        decompressor.decompress(data, MAX_TOTAL + 1)
        if fmt == "tar.gz"
        else decompressor.decompress(data, max_length=MAX_TOTAL + 1)
    )
    if len(raw) > MAX_TOTAL:
        raise ArchiveError(f"it expands past {MAX_TOTAL} bytes")
    if not decompressor.eof:
        raise ArchiveError("the compressed stream is truncated")
    if decompressor.unused_data:
        raise ArchiveError(f"{len(decompressor.unused_data)} bytes of other data follow the compressed stream")
    return bytes(raw)


def _read_tar(data: bytes, fmt: str) -> Archive:
    raw = data if fmt == "tar" else _inflate(data, fmt)
    if raw[257:262] != b"ustar":
        raise ArchiveError(f"the {fmt} holds no tar archive")
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
        count = 0
        for info in archive:
            count += 1
            if count > MAX_MEMBERS:
                raise ArchiveError(f"more than {MAX_MEMBERS} members")
            name = _safe_name(info.name)
            if name in files or name in folders:
                raise ArchiveError(f"the member {name!r} is there twice")
            if info.isdir():
                folders.add(name)
                continue
            if not info.isreg():
                raise ArchiveError(f"the member {name!r} is a link or a device, not a file")
            if info.size > MAX_MEMBER:
                raise ArchiveError(f"the member {name!r} is {info.size} bytes")
            member = archive.extractfile(info)
            content = member.read() if member is not None else b""
            if len(content) != info.size:
                raise ArchiveError(f"the member {name!r} is truncated")
            files[name] = content
    return Archive(fmt, files, frozenset(folders))


def read_archive(data: bytes) -> Archive:
    """Every member of the archive in ``data``, read in memory within the module's bounds.

    Raises:
        ArchiveError: it is not an archive of ``FORMATS``, or it is corrupt, truncated or hostile
            (the message says which and where).
    """
    if len(data) > MAX_ARCHIVE:
        raise ArchiveError(f"{len(data)} bytes, more than the {MAX_ARCHIVE} an archive here may be")
    fmt = format_of(data)
    if fmt is None:
        raise ArchiveError("it is not a zip or a (compressed) tar archive")
    try:
        return _read_zip(data) if fmt == "zip" else _read_tar(data, fmt)
    except ArchiveError:
        raise
    # The readers raise many kinds on broken input (BadZipFile, ReadError, zlib.error, LZMAError,
    # EOFError, struct errors, NotImplementedError for an unknown method): each is a corrupt archive.
    except Exception as exc:
        raise ArchiveError(f"a corrupt {fmt}: {type(exc).__name__}: {str(exc)[:120]}") from None


# --- scoring ------------------------------------------------------------------------------------


def _own_file(after: Snapshot, path: str) -> str | None:
    """Why ``path`` is not a regular file of its own in ``after`` (None: it is one)."""
    state = after.get(path)
    if state is None:
        return "no such file"
    if state.kind != "file":
        return f"a {state.kind}, not a file"
    if state.links != 1 or any(p != path and s.kind == "file" and s.inode == state.inode for p, s in after.items()):
        return "a hard link to another file"
    return None


async def archive_at(task: Task, session: Session, after: Snapshot, path: str) -> Archive | None:
    """The archive at ``~/path`` as ``read_archive`` reads it; None (with the reason ``task.explain``-ed)
    when it is missing, not a file of its own, too large, or not a readable archive."""
    why = _own_file(after, path)
    if why is None and after[path].size > MAX_ARCHIVE:
        why = f"{after[path].size} bytes, too large to be the archive asked for"
    if why is None:
        try:
            return read_archive(await session.read_bytes(path))
        except (ArchiveError, OSError, CuaError) as exc:
            why = str(exc)
    task.explain(f"{path}: {why}")
    return None


def _ancestors(names: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for name in names:
        parent = posixpath.dirname(name)
        while parent:
            found.add(parent)
            parent = posixpath.dirname(parent)
    return found


Expected = Mapping[str, str | tuple[str, ...]]
"""``{member or path: its text}``, or the texts it may hold (an edited line with or without the final newline)."""


def _texts(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


def holds_exactly(task: Task, path: str, archive: Archive | None, fmt: str, expected: Expected) -> bool:
    """``archive`` is a ``fmt`` archive (by content) whose file members are exactly ``expected``
    (name: text, byte for byte), with no folder entry but those of its members' folders."""
    if archive is None:
        return False
    problems = []
    if archive.format != fmt:
        problems.append(f"it is a {archive.format} archive, not a {fmt}")
    missing = sorted(set(expected) - set(archive.files))
    extra = sorted(set(archive.files) - set(expected))
    differ = sorted(
        n
        for n in set(expected) & set(archive.files)
        if archive.files[n] not in (text.encode() for text in _texts(expected[n]))
    )
    extra_folders = sorted(archive.folders - _ancestors(expected))
    problems += [f"{what} {names}" for what, names in (("missing", missing), ("extra", extra)) if names]
    problems += [f"{what} {names}" for what, names in (("changed", differ), ("extra folders", extra_folders)) if names]
    if problems:
        task.explain(f"{path}: {'; '.join(problems)}")
    return not problems


async def start_empty(task: Task, session: Session) -> None:
    """Setup of a task that makes a new archive: its ``files`` written, File Roller open with no archive."""
    await write_files(session, task.metadata["files"])
    await start(session, "file-roller", title=EMPTY_TITLE)
    await remember_files(task, session)


async def archive_score(task: Task, session: Session, path: str, fmt: str, expected: Expected) -> list[float]:
    """An archive task's reward: 1.0 when ``~/path`` is a plain ``fmt`` archive holding exactly ``expected``
    (``holds_exactly``) and no other file under home changed since setup."""
    before, after = await files_since_setup(task, session)
    held = holds_exactly(task, path, await archive_at(task, session, after, path), fmt, expected)
    return [1.0 if held and nothing_else_changed(task, before, after, expect=[path]) else 0.0]


def extracted_exactly(task: Task, after: Snapshot, folder: str, expected: Expected) -> bool:
    """The folder ``~/folder`` holds exactly ``expected`` (path inside it: text), each a regular file
    of its own (one link, an inode no other path shares), and no other path but their folders."""
    prefix = folder + "/"
    under = {path[len(prefix) :]: state for path, state in after.items() if path.startswith(prefix)}
    problems = []
    allowed_dirs = _ancestors(expected)
    extra = sorted(
        name
        for name, state in under.items()
        if name not in expected and not (state.kind == "dir" and name in allowed_dirs)
    )
    if extra:
        problems.append(f"extra {extra[:5]}")
    for name, texts in sorted(expected.items()):
        why = _own_file(after, prefix + name)
        if why is None and after[prefix + name].sha256 not in {digest(text) for text in _texts(texts)}:
            why = "holds other bytes than the archive's member"
        if why is not None:
            problems.append(f"{name}: {why}")
    if problems:
        task.explain(f"{folder}: {'; '.join(problems)}")
    return not problems


# --- seeding ------------------------------------------------------------------------------------

_EPOCH = (2024, 5, 17, 9, 30, 0)


def archive_bytes(fmt: str, files: Mapping[str, str]) -> bytes:
    """An archive of ``fmt`` holding ``files`` (name: text) and entries for their folders, as setup seeds it."""
    folders = sorted(_ancestors(files))
    out = io.BytesIO()
    if fmt == "zip":
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for folder in folders:
                archive.writestr(zipfile.ZipInfo(folder + "/", _EPOCH), b"")
            for name, text in files.items():
                info = zipfile.ZipInfo(name, _EPOCH)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                archive.writestr(info, text.encode())
        return out.getvalue()
    mode = {"tar": "w", "tar.gz": "w:gz", "tar.bz2": "w:bz2", "tar.xz": "w:xz"}[fmt]
    with tarfile.open(fileobj=out, mode=mode) as archive:  # type: ignore[call-overload]
        for folder in folders:
            entry = tarfile.TarInfo(folder)
            entry.type, entry.mode, entry.mtime = tarfile.DIRTYPE, 0o755, 1715938200
            archive.addfile(entry)
        for name, text in files.items():
            data = text.encode()
            entry = tarfile.TarInfo(name)
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 1715938200
            archive.addfile(entry, io.BytesIO(data))
    return out.getvalue()


# --- File Roller's hands ---------------------------------------------------------------------------


def archive_title(name: str) -> Match:
    """File Roller's window showing the archive ``name`` (it titles it ``NAME `` with a space)."""
    return lambda title: title.strip() == name


def _center(bounds: list[float]) -> Point:
    return Point((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2)


def _find(root: Node, role: str, name: str | None = None) -> list[Node]:
    return [n for n in nodes(root) if n.get("role") == role and (name is None or n.get("name") == name)]


async def _node(session: Session, title: Match, role: str, name: str, what: str) -> Node:
    """The first on-screen widget of ``role`` called ``name`` in the window titled ``title``, once it shows."""

    async def found() -> Node | None:
        top = await app_window(session, title)
        if top is None:
            return None
        return next((n for n in _find(top, role, name) if n.get("bounds") and "showing" in n.get("states", [])), None)

    return await wait_for(found, what)


async def _click(session: Session, node: Node, clicks: int = 1) -> None:
    await act(session, Click(_center(node["bounds"]), clicks=clicks))


async def _lists(session: Session, title: Match, names: Iterable[str], present: bool = True) -> None:
    """Wait until the window titled ``title`` lists (``present``) or no longer lists each of ``names`` in its table."""
    wanted = list(names)

    async def shown() -> bool:
        top = await app_window(session, title)
        if top is None:
            return False
        cells = {n.get("name") for n in _find(top, "table cell")}
        return all((name in cells) == present for name in wanted)

    await wait_for(shown, f"File Roller to {'list' if present else 'drop'} {wanted}")


async def focus(session: Session, title: Match) -> None:
    """Click a spot of the window titled ``title`` that no window in front of it covers (its title
    bar first), as a person brings a window forward; returns once it has the focus."""
    shown = await session.windows()
    index = next(
        i for i, info in enumerate(shown) if (title(info["title"]) if callable(title) else info["title"] == title)
    )
    left, top, right, bottom = shown[index]["bounds"]
    before = [info["bounds"] for info in shown[:index]]
    step_y = 12 * 1000 / session.height  # the middle of the title bar, then down the window
    spots = [
        (left + (right - left) * fx, top + step_y + (bottom - top) * fy)
        for fy in (0, 0.5, 0.9)
        for fx in (0.5, 0.2, 0.8)
    ]
    for x, y in spots:
        if not any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in before):
            await act(session, Click(Point(x, y)))
            break
    else:
        raise TaskError("every spot of the window is covered by another")

    async def focused() -> bool:
        return any(info.get("focused") and _matches(title, info["title"]) for info in await session.windows())

    await wait_for(focused, "the window to take the focus")


def _matches(title: Match, value: str) -> bool:
    return value == title if isinstance(title, str) else title(value)


async def new_archive(session: Session, name: str, ext: str) -> None:
    """Ctrl+N in File Roller, the name ``name`` typed, the format ``ext`` (``.zip``) chosen in the
    list beside it, and Create; returns once the window shows the new archive ``name + ext``."""
    await open_dialog(session, "ctrl+n", "New Archive")
    await window(session, "New Archive")
    await act(session, key("ctrl+a"), TypeText(name), Wait(0.2))
    combo = await wait_for(lambda: _combo(session), "the format list")
    if combo.get("name") != ext:
        await _click(session, combo)
        items = await wait_for(lambda: _menu_items(session), "the list of formats")
        names = [item.get("name") for item in items]
        current = next((i for i, item in enumerate(items) if "selected" in item.get("states", [])), None)
        if ext not in names or current is None:
            raise TaskError(f"File Roller offers no {ext} (it offers {names})")
        steps = names.index(ext) - current
        await act(session, *[key("down" if steps > 0 else "up")] * abs(steps), key("enter"))
        await wait_for(lambda: _combo_is(session, ext), f"the format list to show {ext}")
    await _click(session, await _node(session, "New Archive", "push button", "Create", "the Create button"))
    await window(session, archive_title(name + ext))


async def _combo(session: Session) -> Node | None:
    """The New Archive dialog's list of formats (the combo box showing an extension)."""
    top = await app_window(session, "New Archive")
    if top is None:
        return None
    return next((n for n in _find(top, "combo box") if str(n.get("name") or "").startswith(".")), None)


async def _combo_is(session: Session, ext: str) -> bool:
    combo = await _combo(session)
    return combo is not None and combo.get("name") == ext


async def _menu_items(session: Session) -> list[Node] | None:
    top = await app_window(session, "New Archive")
    if top is None:
        return None
    return _find(top, "menu item") or None


async def add_files(session: Session, archive: str, folder: str, names: list[str]) -> None:
    """The Add button of File Roller's window on ``archive``, then in the Add Files dialog: Home,
    double-clicks down to ``~/folder``, the check box of each of ``names`` ticked, and Add; returns
    once the window lists them."""
    title = archive_title(archive)
    await _click(session, await _node(session, title, "push button", "Add", "the Add button"))
    await window(session, "Add Files")
    home = await _node(session, "Add Files", "label", "Home", "the Home place")
    await _click(session, home)
    for part in folder.split("/") if folder else []:
        await _click(session, await _node(session, "Add Files", "table cell", part, f"the folder {part}"), clicks=2)
        await wait_for(partial(_location_ends, session, part), f"the dialog to show {part}")
    for name in names:
        await _click(session, await wait_for(partial(_checkbox, session, name), f"the check box of {name}"))
    await _click(session, await _node(session, "Add Files", "push button", "Add", "the dialog's Add button"))
    await no_window(session, "Add Files")
    await _lists(session, title, names)


async def _checkbox(session: Session, name: str) -> Node | None:
    """The check box of the row ``name`` in File Roller's Add Files list: the narrow cell that opens its row."""
    top = await app_window(session, "Add Files")
    if top is None:
        return None
    cells = [n for n in _find(top, "table cell") if n.get("bounds")]
    row = next((n for n in cells if n.get("name") == name), None)
    if row is None:
        return None
    same_row = [n for n in cells if n["bounds"][1] == row["bounds"][1] and n["bounds"][2] - n["bounds"][0] < 20]
    return min(same_row, key=lambda n: n["bounds"][0], default=None)


async def _location_ends(session: Session, part: str) -> bool:
    top = await app_window(session, "Add Files")
    return top is not None and any(str(n.get("value") or "").endswith("/" + part) for n in _find(top, "text"))


async def extract_all(session: Session, archive: str, folder: str, *, selected: str | None = None) -> None:
    """Extract (the header bar's button) on ``archive``, the folder ``~/folder`` typed into the
    Extract dialog, and the completion note closed. ``selected``: that member clicked first and
    "Selected files" ticked, so only it is extracted."""
    title = archive_title(archive)
    if selected is not None:
        await _click(session, await _node(session, title, "table cell", selected, f"the row of {selected}"))
    await _click(session, await _node(session, title, "push button", "Extract", "the Extract button"))
    await window(session, "Extract")
    if selected is not None:
        await _click(session, await _node(session, "Extract", "radio button", "Selected files", "Selected files"))
    await act(session, key("ctrl+l"))
    await submit_dialog(session, "Extract", f"~/{folder}")

    async def note() -> Node | None:
        for top in await session.accessibility_tree():
            if any(n.get("name") == COMPLETED for n in nodes(top)):
                return top
        return None

    await wait_for(note, "the extraction to complete")
    await act(session, key("enter"))

    async def closed() -> bool:
        return await note() is None

    await wait_for(closed, "the completion note to close")


async def delete_member(session: Session, archive: str, member: str) -> None:
    """The member's row clicked in File Roller's window on ``archive``, Delete, and the Delete button
    of the dialog that asks (Selected files); returns once the window no longer lists it.

    The dialog's widgets reach the tree under the archive window's name, so its button is found by
    name inside the dialog's bounds; a click that came while the window manager was still placing
    the dialog is tried again, as a person clicks again.
    """
    title = archive_title(archive)
    await _click(session, await _node(session, title, "table cell", member, f"the row of {member}"))
    await act(session, key("delete"))
    for _ in range(3):
        dialog = await window(session, EMPTY_TITLE)
        bounds = dialog["bounds"]
        button = await wait_for(partial(_button_in, session, bounds, "Delete"), "the Delete button")
        await _click(session, button)
        try:
            await no_window(session, EMPTY_TITLE, timeout=3.0)
            break
        except TaskError:
            continue
    await _lists(session, title, [member], present=False)


async def _button_in(session: Session, bounds: list[float], name: str) -> Node | None:
    """A push button called ``name`` showing inside ``bounds``, under whichever window the tree puts it."""
    left, top, right, bottom = bounds
    for root in await session.accessibility_tree():
        for node in _find(root, "push button", name):
            box = node.get("bounds")
            if box and left <= box[0] and box[2] <= right and top <= box[1] and box[3] <= bottom:
                return node
    return None
