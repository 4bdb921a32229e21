"""Per-rank logs: append-only, idempotent appends at the file's end, reads from any offset."""

from __future__ import annotations

from pathlib import Path

import pytest

from cua_pool.logs import LogStore
from cua_pool.store import Store


def test_append_only_at_the_end_so_a_resend_is_harmless(tmp_path: Path) -> None:
    logs = LogStore(tmp_path)
    assert logs.append("j", 0, 0, b"one\n") == 4
    assert logs.append("j", 0, 0, b"one\n") == 4  # the same chunk again: refused, end reported
    assert logs.append("j", 0, 9, b"gap\n") == 4  # past the end: refused
    assert logs.append("j", 0, 4, b"two\n") == 8
    assert logs.read("j", 0, 0) == (b"one\ntwo\n", 8)
    assert logs.read("j", 0, 4) == (b"two\n", 8)
    assert logs.read("j", 0, 8) == (b"", 8)
    assert logs.read("j", 1, 0) == (b"", 0)  # a rank that wrote nothing yet
    with pytest.raises(ValueError, match="offset must be >= 0"):
        logs.read("j", 0, -1)


def test_a_new_attempt_continues_the_rank_file_after_a_banner(tmp_path: Path) -> None:
    logs = LogStore(tmp_path)
    logs.append("j", 0, 0, b"first try\n")
    base = logs.begin("j", 0, "--- attempt 2 ---")
    assert base == len(b"first try\n--- attempt 2 ---\n")
    logs.append("j", 0, base + 0, b"second try\n")
    assert logs.read("j", 0, 0)[0] == b"first try\n--- attempt 2 ---\nsecond try\n"
    assert logs.ranks("j") == [0]


def test_the_store_keeps_committed_rows_across_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path / "pool.db")
    assert store.one("PRAGMA journal_mode")["journal_mode"] == "wal"  # type: ignore[index]
    store.insert(
        "hosts",
        {
            "id": "h",
            "name": "h",
            "address": "127.0.0.1",
            "max_spaces": 1,
            "state": "up",
            "joined": 1.0,
            "last_seen": 1.0,
            "gpus": [0, 1],
        },
    )

    def lose_then_fail() -> None:
        with store.transaction():
            store.update("hosts", {"id": "h"}, state="lost")
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        lose_then_fail()
    store.close()
    again = Store(tmp_path / "pool.db")
    host = again.host("h")
    assert host is not None and host["state"] == "up" and host["gpus"] == [0, 1]
    again.close()
