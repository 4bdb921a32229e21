"""A device as the tests see it: a fake ``adb`` that answers from a transcript and logs what it was asked.

No device or emulator exists here, and none of the outputs in fixtures/ was recorded from one: each is
written from the documented format of the command that prints it (fixtures/README.md cites them). The
``adb`` fixture writes ``fake_adb.py`` as an executable (this interpreter's) and points the backend's
``adb`` option at it (``CUA_ANDROID_ADB``); a test loads the transcript its device answers with
(``adb.load``), acts, and asserts the exact adb command lines the log holds. A call that no entry answers
fails the test (at the end of it, if nothing else did), and ``adb.check()`` also fails on entries never used.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SERIAL = "emulator-5554"


class FakeAdb:
    """The fake ``adb`` program and its state folder: the transcript, what was used, what was asked."""

    serial = SERIAL
    fixtures = FIXTURES

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.state = folder
        self.path = folder / "adb"
        source = (Path(__file__).parent / "fake_adb.py").read_text()
        self.path.write_text(f"#!{sys.executable} -S\n{source}")  # -S: stdlib only, and a faster start
        self.path.chmod(0o755)
        self.load()

    # -- transcript entries --------------------------------------------------------------------------

    @staticmethod
    def entry(argv: list[str], stdout: str = "", *, file: str | Path | None = None, stderr: str = "", exit: int = 0,
              repeat: bool = False, sleep: float = 0.0) -> dict[str, Any]:  # fmt: skip
        """An answer to ``adb argv...``: ``stdout`` text or the bytes of ``file`` (a fixture's name, or a path)."""
        answer: dict[str, Any] = {"argv": argv, "stderr": stderr, "exit": exit, "repeat": repeat, "sleep": sleep}
        if file is not None:
            answer["stdout_file"] = str(file if Path(file).is_absolute() else FIXTURES / file)
        else:
            answer["stdout"] = stdout
        return answer

    def shell(self, command: str, stdout: str = "", **kw: Any) -> dict[str, Any]:
        return self.entry(["-s", SERIAL, "shell", command], stdout, **kw)

    def exec_out(self, command: str, stdout: str = "", **kw: Any) -> dict[str, Any]:
        return self.entry(["-s", SERIAL, "exec-out", command], stdout, **kw)

    def devices(self, listing: str = "one", **kw: Any) -> dict[str, Any]:
        return self.entry(["devices", "-l"], file=f"devices_{listing}.txt", **kw)

    def connect(self, size: str = "wm_size.txt") -> list[dict[str, Any]]:
        """What a session's start asks: the devices (one, emulator-5554) and the screen's size."""
        return [self.devices(), self.shell("wm size", file=size)]

    def load(self, *entries: dict[str, Any] | list[dict[str, Any]]) -> None:
        """Start over with a device that answers ``entries`` (lists are flattened, in order)."""
        flat = [e for item in entries for e in (item if isinstance(item, list) else [item])]
        (self.state / "transcript.json").write_text(json.dumps(flat))
        for name in ("used.json", "calls.log", "failures.log"):
            (self.state / name).unlink(missing_ok=True)

    # -- what the device was asked -------------------------------------------------------------------

    def _log(self) -> list[dict[str, Any]]:
        log = self.state / "calls.log"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def calls(self) -> list[list[str]]:
        """Every adb command line, in order, without the program's name."""
        return [call["argv"] for call in self._log()]

    def stdins(self) -> list[bytes]:
        return [base64.b64decode(call["stdin"]) for call in self._log()]

    def failures(self) -> str:
        failures = self.state / "failures.log"
        return failures.read_text() if failures.exists() else ""

    def check(self) -> None:
        """Fails unless every call was in the transcript and every entry meant once was used."""
        assert not self.failures(), self.failures()
        entries = json.loads((self.state / "transcript.json").read_text())
        used_path = self.state / "used.json"
        used = set(json.loads(used_path.read_text())) if used_path.exists() else set()
        unused = [e["argv"] for i, e in enumerate(entries) if not e["repeat"] and i not in used]
        assert not unused, f"transcript entries never asked for: {unused}; calls: {self.calls()}"


@pytest.fixture
def adb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAdb]:
    """The fake adb, named by the backend's ``adb`` option (its variable), and no serial chosen."""
    fake = FakeAdb(tmp_path / "adb-state")
    monkeypatch.setenv("FAKE_ADB_STATE", str(fake.state))
    monkeypatch.setenv("CUA_ANDROID_ADB", str(fake.path))
    monkeypatch.delenv("CUA_ANDROID_SERIAL", raising=False)
    yield fake
    assert not fake.failures(), f"adb was asked what no transcript entry answers:\n{fake.failures()}"
