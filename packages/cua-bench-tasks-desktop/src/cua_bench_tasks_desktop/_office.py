"""LibreOffice (Calc, Writer, Impress) in the desktop tasks: documents opened on a ready profile, saved
as a person saves them, and read back in their real format (not a task: no ``main.py``).

**The profile.** A fresh home makes LibreOffice run its first-start work (graphics render tests, ~30 s
of CPU on two cores) and drop keys typed meanwhile. Setup writes the few settings that say the profile
is set up for this very build (read from the installed ``versionrc`` and ``bootstraprc``), with the
tip of the day off: LibreOffice then starts in about a second, as on a computer that has run it before.
Autocorrect's capital at the start of a sentence is off too (see ``_SETTINGS``).

**Ready for keys.** LibreOffice shows its window before it takes text: keys typed in the first second
are lost or land in the wrong cell. Setup waits until the screen has been still for a moment
(``still``), as a person waits for the window to finish drawing, and then until Calc and Writer answer
keys (``_takes_keys``). A blinking caret (Writer's, Impress's text) would keep it from ever being still,
so GTK's settings turn the blink off (``NO_BLINK``, a cache).

**Saved.** LibreOffice puts no ``*`` in its title. The oracle saves and waits for the file to change,
as a person watches the save icon; for a foreign format (``.xlsx``, ``.docx``, ``.pptx``) it answers
the Keep Current Format question with the focused "Use ... Format!", keeping the format the name asks for.

**Locks.** Beside each open document LibreOffice keeps ``.~lock.NAME#``; ``cua_bench.filestate``
does not count it as a change (``office_lock``), and its profile is among the caches.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.gnumeric import Workbook
from cua_bench.office import Format, parse_as
from cua_bench_tasks_desktop._common import (
    PATIENCE,
    act,
    click_at,
    key,
    open_dialog,
    remember_files,
    shell,
    start,
    submit_dialog,
    wait_for,
    window,
)
from cua_core import CuaError, TypeText, Wait

__all__ = [
    "APPS",
    "CONFIRM_FORMAT",
    "FOREIGN",
    "NO_BLINK",
    "app_title",
    "book_bytes",
    "click_in",
    "open_document",
    "read_bytes",
    "save",
    "save_as",
    "screen_hash",
    "search_command",
    "still",
    "workbook",
    "write_profile",
]

APPS = {"calc": "LibreOffice Calc", "writer": "LibreOffice Writer", "impress": "LibreOffice Impress"}
"""The app's name in its window title (``NAME - LibreOffice Calc``), by ``soffice``'s switch."""

FOREIGN = (".xlsx", ".docx", ".pptx", ".xls", ".doc", ".ppt", ".csv", ".txt", ".rtf")
"""Names whose save LibreOffice questions (Keep Current Format)."""

CONFIRM_FORMAT = "Confirm File Format"
PROFILE = ".config/libreoffice/4/user/registrymodifications.xcu"
NO_BLINK = ".config/gtk-3.0/settings.ini"
"""GTK's settings file (under ``CACHES``), where setup turns the caret's blinking off."""
PROGRAM = "/usr/lib/libreoffice/program"

_ITEM = '<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse"><value>{value}</value></prop></item>'
_SETTINGS = (
    ("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "true"),
    ("/org.openoffice.Setup/Office", "LastCompatibilityCheckID", "{build}"),
    ("/org.openoffice.Setup/Product", "ooSetupLastVersion", "{version}"),
    ("/org.openoffice.Setup/Product", "LastTimeDonateShown", "4102444800"),
    ("/org.openoffice.Setup/Product", "LastTimeGetInvolvedShown", "4102444800"),
    ("/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "false"),
    ("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
    # Off: it capitalises a cell typed as "notes_2027.md" (the dot reads as a sentence's end), so text a task
    # asks for exactly would need undoing by hand. Typing capitals still gives capitals.
    ("/org.openoffice.Office.Common/AutoCorrect", "CapitalAtStartSentence", "false"),
)


def app_title(path: str, app: str) -> Callable[[str], bool]:
    """The title of LibreOffice's ``app`` window showing ``~/path``: ``NAME - LibreOffice Calc``."""
    name = path.rsplit("/", 1)[-1]
    return lambda title: title == f"{name} - {APPS[app]}"


async def write_profile(session: Session, extra: tuple[str, ...] = ()) -> None:
    """A profile that says this build has been set up (see the module's docstring), with the ``extra``
    registry items (``<item oor:path=...>`` lines) an app's tasks need."""
    result = await session.run_command(
        f"sed -n 's/^buildid=//p' {PROGRAM}/versionrc | head -n1; "
        f"sed -n 's/^ProductKey=LibreOffice //p' {PROGRAM}/bootstraprc | head -n1",
        timeout=20,
    )
    found = result.stdout.split("\n")
    if result.returncode != 0 or len(found) < 2 or not found[0] or not found[1]:
        raise TaskError(f"LibreOffice is not installed here (no {PROGRAM}/versionrc): apt-get install libreoffice-calc")
    build, version = found[0].strip(), found[1].strip()
    items = "\n".join(
        _ITEM.format(path=path, name=name, value=value.format(build=build, version=version))
        for path, name, value in _SETTINGS
    )
    items = "\n".join((items, *extra))
    await session.write_file(
        PROFILE,
        '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
        'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
        f"{items}\n</oor:items>\n",
    )


async def screen_hash(session: Session) -> int:
    """A hash of what the screen shows now (the shared-memory frame where the backend has one)."""
    frame = session.frame()
    return hash(frame.tobytes()) if frame is not None else hash(await session.screenshot())


async def still(session: Session, quiet: float = 0.6, timeout: float = PATIENCE) -> None:
    """Wait until the screen has not changed for ``quiet`` seconds (a bounded wait)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while True:
        current = await screen_hash(session)
        now = time.monotonic()
        if current != last:
            last, since = current, now
        elif now - since >= quiet:
            return
        if now > deadline:
            raise TaskError(f"the screen did not settle in {timeout:g} s")
        await asyncio.sleep(0.1)


async def click_in(
    session: Session, match: Callable[[str], bool] | str, place: tuple[int, int], *, quiet: float = 0.35
) -> None:
    """Oracle move: a click at ``place`` (pixels from the top-left corner) in the window ``match`` finds, then a
    screen still for ``quiet`` seconds: LibreOffice's toolbar buttons and dialog fields that no key reaches."""
    bounds = (await window(session, match))["bounds"]
    await act(session, click_at(session, bounds, *place))
    await still(session, quiet=quiet)


async def search_command(session: Session, words: str, dialog: str | None = None) -> None:
    """Oracle move: LibreOffice's Search Commands (Shift+Esc, Help > Search Commands): ``words`` typed, the
    screen left to settle on the list it finds, and the first command run with Enter; then (with ``dialog``)
    a wait for the dialog it opens, and a still screen."""
    if not await _answers(session, "shift+escape", tries=2):
        raise TaskError("Search Commands (Shift+Esc) did not open")
    await act(session, TypeText(words), Wait(0.6))
    await still(session, quiet=0.4)
    await act(session, key("Return"))
    if dialog is not None:
        await window(session, dialog)
    await still(session, quiet=0.4)


async def _answers(session: Session, combo: str, tries: int = 4, wait: float = 3.0) -> bool:
    """``combo`` pressed until the screen changes (again when a press went nowhere): True once it did."""
    for _ in range(tries):
        before = await screen_hash(session)
        await act(session, key(combo))
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            if await screen_hash(session) != before:
                return True
    return False


async def _takes_keys(session: Session) -> None:
    """Wait until the document answers keys: ctrl+end, then ctrl+home, each pressed until the screen
    changes. Both go to a fixed place, so a press that was only slow does no harm when pressed again,
    and the document ends where it opened (A1, the first character). A still screen is not enough on a
    loaded machine: CI once saw Calc drop a goto's last keys after it had been still for 0.6 s."""
    if await _answers(session, "ctrl+end"):
        await _answers(session, "ctrl+home")
    await still(session)


async def open_document(task: Task, session: Session, app: str, path: str, data: bytes) -> None:
    """Setup: ``data`` saved at ``~/path``, open in LibreOffice's ``app`` (calc, writer, impress) and
    ready for keys, and every file under home remembered (``unchanged_but``)."""
    if "/" in path:
        await session.run_command(f"mkdir -p {shell(path.rsplit('/', 1)[0])}", timeout=20, check=True)
    await session.write_bytes(path, data)
    await write_profile(session)
    await session.write_file(NO_BLINK, "[Settings]\ngtk-cursor-blink = false\n")
    await start(session, "soffice", f"--{app}", "--norestore", "--nologo", path, title=app_title(path, app))
    await still(session)
    if app != "impress":
        await _takes_keys(session)
    await remember_files(task, session)


def book_bytes(sheets: Mapping[str, Sequence[Sequence[str | int | float]]], fmt: Format) -> bytes:
    """A workbook in ``fmt`` holding ``sheets`` (name -> rows from A1; "" is an empty cell), numbers as
    numbers and text as text, as setup's seed."""
    out = io.BytesIO()
    if fmt == "xlsx":
        import openpyxl

        book = openpyxl.Workbook()
        book.remove(book.active)
        for name, rows in sheets.items():
            sheet = book.create_sheet(name)
            for r, row in enumerate(rows, start=1):
                for c, value in enumerate(row, start=1):
                    if value != "":
                        sheet.cell(row=r, column=c, value=value)
        book.save(out)
        return out.getvalue()
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    for name, rows in sheets.items():
        table = Table(name=name)
        for row in rows:
            line = TableRow()
            for value in row:
                cell: Any
                if isinstance(value, int | float) and not isinstance(value, bool):
                    cell = TableCell(valuetype="float", value=value)
                    cell.addElement(P(text=f"{value:g}"))
                elif value == "":
                    cell = TableCell()
                else:
                    cell = TableCell(valuetype="string")
                    cell.addElement(P(text=str(value)))
                line.addElement(cell)
            table.addElement(line)
        doc.spreadsheet.addElement(table)
    doc.write(out)
    return out.getvalue()


async def read_bytes(session: Session, path: str) -> bytes | None:
    try:
        return await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        return None


async def save(session: Session, path: str, *, tries: int = 3) -> None:
    """Oracle move: ctrl+s, the format question answered where LibreOffice asks it (a foreign format's
    first save of the session), and a wait until the file at ``~/path`` changes on disk. A ctrl+s pressed
    while the window is taking the focus back from a dialog goes nowhere, so one that shows no effect in
    a few seconds is pressed again."""
    before = await read_bytes(session, path)

    async def saved() -> bool:
        return (await read_bytes(session, path)) not in (None, before)

    async def answered() -> str | None:
        if await saved():
            return "saved"
        titles = [info["title"] for info in await session.windows()]
        return "asked" if CONFIRM_FORMAT in titles else None

    for attempt in range(tries):
        await act(session, key("ctrl+s"))
        try:
            if await wait_for(answered, f"{path} to be saved", 5 if attempt < tries - 1 else PATIENCE) == "asked":
                await act(session, key("Return"))  # the focused "Use ... Format!": the format the name asks for
                await wait_for(saved, f"{path} to be saved")
            return
        except TaskError:
            if attempt == tries - 1:
                raise


async def save_as(session: Session, path: str, app: str) -> None:
    """Oracle move: File > Save As (ctrl+shift+s) under ``~/path``; LibreOffice takes the format from
    the name's extension. Waits for the window to show the new name."""
    await open_dialog(session, "ctrl+shift+s", "Save")
    await submit_dialog(session, "Save", f"~/{path}")
    if path.lower().endswith(FOREIGN):
        await window(session, CONFIRM_FORMAT)
        await act(session, key("Return"))  # the focused "Use ... Format!": the format the name asks for
    await window(session, app_title(path, app))


async def workbook(session: Session, path: str, fmt: Format) -> Workbook | None:
    """The workbook saved at ``~/path`` in the format ``fmt``; None when it is missing or another format."""
    data = await read_bytes(session, path)
    return None if data is None else parse_as(data, fmt)
