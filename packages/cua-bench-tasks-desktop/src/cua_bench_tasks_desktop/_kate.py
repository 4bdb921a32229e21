"""What the Kate tasks share: Kate's setup, titles, menus and keys, and saved files read back byte for byte.

Not a task folder (no ``main.py``). Kate 22.12 (Qt 5, KTextEditor 5.103) reaches the accessibility bus
(the backend sets ``QT_LINUX_ACCESSIBILITY_ALWAYS_ON``): Qt registers once the bus's ``org.a11y.Bus`` is up,
which the first tree read starts, so setup reads the tree until Kate's menu bar is in it. The menus'
items, the search bar's fields and buttons and the editor are all there; the editor is a ``text`` node
named after the document whose value is the document's whole text (the live witness ``editor_text``).

**Starting Kate.** ``kate -n FILE`` with a ``katerc`` that starts a new anonymous session and keeps no
file metadata. Kate starts in about a second and spawns only the accessibility bus (no kded, no
kbuildsycoca5 beyond its own cache in ``~/.cache``); the backend's teardown ends them all. Kate always
builds a ``SingleApplication`` whose System V semaphore and shared memory keys come from ``ftok`` on a
file in ``$TMPDIR``: with every environment's fresh ``/tmp`` giving the same keys, a killed Kate's objects
in the host's IPC namespace made 2 starts in 3 fail ("Unable to create block"). An isolated local
environment has an IPC namespace of its own now (``cua_bench.backends.local.isolate``), so they go with it.

**Kate's title** is ``NAME  — Kate`` and ``NAME * — Kate`` while the document has unsaved changes
(``Kate`` alone when it has no document: started without a file, it opens none, so setup presses ctrl+n).

**What Kate writes by itself** (``KATE_WRITES``): its settings (``katerc``, rewritten whole at start and
as dialogs close), ``~/.local/share/kate`` (sessions), KDE's places list (``user-places.xbel*``), and
the recent-documents entries KIO writes on a save (``~/.local/share/RecentDocuments``), and the LSP
client's ``settings.json`` (written when Settings > Configure Kate opens). They may change only as Kate
writes them (``_common.app_wrote``: no mode change, no time moved on unchanged content, no links), and
``katerc`` is the answer, not an allowance, where the task is a setting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    act,
    app_wrote,
    files_since_setup,
    key,
    nothing_else_changed,
    output_bytes,
    remember_files,
    start,
    wait_for,
    window,
    write_files,
)
from cua_core import Action, Click, KeyPress, TypeText, Wait

__all__ = [
    "APP",
    "KATERC",
    "KATE_WRITES",
    "UNTITLED",
    "click_item",
    "command",
    "difference",
    "editor_text",
    "from_menu",
    "open_in_kate",
    "save",
    "saved",
    "scored",
    "select_lines",
    "strict_text",
    "title",
]

APP = "kate"
KATERC = ".config/katerc"
SETTINGS = """[General]
Startup Session=new
Restore Window Configuration=false
Save Meta Infos=false
Days Meta Infos=0
Show Full Path in Title=false
"""
"""Setup's ``katerc``: a new anonymous session at start, no restored windows, no metadata kept per file."""
KATE_WRITES = {
    KATERC: "Kate's settings: rewritten whole at start and as its dialogs close (their sizes, last folders)",
    ".local/share/kate": "Kate's sessions folder",
    ".local/share/user-places.xbel": "KDE's places list, which a file dialog rewrites",
    ".local/share/user-places.xbel.bak": "its backup",
    ".local/share/user-places.xbel.tbcache": "its cache",
    ".local/share/RecentDocuments": "KIO's recent documents, an entry written for each file Kate saves",
    ".config/kde.org/UserFeedback.org.kde.kate.conf": "KUserFeedback's usage counters (start count, time used)",
    ".config/kate/lspclient/settings.json": "the LSP client plugin's user settings, written when Settings > "
    "Configure Kate opens its page",
    ".config/QtProject.conf": "Qt's file dialog history (last folder), written when Save As closes",
}
"""Files Kate writes by itself, each with the reason: never the answer of an edit task."""

UNTITLED = "Untitled  — Kate"
"""Kate's title on the empty document it opens when started without a file."""

Node = dict[str, Any]


def title(path: str, *, clean: bool = True) -> Callable[[str], bool]:
    """Kate's title while it shows ``~/path``: ``NAME  — Kate``; without ``clean`` also ``NAME * — Kate``."""
    name = path.rsplit("/", 1)[-1]
    return lambda shown: shown == f"{name}  — Kate" or (not clean and shown == f"{name} * — Kate")


def dirty(path: str) -> Callable[[str], bool]:
    name = path.rsplit("/", 1)[-1]
    return lambda shown: shown == f"{name} * — Kate"


async def _menu_bar(session: Session) -> bool:
    return any(
        n.get("role") == "menu item" and n.get("name") == "Tools" for n in walk(await session.accessibility_tree())
    )


async def open_in_kate(
    task: Task, session: Session, files: dict[str, str | bytes], *paths: str, settings: str = SETTINGS
) -> None:
    """Setup: ``files`` written (text or bytes), Kate started on ``paths`` (the last one shown; none: a new
    Untitled document, which Kate started without a file does not open by itself), its widgets
    on the accessibility bus, and the files under home remembered."""
    texts = {p: v for p, v in files.items() if isinstance(v, str)}
    await write_files(session, {KATERC: settings, **texts})
    for path, data in files.items():
        if isinstance(data, bytes):
            await session.write_bytes(path, data)
    await start(session, APP, "-n", *paths, title=title(paths[-1]) if paths else "Kate", timeout=60)
    await wait_for(lambda: _menu_bar(session), "Kate's menu bar on the accessibility bus", timeout=30)
    if not paths:  # Kate started without a file shows no document: File > New opens one
        await act(session, key("ctrl+n"))
        await window(session, UNTITLED)
    await act(session, Wait(1.0))  # Kate writes katerc and the places list as it settles
    await remember_files(task, session)


async def find_node(session: Session, role: str, name: str) -> Node | None:
    """The first showing widget of ``role`` named ``name`` that has a place on screen."""
    for node in walk(await session.accessibility_tree()):
        showing = "showing" in (node.get("states") or [])
        if node.get("role") == role and node.get("name") == name and showing and node.get("bounds"):
            return node
    return None


async def click_item(session: Session, name: str, role: str = "menu item", timeout: float = 10.0) -> None:
    """Wait for the showing item and click its middle."""
    node = await wait_for(lambda: find_node(session, role, name), f"the {role} {name!r}", timeout)
    await act(session, Click(center(node)))


async def from_menu(session: Session, *items: str) -> None:
    """The menu bar's ``items[0]`` opened and each next item clicked in turn (submenus open on click)."""
    for _attempt in range(3):
        await click_item(session, items[0])
        try:
            await wait_for(lambda: find_node(session, "menu item", items[1]), items[1], timeout=4)
            break
        except TaskError:
            await act(session, key("escape"))
    for item in items[1:]:
        await click_item(session, item)
        await act(session, Wait(0.3))


def select_lines(first: int, last: int) -> list[Action]:
    """Keys that select lines ``first`` to ``last`` (0-based, inclusive) from the first's start to the
    last's end (its newline not included)."""
    return [
        key("ctrl+home"),
        *[key("down")] * first,
        key("home"),
        *[KeyPress(("shift", "down"))] * (last - first),
        key("shift+end"),
    ]


async def command(session: Session, line: str) -> None:
    """Kate's command line (F7, Tools > Switch to Command Line): ``line`` typed and run."""
    await act(session, key("f7"), Wait(0.5), TypeText(line), Wait(0.3), key("enter"))


async def save(session: Session, path: str) -> None:
    """ctrl+s once the title shows unsaved changes, and the wait for the saved title."""
    await window(session, dirty(path))
    await act(session, key("ctrl+s"))
    await window(session, title(path))


async def editor_text(session: Session, path: str) -> str | None:
    """The live text of the editor showing ``~/path`` (its ``text`` node's value)."""
    name = path.rsplit("/", 1)[-1]
    for node in walk(await session.accessibility_tree()):
        if node.get("role") == "text" and node.get("name") == name and isinstance(node.get("value"), str):
            return str(node["value"])
    return None


def strict_text(data: bytes | None) -> str | None:
    """UTF-8 text, decoded strictly (None: missing, or not UTF-8)."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def difference(actual: bytes | None, expected: bytes) -> str:
    """Where ``actual`` first parts from ``expected`` (for ``task.explain``)."""
    if actual is None:
        return "no such file (or not a plain file with one link)"
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        if got != want:
            near = slice(max(0, index - 20), index + 20)
            return f"byte {index} of {len(actual)}: {actual[near]!r}, not {expected[near]!r}"
    return f"{len(actual)} bytes, not {len(expected)}"


async def saved(task: Task, session: Session, path: str) -> tuple[bytes | None, bool]:
    """The bytes of ``~/path`` (a plain file with one link) and whether no other file under home changed
    since setup (Kate's own writes aside)."""
    before, after = await files_since_setup(task, session)
    data = await output_bytes(session, after, path)
    return data, nothing_else_changed(task, before, after, expect=[path, *KATE_WRITES]) and app_wrote(
        task, before, after, KATE_WRITES, "Kate"
    )


async def scored(task: Task, session: Session, path: str, accepted: Iterable[bytes]) -> list[float]:
    """An edit task's reward: 1.0 when ``~/path`` holds exactly one of ``accepted`` and nothing else changed."""
    wanted = list(accepted)
    data, untouched = await saved(task, session, path)
    if data not in wanted:
        task.explain(f"{path}: {difference(data, wanted[0])}")
        return [0.0]
    return [1.0 if untouched else 0.0]
