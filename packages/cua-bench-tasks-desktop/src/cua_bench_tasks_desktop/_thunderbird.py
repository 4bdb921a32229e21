"""Thunderbird (Debian's ``thunderbird``, mail and its built-in calendar) in the desktop tasks: a ready
profile, a mail store of seeded messages, the oracle's moves in its window, and the mail store read
back whole (not a task: no ``main.py``).

**The profile.** Setup writes ``~/.thunderbird/profiles.ini`` and a profile folder (``PROFILE``) whose
``user.js`` sets up one account, "Local Folders" (``mail.server.server1.type`` "none"), and turns off
everything a first start would show: the account hub, the start page, the default-client question,
telemetry's notice, update checks and the global search indexer. Thunderbird starts on it with
``--profile`` and shows the Inbox at once.

**The mail store.** Local Folders keep each folder as an mbox file (Thunderbird's default
"berkeleystore") under ``LOCAL`` (``~/Mail/Local Folders``): ``Inbox``, ``Trash`` ... and ``NAME.sbd/``
for subfolders. Setup writes each seeded message as Thunderbird itself stores one: a ``From -`` line,
``X-Mozilla-Status``, ``X-Mozilla-Status2`` and ``X-Mozilla-Keys`` headers, then the message (built with the stdlib
``email`` package, its multipart boundary fixed by the seed, so its bytes are known). Because the
status headers are there, Thunderbird writes a flag change (read, starred) into them in place, at
once, as it does for its own mail; a message moved to another folder is appended to that folder's
mbox and its old copy marked expunged (``EXPUNGED``) until the folder is compacted. The evaluators
read the mbox files with the stdlib ``mailbox`` module (``read_folder``) and compare each message's
bytes with the seed's, its headers and body exactly, the ``X-Mozilla-*`` headers aside.

**What Thunderbird writes by itself.** The ``.msf`` indexes, prefs.js, window and folder-tree
state, and the embedded browser engine's databases are rewritten while it runs; ``incidental``
names each with its reason. They may change content and time, never kind, mode or link count
(``profile_changes``).

**Accessibility.** Gecko exports its widgets on AT-SPI when ``GNOME_ACCESSIBILITY=1`` is in its
environment (and ``accessibility.force_disabled`` is -1), so the oracles find the message list's
rows, the folder tree's folders, menus and buttons in the tree, and click them where they are.
"""

from __future__ import annotations

import contextlib
import email.utils
import mailbox
import os
import random
import tempfile
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.filestate import Snapshot, changes
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    NOUNS,
    WORDS,
    act,
    env_var,
    files_since_setup,
    key,
    no_window,
    remember_files,
    sentence,
    snapshot_files,
    start,
    submit_dialog,
    wait_for,
    window,
)
from cua_core import Click, CuaError, MouseMove, Point, TypeText, Wait

__all__ = [
    "APP",
    "EXPUNGED",
    "FLAGGED",
    "LOCAL",
    "PROFILE",
    "READ",
    "Stored",
    "click_node",
    "find_node",
    "folder_file",
    "incidental",
    "make_mail",
    "mbox_bytes",
    "message_bytes",
    "open_thunderbird",
    "parse_folder",
    "profile_changes",
    "read_folder",
    "select_message",
    "user_js",
]

APP = "thunderbird"
PROFILE = ".thunderbird/cua.default"
"""The profile folder, relative to home."""
LOCAL = "Mail/Local Folders"
"""The Local Folders account's mail store, relative to home: one mbox file per folder. It lies outside the
profile, where a person may keep it (Account Settings > Local Folders > Local directory), so the files a
task's work may touch are visible files, apart from the profile's own."""
TITLE = "Thunderbird"

READ = 0x0001
FLAGGED = 0x0004  # "starred" in the UI
EXPUNGED = 0x0008  # deleted or moved away, kept in the mbox until the folder is compacted
MOZILLA_HEADERS = ("X-Mozilla-Status", "X-Mozilla-Status2", "X-Mozilla-Keys")
KEYS_PADDING = " " * 80  # Thunderbird leaves room in X-Mozilla-Keys to write tags in place

PREFS: dict[str, bool | int | str] = {
    # One account: Local Folders, with its mail under the profile.
    "mail.accountmanager.accounts": "account1",
    "mail.accountmanager.localfoldersserver": "server1",
    "mail.account.account1.server": "server1",
    "mail.server.server1.type": "none",
    "mail.server.server1.hostname": "Local Folders",
    "mail.server.server1.name": "Local Folders",
    "mail.server.server1.userName": "nobody",
    # Nothing a first start shows: account hub, start page, default-client question, notices.
    "mail.provider.suppress_dialog_on_startup": True,
    "mail.provider.enabled": False,
    "mail.shell.checkDefaultClient": False,
    "mailnews.start_page.enabled": False,
    "mailnews.start_page.url": "about:blank",
    "mailnews.start_page.override_url": "about:blank",
    "mail.rights.override": True,
    "mail.spotlight.firstRunDone": True,
    "mail.winsearch.firstRunDone": True,
    "mail.startup.enabledMailCheckOnce": True,
    "app.donation.eoy.version.viewed": 999,
    "mail.inappnotifications.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.dataSubmissionPolicyBypassNotification": True,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.auto": False,
    "extensions.update.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "mail.cloud_files.enabled": False,
    # No work of its own in the mail store: no global search index, no compaction behind the task's back.
    "mailnews.database.global.indexer.enabled": False,
    "mail.purge.ask": False,
    "mail.prompt_purge_threshold": False,
    "mail.purge_threshold_mb": 100000,
    # A message shown is not marked read by itself: read is a flag the tasks ask for.
    "mailnews.mark_message_read.auto": False,
    # Quiet: no sounds, alerts, or chat status.
    "mail.biff.play_sound": False,
    "mail.biff.show_alert": False,
    "messenger.startup.action": 0,
    # One enabled local calendar, "Home" (a new profile's own is made disabled until the user enables it).
    "calendar.registry.cuahome.type": "storage",
    "calendar.registry.cuahome.uri": "moz-storage-calendar://",
    "calendar.registry.cuahome.name": "Home",
    "calendar.registry.cuahome.color": "#a8c2e1",
    "calendar.registry.cuahome.calendar-main-in-composite": True,
    "calendar.registry.cuahome.calendar-main-default": True,
    "calendar.list.sortOrder": "cuahome",
    "calendar.timezone.local": "UTC",
    "calendar.timezone.useSystemTimezone": False,
    # Widgets on the accessibility bus (-1: always on).
    "accessibility.force_disabled": -1,
    # Deleting asks nothing; a draft is kept where the tasks read it.
    "mailnews.confirm.moveFoldersToTrash": False,
    "browser.download.useDownloadDir": False,
    "ui.prefersReducedMotion": 1,
    "general.smoothScroll": False,
}


def user_js(prefs: dict[str, bool | int | str] = PREFS) -> str:
    def value(v: bool | int | str) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join(f'user_pref("{name}", {value(v)});\n' for name, v in prefs.items())


FILTERS = f"{LOCAL}/msgFilterRules.dat"
FILTERS_TEXT = 'version="9"\nlogging="no"\n'
"""Local Folders' message filters: none (Thunderbird writes this file itself a minute after its first start)."""

PROFILES_INI = f"""[Profile0]
Name=default
IsRelative=1
Path={PROFILE.split("/", 1)[1]}
Default=1

[General]
StartWithLastProfile=1
Version=2
"""


def folder_file(folder: str) -> str:
    """The mbox of a Local Folders folder (``Inbox``, ``Projects/2026``), relative to home."""
    parts = folder.split("/")
    return "/".join([LOCAL, *(f"{part}.sbd" for part in parts[:-1]), parts[-1]])


# --- messages ---------------------------------------------------------------------------------------

FIRST = ("Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Julia", "Kofi", "Lena",
    "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yara")  # fmt: skip
LAST = ("Keller", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Novak", "Silva", "Haddad", "Jensen", "Ivanova",
        "Costa", "Brennan", "Kowalski", "Nakamura", "Rossi", "Schmidt")  # fmt: skip
DOMAINS = ("example.org", "example.com", "example.net")
TOPICS = ("Quarterly", "Weekly", "Updated", "Final", "Revised", "Draft", "Shared", "Pending", "Approved")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _person(rng: random.Random) -> str:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return email.utils.formataddr((f"{first} {last}", f"{first.lower()}.{last.lower()}@{rng.choice(DOMAINS)}"))


def make_mail(
    rng: random.Random,
    subject: str,
    *,
    attachment: tuple[str, str] | None = None,
    read: bool = False,
    flagged: bool = False,
) -> dict[str, Any]:
    """One seeded message as a task's metadata keeps it (JSON): sender, subject, date, body lines and
    an optional text attachment ``(file name, content)``; ``read``/``flagged``: its flags at setup."""
    token = f"{rng.getrandbits(48):012x}"
    sender = _person(rng)
    return {
        "id": f"<{token}@{sender.rsplit('@', 1)[1].rstrip('>')}>",
        "from": sender,
        "to": "Local User <user@example.org>",
        "subject": subject,
        "date": email.utils.format_datetime(START + timedelta(minutes=rng.randint(0, 60 * 24 * 40))),
        "body": [sentence(rng).capitalize() + "." for _ in range(rng.randint(2, 5))],
        "attachment": list(attachment) if attachment else None,
        "read": read,
        "flagged": flagged,
        "token": token,
    }


def subjects(rng: random.Random, count: int) -> list[str]:
    """``count`` different subjects, none a prefix of another (a quick filter finds exactly one)."""
    found: list[str] = []
    while len(found) < count:
        subject = f"{rng.choice(TOPICS)} {rng.choice(WORDS)} for the {rng.choice(NOUNS)}"
        if all(not s.startswith(subject) and not subject.startswith(s) for s in found):
            found.append(subject)
    return found


def message_bytes(mail: dict[str, Any]) -> bytes:
    """The message as sent (RFC 5322, LF line ends as in an mbox), the same bytes for the same metadata."""
    msg = EmailMessage(policy=SMTP.clone(linesep="\n"))
    msg["From"] = mail["from"]
    msg["To"] = mail["to"]
    msg["Subject"] = mail["subject"]
    msg["Date"] = mail["date"]
    msg["Message-ID"] = mail["id"]
    msg.set_content("\n".join(mail["body"]) + "\n")
    if mail.get("attachment"):
        name, text = mail["attachment"]
        subtype = {"csv": "csv", "txt": "plain", "md": "markdown"}.get(name.rsplit(".", 1)[-1], "plain")
        msg.add_attachment(text.encode(), maintype="text", subtype=subtype, filename=name)
        msg.set_boundary(f"------------cua{mail['token']}")
    data = msg.as_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def status(mail: dict[str, Any]) -> int:
    return (READ if mail.get("read") else 0) | (FLAGGED if mail.get("flagged") else 0)


def mbox_bytes(mails: Iterable[dict[str, Any]]) -> bytes:
    """A folder's mbox as Thunderbird writes one: each message after a ``From -`` line and its status
    headers, a blank line between messages."""
    out = b""
    for mail in mails:
        when = email.utils.parsedate_to_datetime(mail["date"]).strftime("%a %b %d %H:%M:%S %Y")
        out += (
            f"From - {when}\nX-Mozilla-Status: {status(mail):04x}\nX-Mozilla-Status2: 00000000\n"
            f"X-Mozilla-Keys: {KEYS_PADDING}\n"
        ).encode()
        out += message_bytes(mail) + b"\n"
    return out


# --- the mail store read back -------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    """One message of an mbox: its bytes without Thunderbird's own headers, and those headers' flags."""

    raw: bytes
    flags: int
    message_id: str | None
    keys: str = ""  # the tags in X-Mozilla-Keys (Thunderbird writes them there in place), space-separated

    @property
    def expunged(self) -> bool:
        return bool(self.flags & EXPUNGED)


def _split_mozilla(raw: bytes) -> tuple[bytes, int, str]:
    """The message without its ``X-Mozilla-*`` header lines, the flags of ``X-Mozilla-Status`` (-1 when
    there is none or it is not hex) and the tags of ``X-Mozilla-Keys``."""
    head, sep, body = raw.partition(b"\n\n")
    kept, flags, keys = [], -1, ""
    for line in head.split(b"\n"):
        name, _, value = line.partition(b":")
        if name.decode("latin-1") in MOZILLA_HEADERS:
            if name == b"X-Mozilla-Status":
                try:
                    flags = int(value.strip() or b"x", 16)
                except ValueError:
                    flags = -1
            elif name == b"X-Mozilla-Keys":
                keys = " ".join(value.decode("utf-8", "replace").split())
            continue
        kept.append(line)
    return b"\n".join(kept) + sep + body, flags, keys


def parse_folder(data: bytes) -> list[Stored] | str:
    """The messages of an mbox file's bytes, in order; or why they are not an mbox (a string)."""
    if data and not data.startswith(b"From "):
        return "not an mbox (it does not start with a From line)"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mbox")
        with open(path, "wb") as f:
            f.write(data)
        box = mailbox.mbox(path, create=False)
        try:
            found = []
            for key_ in box.iterkeys():
                raw, flags, keys = _split_mozilla(_without_separator(box.get_bytes(key_)))
                found.append(Stored(raw, flags, _message_id(raw), keys))
            return found
        finally:
            box.close()


def _without_separator(raw: bytes) -> bytes:
    """A message without the blank line Thunderbird writes after each message it appends to an mbox (a
    copy or a move), which it ends with CR LF: ``mailbox`` leaves that line in the message (it takes only
    a bare LF line for a separator). Nothing else is taken off, so a blank line added is still there."""
    return raw[:-2] if raw.endswith(b"\n\r\n") else raw


def _message_id(raw: bytes) -> str | None:
    head = raw.partition(b"\n\n")[0].decode("utf-8", "replace")
    for line in head.split("\n"):
        name, _, value = line.partition(":")
        if name.lower() == "message-id":
            return value.strip()
    return None


async def read_folder(task: Task, session: Session, folder: str, after: Snapshot) -> list[Stored] | None:
    """The messages of a Local Folders folder as stored now; None (explained) when its mbox is not a
    plain file with one link or not an mbox."""
    path = folder_file(folder)
    state = after.get(path)
    if state is None or state.kind != "file" or state.links != 1:
        task.explain(f"folder {folder}: {path} is not a plain file with one link")
        return None
    try:
        data = await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        task.explain(f"folder {folder}: {path} cannot be read")
        return None
    found = parse_folder(data)
    if isinstance(found, str):
        task.explain(f"folder {folder}: {found}")
        return None
    return found


def live(messages: list[Stored]) -> list[Stored]:
    """The messages Thunderbird shows: those not marked expunged."""
    return [m for m in messages if not m.expunged]


# --- what Thunderbird writes by itself -----------------------------------------------------------------

# Profile files (relative to PROFILE) that Thunderbird rewrites on its own while it runs, at start or at
# quit, whatever the user does. Each with its reason; nothing else of the profile is left out.
INCIDENTAL: dict[str, str] = {
    "prefs.js": "the preferences, saved again whenever one changes (the last folder shown, column widths)",
    "xulstore.json": "window and pane sizes and states, saved as the window is laid out",
    "session.json": "the open tabs and folder, saved for the next start",
    "folderTree.json": "the folder pane's expanded and collapsed folders",
    "folderCache.json": "a cache of each folder's counts and sizes, rewritten as folders change",
    "compatibility.ini": "the build that last ran, written at start",
    "times.json": "the profile's creation and first-use times",
    "addonStartup.json.lz4": "the built-in add-ons' startup cache",
    "extensions.json": "the built-in add-ons' state",
    "extension-preferences.json": "the built-in add-ons' permissions",
    "extension-settings.json": "the built-in add-ons' settings",
    "sessionCheckpoints.json": "how far the last start and quit went",
    "AlternateServices.bin": "the network cache of alternative services",
    "SiteSecurityServiceState.bin": "the network engine's HSTS state",
    "pkcs11.txt": "the certificate store's module list, written at start",
    "cert9.db": "the certificate store, created at start",
    "key4.db": "the key store, created at start",
    "lock": "the profile's lock, held while Thunderbird runs",
    ".parentlock": "the profile's lock, held while Thunderbird runs",
    "mailstore.json": "the mail store's own bookkeeping",
    "virtualFolders.dat": "saved searches (unified folders), rewritten at start",
    "panacea.dat": "the folder cache of older builds",
    "handlers.json": "which program opens which file type, written when an attachment is first opened or saved",
    "addons.json": "the add-on repository's cache",
    "bounce-tracking-protection.sqlite": "the engine's bounce-tracking state, written as it runs",
    "global-messages-db.sqlite": "the global search index (its indexer is off; the database is opened anyway)",
    "cookies.sqlite": "the engine's cookies",
    "permissions.sqlite": "the engine's site permissions",
    "storage.sqlite": "the engine's storage quota bookkeeping",
    "blist.sqlite": "chat's buddy list, opened at start",
    "openpgp.sqlite": "OpenPGP's key acceptance database, opened at start",
    "encrypted-openpgp-passphrase.txt": "OpenPGP's generated passphrase, written at start",
    "search.json.mozlz4": "the search engines' cache",
    "calendar-data/deleted.sqlite": "the calendar's record of deleted items, made by the calendar on its own",
    "calendar-data/cache.sqlite": "the calendar's cache of remote calendars (there are none)",
    "search.json.mozlsz": "the search engines' cache",
}
INCIDENTAL_SUFFIXES = {
    ".msf": "a folder's summary index (Mork): rebuilt from its mbox, rewritten as a folder is opened and its "
    "view changes",
}
JOURNALS = ("-wal", "-shm", "-journal")
"""An incidental SQLite database's write-ahead log, shared memory and rollback journal are incidental too."""
INCIDENTAL_FOLDERS = {
    "storage": "the engine's per-site storage (the built-in add-ons' databases)",
    "datareporting": "telemetry's state (uploads are off)",
    "crashes": "crash-reporter bookkeeping",
    "minidumps": "crash-reporter dumps",
    "security_state": "certificate revocation data",
    "saved-telemetry-pings": "telemetry pings kept (never sent)",
    "settings": "remote settings' local copy",
    "gmp": "media plugins' state",
}
OUTSIDE = {
    ".thunderbird/Crash Reports": "the crash reporter's own folder beside the profiles (reports are off)",
    ".thunderbird/Pending Pings": "telemetry pings waiting beside the profiles (uploads are off)",
}


def incidental(path: str) -> bool:
    """``path`` (relative to home) is one that Thunderbird writes by itself (see ``INCIDENTAL``)."""
    if any(path == p or path.startswith(p + "/") for p in OUTSIDE):
        return True
    name = path.rsplit("/", 1)[-1]
    if path.startswith(LOCAL + "/"):
        return any(name.endswith(suffix) and not name.startswith(".") for suffix in INCIDENTAL_SUFFIXES)
    if not path.startswith(PROFILE + "/"):
        return False
    rel = path[len(PROFILE) + 1 :]
    if rel in INCIDENTAL or rel.split("/", 1)[0] in INCIDENTAL_FOLDERS:
        return True
    base = next((rel[: -len(j)] for j in JOURNALS if rel.endswith(j)), None)
    if base is not None and base in INCIDENTAL:
        return True
    return any(name.endswith(suffix) and not name.startswith(".") for suffix in INCIDENTAL_SUFFIXES)


def profile_changes(before: Snapshot, after: Snapshot, expect: Iterable[str] = ()) -> list[str]:
    """What changed under home since setup besides ``expect``, where Thunderbird's own files
    (``incidental``) may come, go and change (content and time), but not become another kind of path,
    get another mode or a second link. Thunderbird also saves some of them again unchanged (a new time
    alone), so a touched file is no change there; the files the work may change (the mail store, the
    files asked for) are all outside them and visible, which is where the adversary's touch lands first."""
    found = changes(before, after, expect=[*expect, *(p for p in {*before, *after} if incidental(p))])
    for path in sorted({*before, *after}):
        if not incidental(path) or any(path == e or path.startswith(e.rstrip("/") + "/") for e in expect):
            continue
        old, new = before.get(path), after.get(path)
        if old is None or new is None:
            one = old or new
            if one is not None and one.kind not in {"file", "dir"}:
                found.append(f"{path} is a {one.kind}")
            continue
        if old.kind != new.kind:
            found.append(f"{path} is now a {new.kind}, was a {old.kind}")
        elif new.kind == "file" and (new.mode != old.mode or new.links != 1):
            found.append(f"{path} mode {old.mode:o} -> {new.mode:o}, {new.links} links")
    return found


async def unchanged_but(task: Task, session: Session, expect: list[str]) -> bool:
    """No file under home changed since setup but ``expect`` and Thunderbird's own (``profile_changes``)."""
    before, after = await files_since_setup(task, session)
    found = profile_changes(before, after, expect)
    if found:
        task.explain(f"besides what the task asks, {'; '.join(found[:5])}{' ...' if len(found) > 5 else ''}")
    return not found


# --- setup -------------------------------------------------------------------------------------------------


async def open_thunderbird(
    task: Task,
    session: Session,
    folders: dict[str, list[dict[str, Any]]],
    *,
    files: dict[str, bytes] | None = None,
    remember: bool = True,
) -> None:
    """Setup: the profile, ``folders`` (name -> messages; ``Inbox`` first) in Local Folders, ``files``
    elsewhere under home, Thunderbird started on the Inbox with its message list in the accessibility
    tree, and (``remember``) every file under home remembered once Thunderbird has stopped writing its
    first-start files."""
    home = await env_var(session, "HOME")
    await session.write_file(".thunderbird/profiles.ini", PROFILES_INI)
    await session.write_file(
        f"{PROFILE}/user.js", user_js({**PREFS, "mail.server.server1.directory": f"{home}/{LOCAL}"})
    )
    for name, mails in folders.items():
        await session.write_bytes(folder_file(name), mbox_bytes(mails))
    for path, data in (files or {}).items():
        await session.write_bytes(path, data)
    await session.write_file(FILTERS, FILTERS_TEXT)  # what Thunderbird writes a minute after its first start
    await start(
        session,
        APP,
        "--profile",
        f"{home}/{PROFILE}",
        "--no-remote",
        env={"GNOME_ACCESSIBILITY": "1", "MOZ_CRASHREPORTER_DISABLE": "1"},
        title=lambda t: t.endswith(TITLE),
        timeout=90,
    )
    await show_folder(session, "Inbox")
    inbox = folders.get("Inbox") or []
    if inbox:
        await wait_for(lambda: find_row(session, inbox[0]["subject"]), "the Inbox's messages", 60)
    await settled(session)
    if remember:
        await remember_files(task, session)


async def settled(session: Session, quiet: float = 3.0, timeout: float = 90.0) -> None:
    """Wait until the profile's files stay the same for ``quiet`` seconds (Thunderbird writes its
    first-start files for a while after its window shows)."""
    last: Snapshot | None = None

    async def still() -> bool:
        nonlocal last
        now = await snapshot_files(session, PROFILE)
        same = now == last
        last = now
        return same

    async def quiet_for() -> bool:
        if not await still():
            return False
        await act(session, Wait(quiet))
        return await still()

    await wait_for(quiet_for, "Thunderbird's profile to settle", timeout)


# --- the oracle's hands ------------------------------------------------------------------------------------

Node = dict[str, Any]


async def find_node(
    session: Session, role: str | tuple[str, ...], name: str | Callable[[str], bool] | None = None,
    state: str | None = None,
) -> Node | None:  # fmt: skip
    """The first showing widget of ``role`` (named ``name``, in ``state``), front window first."""
    roles = (role,) if isinstance(role, str) else role
    for node in walk(await session.accessibility_tree()):
        if node.get("role") not in roles or not node.get("bounds"):
            continue
        label = str(node.get("name") or "")
        if name is not None and not (label == name if isinstance(name, str) else name(label)):
            continue
        if state is None or state in (node.get("states") or []):
            return node
    return None


async def click_node(
    session: Session, role: str | tuple[str, ...], name: str | Callable[[str], bool], state: str | None = None,
    *, button: str = "left", clicks: int = 1,
) -> Node:  # fmt: skip
    """Wait for the widget and click its middle; the widget as it was found."""
    node = await wait_for(lambda: find_node(session, role, name, state), f"the {role} {name!r}")
    await act(session, Click(center(node), button=button, clicks=clicks))  # type: ignore[arg-type]
    return node


ROW_ROLES = ("list item", "table row")
"""The message list's rows (its card view: a list item named "SENDER, DATE, SUBJECT, Starred, Unread")."""


def folder_named(folder: str) -> Callable[[str], bool]:
    """The folder pane's item of ``folder`` (a top one's name, or PARENT/NAME): "Inbox", "Inbox, 4 unread
    messages", "Work/Taxes"."""
    name = folder.rsplit("/", 1)[-1]

    def accepts(label: str) -> bool:
        shown = label.split(", ", 1)[0]
        return shown in (folder, name) or shown.endswith(("/" + folder, "/" + name))

    return accepts


def row_point(node: Node) -> Point:
    """Where to click a folder pane item: its own row (an expanded item's bounds cover its children too)."""
    for child in node.get("children") or []:
        if child.get("bounds") and child.get("role") == "section":
            return center(child)
    left, top, right, _bottom = node["bounds"]
    return Point((left + right) / 2, top + 17)


async def find_folder(session: Session, folder: str) -> Node | None:
    return await find_node(session, "tree item", folder_named(folder))


async def show_folder(session: Session, folder: str) -> None:
    """Setup's move: Local Folders expanded in the folder pane and ``folder`` shown (its item selected)."""
    for _attempt in range(5):
        local = await wait_for(lambda: find_node(session, "tree item", "Local Folders"), "Local Folders", 60)
        if "expanded" not in (local.get("states") or []):
            await act(session, Click(row_point(local)), Wait(0.5), key("Right"))
        try:
            item = await wait_for(lambda: find_folder(session, folder), f"the folder {folder}", timeout=5)
            await act(session, Click(row_point(item)))
            await wait_for(lambda: _selected_folder(session, folder), f"{folder} to be shown", timeout=5)
            return
        except TaskError:
            continue
    raise TaskError(f"the folder {folder} would not show")


async def _selected_folder(session: Session, folder: str) -> Node | None:
    return await find_node(session, "tree item", folder_named(folder), "selected")


async def find_row(session: Session, subject: str) -> Node | None:
    """The message list's row of the message with ``subject``."""
    return await find_node(session, ROW_ROLES, lambda label: subject in label)


async def select_message(session: Session, subject: str) -> Node:
    """Oracle move: the message's row clicked in the message list, and the wait until it is selected."""
    for _attempt in range(3):
        row = await wait_for(lambda: find_row(session, subject), f"the message {subject!r}")
        await act(session, Click(center(row)))
        with contextlib.suppress(TaskError):
            return await wait_for(
                lambda: find_node(session, ROW_ROLES, lambda label: subject in label, "selected"),
                "the message to be selected",
                timeout=5,
            )
    raise TaskError(f"the message {subject!r} would not be selected")


async def row_shows(session: Session, subject: str, mark: str, shown: bool = True) -> None:
    """Wait until the message's row says ``mark`` ("Starred", "Unread") or, with ``shown`` False, does not."""

    async def check() -> bool:
        row = await find_row(session, subject)
        return row is not None and (mark in str(row.get("name")).split(", ")) == shown

    await wait_for(check, f"the row of {subject!r} to {'show' if shown else 'lose'} {mark}")


async def main_window(session: Session) -> dict[str, Any]:
    return await window(session, lambda t: t.endswith(TITLE))


async def press_in_main(session: Session, combo: str) -> None:
    await main_window(session)
    await act(session, key(combo))


# --- the evaluators' checks --------------------------------------------------------------------------------

MAIL_STORE_IS_THE_WORK = {
    "forged-write": "the mbox files are Thunderbird's mail store, not a report of it: Thunderbird re-reads a "
    "folder whose mbox changed behind its back (its index records the file's size and time), so an mbox "
    "holding the asked end state is that end state in Thunderbird too (the other mutations still apply)"
}
"""``WAIVED`` for a task scored from the mail store the work itself changes."""

NO_TEXT_OF_ITS_OWN = {
    "trailing-blank-lines": "the work writes no text file (an empty mbox, or a row of the calendar's database); "
    "the text files it finds changed are Thunderbird's own state (prefs.js, window layout), rewritten by "
    "Thunderbird itself, where blank lines mean nothing (see incidental)"
}
"""``WAIVED`` for a task whose work makes no text file of its own."""

SHOWN_FLAGS = READ | FLAGGED | 0x0002 | 0x1000  # read, starred, replied, forwarded: what the tasks set or keep


def folder_problems(
    stored: list[Stored], mails: list[dict[str, Any]], flags: list[dict[str, bool]] | None = None,
    *, gone: Iterable[dict[str, Any]] = (),
) -> list[str]:  # fmt: skip
    """How a folder's stored messages differ from ``mails`` in order (their bytes, and the read and
    starred ``flags`` each should have: the seeds' own when None). Messages marked expunged are
    allowed only for ``gone`` (moved or deleted from here, not yet compacted away) and must still be
    those messages' bytes."""
    problems = []
    allowed = {mail["id"]: message_bytes(mail) for mail in gone}
    for message in stored:
        if message.expunged and allowed.get(message.message_id or "") != message.raw:
            problems.append(f"a message marked deleted that was not asked to go: {message.message_id}")
    shown = live(stored)
    if len(shown) != len(mails):
        problems.append(f"{len(shown)} messages, not {len(mails)}")
    wanted = flags or [{"read": bool(m.get("read")), "flagged": bool(m.get("flagged"))} for m in mails]
    for message, mail, want in zip(shown, mails, wanted, strict=False):
        if message.raw != message_bytes(mail):
            problems.append(f"the message {mail['subject']!r} is not as it was (or is another)")
            continue
        expect = (READ if want["read"] else 0) | (FLAGGED if want["flagged"] else 0)
        if message.flags < 0 or message.flags & SHOWN_FLAGS != expect:
            problems.append(f"{mail['subject']!r} has flags {message.flags:#06x}, not {expect:#06x}")
        if message.keys:
            problems.append(f"{mail['subject']!r} has tags {message.keys!r} (the seeds have none)")
    return problems


async def folder_is(
    task: Task, session: Session, after: Snapshot, folder: str, mails: list[dict[str, Any]],
    flags: list[dict[str, bool]] | None = None, *, gone: Iterable[dict[str, Any]] = (),
) -> bool:  # fmt: skip
    """The folder holds ``mails`` (``folder_problems``), each problem explained."""
    stored = await read_folder(task, session, folder, after)
    if stored is None:
        return False
    problems = folder_problems(stored, mails, flags, gone=gone)
    for problem in problems:
        task.explain(f"folder {folder}: {problem}")
    return not problems


async def inbox_is(
    task: Task, session: Session, mails: list[dict[str, Any]], flags: list[dict[str, bool]] | None = None
) -> bool:
    """The Inbox holds ``mails`` with ``flags``, and nothing else under home changed but Thunderbird's own
    files and the Inbox."""
    before, after = await files_since_setup(task, session)
    ok = await folder_is(task, session, after, "Inbox", mails, flags)
    found = profile_changes(before, after, [folder_file("Inbox")])
    if found:
        task.explain(f"besides what the task asks, {'; '.join(found[:5])}{' ...' if len(found) > 5 else ''}")
    return ok and not found


# --- seeds of the tasks ---------------------------------------------------------------------------------

FOLDER_NAMES = ("Projects", "Receipts", "Travel", "Family", "Clients", "Newsletters", "Invoices", "Reading",
                "Work", "Friends", "Club", "Orders")  # fmt: skip
"""Folders of setup's own: none is a special folder's name (Trash, Drafts, Sent, Archives ...)."""

NOTE_NAMES = ("notes", "minutes", "agenda", "summary", "todo", "readme")
SHEET_NAMES = ("expenses", "budget", "invoice", "orders", "stock", "prices")


def attachment_text(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` text attachments with different names: CSV tables of items and amounts, or notes."""
    from cua_bench_tasks_desktop._sheets import ITEMS

    found: list[tuple[str, str]] = []
    while len(found) < count:
        if rng.random() < 0.6:
            name = f"{rng.choice(SHEET_NAMES)}_{rng.randint(1, 12):02d}.csv"
            rows = [f"{item},{rng.randint(2, 400) / 4:.2f}" for item in rng.sample(ITEMS, rng.randint(3, 6))]
            text = "item,amount\n" + "\n".join(rows) + "\n"
        else:
            name = f"{rng.choice(NOTE_NAMES)}-{rng.choice(NOUNS)}.txt"
            text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 5))) + "\n"
        if all(name != other for other, _ in found):
            found.append((name, text))
    return found


# --- the oracle's moves ------------------------------------------------------------------------------------

MENU_ROLES = ("menu item", "menu", "check menu item", "radio menu item")


async def context_menu(session: Session, node: Node, first: str) -> None:
    """Right-click ``node`` until its context menu shows the item ``first``."""
    for _attempt in range(3):
        await act(session, Click(center(node), button="right"))
        try:
            await wait_for(lambda: find_node(session, MENU_ROLES, first), f"the menu item {first!r}", timeout=5)
            return
        except TaskError:
            await act(session, key("escape"))
    raise TaskError(f"the context menu with {first!r} did not open")


async def from_menu(session: Session, node: Node, *items: str) -> None:
    """``node``'s context menu opened and ``items`` clicked in turn (submenus open on a click)."""
    await context_menu(session, node, items[0])
    for item in items:
        await click_node(session, MENU_ROLES, item)


async def _bytes(session: Session, path: str) -> bytes | None:
    try:
        return await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        return None


async def file_to(session: Session, subject: str, folder: str, *, copy: bool = False) -> None:
    """Oracle move: the message's context menu, Move To (or Copy To) > Local Folders > ``folder``, and the
    wait until the folder's mbox has grown by it."""
    before = await _bytes(session, folder_file(folder)) or b""
    row = await select_message(session, subject)
    await from_menu(session, row, "Copy To" if copy else "Move To", "Local Folders", folder)

    async def filed() -> bool:
        now = await _bytes(session, folder_file(folder)) or b""
        return len(now) > len(before) and subject.encode() in now[len(before) :]

    await wait_for(filed, f"the message to land in {folder}")


async def save_attachment(session: Session, mail: dict[str, Any], path: str) -> None:
    """Oracle move: the message selected, its attachment's context menu, Save As…, and ``~/path`` typed in
    the file dialog; waits until the file holds the attachment."""
    name, text = str(mail["attachment"][0]), str(mail["attachment"][1])
    await select_message(session, mail["subject"])
    item = await wait_for(lambda: find_node(session, "push button", name), f"the attachment {name}")
    await context_menu(session, item, "Save As…")
    await click_node(session, MENU_ROLES, "Save As…")
    dialog = await window(session, lambda t: t.startswith("Save Attachment"))
    await submit_dialog(session, dialog["title"], f"~/{path}")

    async def saved() -> bool:
        return await _bytes(session, path) == text.encode()

    await wait_for(saved, f"{path} to be saved")


async def new_folder(session: Session, parent: str | None, name: str) -> None:
    """Oracle move: the parent's context menu in the folder pane (Local Folders for the top), New
    Subfolder… (New Folder… on Local Folders), the name typed and Enter; waits until the folder pane
    shows the new folder."""
    where = parent or "Local Folders"
    item = "New Subfolder…" if parent else "New Folder…"  # the account's own menu names it so
    for _attempt in range(3):
        node = await wait_for(lambda: find_folder(session, where), f"the folder {where}")
        await act(session, Click(row_point(node), button="right"))
        try:
            await wait_for(lambda: find_node(session, MENU_ROLES, item), "the folder's menu", timeout=5)
            break
        except TaskError:
            await act(session, key("Escape"))
    await click_node(session, MENU_ROLES, item)
    await window(session, "New Folder")
    field = await wait_for(lambda: find_node(session, "entry", "Name:", "focused"), "the folder name field")
    await act(session, Click(center(field)), key("ctrl+a"), TypeText(name), Wait(0.3), key("Return"))
    await no_window(session, "New Folder")
    await wait_for(lambda: find_folder(session, f"{parent}/{name}" if parent else name), f"the folder {name}")


# --- the calendar ------------------------------------------------------------------------------------------

CALENDAR_DB = f"{PROFILE}/calendar-data/local.sqlite"
"""The local calendars' database (the "storage" provider): one row of ``cal_events`` per event."""
CALENDAR_ID = "cuahome"


@dataclass(frozen=True)
class Event:
    """An event as the calendar stores it: its title, and start and end in microseconds since 1970 (UTC)
    with their time zones ("UTC", or "floating" for an all-day event)."""

    title: str
    start: int
    start_tz: str
    end: int
    end_tz: str
    calendar: str


def read_events(data: bytes, wal: bytes = b"") -> tuple[list[Event], int] | str:
    """The events of a calendar database's bytes (and its write-ahead log's: the calendar keeps the
    database in WAL mode, so new events sit in ``local.sqlite-wal`` until a checkpoint), and how many
    to-dos, recurrence rules, attendees and alarms it holds besides; or why it is not one (a string)."""
    import sqlite3

    if not data.startswith(b"SQLite format 3\0"):
        return "not an SQLite database"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "local.sqlite")
        with open(path, "wb") as f:
            f.write(data)
        if wal:
            with open(path + "-wal", "wb") as f:
                f.write(wal)
        try:
            db = sqlite3.connect(path)
            try:
                rows = db.execute(
                    "SELECT title, event_start, event_start_tz, event_end, event_end_tz, cal_id FROM cal_events"
                ).fetchall()
                others = sum(
                    db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    for table in ("cal_todos", "cal_recurrence", "cal_attendees", "cal_alarms")
                )
            finally:
                db.close()
        except sqlite3.Error as exc:
            return f"not a calendar database ({exc})"
    return [Event(str(r[0]), int(r[1] or 0), str(r[2]), int(r[3] or 0), str(r[4]), str(r[5])) for r in rows], others


async def new_event(session: Session, title: str, start: datetime, end: datetime) -> None:
    """Oracle move: New Event (ctrl+i), the title typed, the start and end dates and times typed into the
    dialog's fields (each clicked, and typed into once it has the focus), and Save and Close (ctrl+l);
    waits for the dialog to close."""
    await main_window(session)
    for _attempt in range(3):
        await act(session, key("ctrl+i"))
        try:
            dialog = await window(session, lambda t: t.startswith("New Event"), timeout=10)
            break
        except TaskError:
            continue
    else:
        raise TaskError("New Event did not open")
    await wait_for(lambda: find_node(session, "entry", "Title:", "focused"), "the title field to take the focus")
    await act(session, key("ctrl+a"), TypeText(title))
    texts = [f"{start.month}/{start.day}/{start:%y}", f"{start:%H:%M}", f"{end.month}/{end.day}/{end:%y}",
             f"{end:%H:%M}"]  # fmt: skip
    for index, text in enumerate(texts):
        await _fill_date_field(session, index, text)
    await act(session, Wait(0.3), key("ctrl+l"))
    await no_window(session, dialog["title"])


async def _date_fields(session: Session) -> list[Node]:
    """The event dialog's start date, start time, end date and end time fields (unnamed entries, in
    reading order)."""
    tree = await session.accessibility_tree()
    found = [
        n
        for n in walk(tree[:1])
        if n.get("role") == "entry" and not n.get("name") and n.get("bounds") and "editable" in n.get("states", [])
    ]
    return sorted(found, key=lambda n: (n["bounds"][1], n["bounds"][0]))


async def _fill_date_field(session: Session, index: int, text: str) -> None:
    """Click the field (after a pause over it: a click at once can leave the focus where it was), wait for
    it to take the focus, and type ``text`` over its content; Tab commits it."""
    for _attempt in range(3):
        fields = await wait_for(lambda: _some(_date_fields(session), 4), "the event's date and time fields")
        point = center(fields[index])
        await act(session, MouseMove(point), Wait(0.3), Click(point))

        async def focused() -> bool:
            now = await _date_fields(session)
            return len(now) >= 4 and "focused" in (now[index].get("states") or [])

        try:
            await wait_for(focused, "the field to take the focus", timeout=5)
        except TaskError:
            continue
        await act(session, key("ctrl+a"), TypeText(text), key("Tab"))
        return
    raise TaskError(f"the event's date field {index} would not take the focus")


async def _some(found: Awaitable[list[Node]], count: int) -> list[Node] | None:
    nodes = await found
    return nodes if len(nodes) >= count else None
