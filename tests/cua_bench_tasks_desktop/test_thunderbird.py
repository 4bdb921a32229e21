"""``_thunderbird``'s pure parts: seeded messages and mbox files as Thunderbird stores them, read back
whole with ``mailbox`` (flags, moved and deleted copies, near misses), and the rule for the profile
files Thunderbird rewrites by itself."""

from __future__ import annotations

import email
import random
from email import policy

from cua_bench.filestate import FileState
from cua_bench_tasks_desktop._thunderbird import (
    EXPUNGED,
    FLAGGED,
    LOCAL,
    PROFILE,
    READ,
    attachment_text,
    folder_file,
    folder_problems,
    incidental,
    make_mail,
    mbox_bytes,
    message_bytes,
    parse_folder,
    profile_changes,
    subjects,
    user_js,
)


def _mails(count: int = 3, seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    names = subjects(rng, count)
    files = attachment_text(rng, 1)
    return [
        make_mail(rng, s, attachment=files[0] if i == 1 else None, flagged=i == 2, read=i == 0)
        for i, s in enumerate(names)
    ]


def _set_flags(data: bytes, index: int, flags: int) -> bytes:
    """The mbox with message ``index``'s X-Mozilla-Status rewritten in place, as Thunderbird does."""
    parts = data.split(b"X-Mozilla-Status: ")
    head = parts[index + 1]
    parts[index + 1] = f"{flags:04x}".encode() + head[4:]
    return b"X-Mozilla-Status: ".join(parts)


def test_a_message_is_the_same_bytes_every_time_and_carries_its_attachment() -> None:
    mails = _mails()
    assert message_bytes(mails[1]) == message_bytes(_mails()[1])
    parsed = email.message_from_bytes(message_bytes(mails[1]), policy=policy.default)
    (part,) = list(parsed.iter_attachments())  # type: ignore[attr-defined]
    name, text = mails[1]["attachment"]
    assert part.get_filename() == name and part.get_content().encode() == text.encode()
    assert parsed["Message-ID"] == mails[1]["id"]


def test_an_mbox_reads_back_with_its_messages_and_flags() -> None:
    mails = _mails()
    stored = parse_folder(mbox_bytes(mails))
    assert not isinstance(stored, str)
    assert [m.raw for m in stored] == [message_bytes(m) for m in mails]
    assert [m.flags for m in stored] == [READ, 0, FLAGGED]
    assert [m.message_id for m in stored] == [m["id"] for m in mails]
    assert folder_problems(stored, mails) == []


def test_a_flag_written_in_place_is_seen_and_only_the_asked_one_passes() -> None:
    mails = _mails()
    data = _set_flags(mbox_bytes(mails), 1, FLAGGED)
    stored = parse_folder(data)
    assert not isinstance(stored, str)
    want = [{"read": True, "flagged": False}, {"read": False, "flagged": True}, {"read": False, "flagged": True}]
    assert folder_problems(stored, mails, want) == []
    assert folder_problems(stored, mails) != []  # the seeds' flags: message 1 was not starred
    read_instead = parse_folder(_set_flags(mbox_bytes(mails), 1, READ))
    assert not isinstance(read_instead, str) and folder_problems(read_instead, mails, want) != []


def test_the_blank_line_thunderbird_appends_after_a_moved_message_is_its_separator() -> None:
    mails = _mails()
    stored = parse_folder(mbox_bytes(mails)[:-1] + b"\r\n")  # Thunderbird ends an appended message so
    assert not isinstance(stored, str) and folder_problems(stored, mails) == []
    more = parse_folder(mbox_bytes(mails)[:-1] + b"\r\n\n\n\n")
    assert not isinstance(more, str) and folder_problems(more, mails) != []


def test_a_moved_message_may_stay_only_as_an_expunged_copy() -> None:
    mails = _mails()
    data = _set_flags(mbox_bytes(mails), 1, EXPUNGED)
    stored = parse_folder(data)
    assert not isinstance(stored, str)
    rest = [mails[0], mails[2]]
    assert folder_problems(stored, rest, gone=[mails[1]]) == []
    assert folder_problems(stored, rest) != []  # not asked to go
    compacted = parse_folder(mbox_bytes(rest))
    assert not isinstance(compacted, str) and folder_problems(compacted, rest, gone=[mails[1]]) == []
    assert folder_problems(compacted, mails) != []  # a message missing


def test_near_misses_of_an_mbox_are_problems() -> None:
    mails = _mails()
    data = mbox_bytes(mails)
    blank = parse_folder(data + b"\n\n\n")
    assert not isinstance(blank, str) and folder_problems(blank, mails) != []
    edited = parse_folder(data.replace(b"The ", b"A ", 1))
    assert not isinstance(edited, str) and folder_problems(edited, mails) != []
    tagged = parse_folder(data.replace(b"X-Mozilla-Keys: ", b"X-Mozilla-Keys: $label1", 1))
    assert not isinstance(tagged, str) and tagged[0].keys == "$label1" and folder_problems(tagged, mails) != []
    assert isinstance(parse_folder(b"item,amount\napples,2.50\n"), str)
    assert parse_folder(b"") == []
    assert folder_problems([], []) == []


def test_folders_and_the_profile() -> None:
    assert folder_file("Inbox") == f"{LOCAL}/Inbox"
    assert folder_file("Work/2026") == f"{LOCAL}/Work.sbd/2026"
    js = user_js({"a.b": True, "c": 3, "d": 'x"y'})
    assert js == 'user_pref("a.b", true);\nuser_pref("c", 3);\nuser_pref("d", "x\\"y");\n'


def test_thunderbirds_own_files_may_change_but_not_their_mode_or_links_and_the_rest_may_not() -> None:
    prefs, msf, inbox = f"{PROFILE}/prefs.js", f"{LOCAL}/Inbox.msf", f"{LOCAL}/Inbox"
    assert incidental(prefs) and incidental(msf) and not incidental(inbox)
    assert not incidental(f"{LOCAL}/.Inbox.msf~") and not incidental("prefs.js")
    before = {
        prefs: FileState("file", "a", 10, 0o600, 1, 1, 100),
        msf: FileState("file", "b", 10, 0o644, 2, 1, 100),
        inbox: FileState("file", "c", 10, 0o644, 3, 1, 100),
    }
    rewritten = {**before, prefs: FileState("file", "z", 12, 0o600, 9, 1, 200)}
    assert profile_changes(before, rewritten) == []
    touched = {**before, msf: FileState("file", "b", 10, 0o644, 2, 1, 300)}
    assert profile_changes(before, touched) == []  # Thunderbird saves its own files again unchanged
    touched_mail = {**before, inbox: FileState("file", "c", 10, 0o644, 3, 1, 300)}
    assert profile_changes(before, touched_mail) != []
    linked = {**before, prefs: FileState("file", "z", 12, 0o600, 9, 2, 200)}
    assert profile_changes(before, linked) != []
    chmoded = {**before, msf: FileState("file", "y", 10, 0o777, 2, 1, 300)}
    assert profile_changes(before, chmoded) != []
    stray = {**before, f"{LOCAL}/.Inbox~": FileState("file", "c", 10, 0o644, 4, 1, 300)}
    assert profile_changes(before, stray) != []
    changed = {**before, inbox: FileState("file", "q", 10, 0o644, 3, 1, 300)}
    assert profile_changes(before, changed) != [] and profile_changes(before, changed, [inbox]) == []
