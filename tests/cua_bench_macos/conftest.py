"""A Mac's tools as the tests see them, replayed from the transcripts in fixtures/ and strict about order.

``LumeReplay`` is a real HTTP server on 127.0.0.1 that answers each request with the transcript's next
entry, and records a failure (answering 599) for any request that is not that entry: another method,
path or JSON body, or one past the end. The ``tart`` fixture writes a ``tart`` executable (Python) first
on PATH that does the same for its argv; ``ssh`` is a fake too, which logs what it is asked (and the
password askpass hands it) and answers the guest probe. A payload sits in the backend's folder
(building a real one downloads wheels).

A transcript entry may hold ``{vm}``: the name of the machine under test, bound to the first
``cua-env-...`` name the backend sends there and required to be the same afterwards. An entry with
``repeat`` may answer several requests in a row; an entry with ``background`` (tart's long-running
``tart run``) may arrive after the entries that follow it, as a process started in the background
does; an ``optional`` one may not arrive at all (what a race decides).
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import json
import shutil
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

import cua_bench_macos.lume
from cua_bench_macos import MacosBackend

FIXTURES = Path(__file__).parent / "fixtures"
VM = "{vm}"
PAYLOAD = b"a payload archive"
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


def bind(template: Any, actual: Any, bound: dict[str, str]) -> bool:
    """Whether ``actual`` is ``template`` with ``{vm}`` standing for the machine's name (bound on first sight)."""
    mark = "{vm}"  # here too: the fake tart runs this function's source on its own
    if isinstance(template, str) and mark in template:
        if not isinstance(actual, str):
            return False
        if "vm" not in bound:
            prefix, _, suffix = template.partition(mark)
            name = actual[len(prefix) : len(actual) - len(suffix) if suffix else None]
            if not (actual.startswith(prefix) and actual.endswith(suffix) and name.startswith("cua-env-")):
                return False
            bound["vm"] = name
        return template.replace(mark, bound["vm"]) == actual
    if isinstance(template, dict):
        return (isinstance(actual, dict) and template.keys() == actual.keys()
                and all(bind(template[k], actual[k], bound) for k in template))  # fmt: skip
    if isinstance(template, list):
        return (isinstance(actual, list) and len(template) == len(actual)
                and all(bind(t, a, bound) for t, a in zip(template, actual, strict=True)))  # fmt: skip
    return bool(template == actual)


def fill(value: Any, bound: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.replace(VM, bound.get("vm", VM))
    if isinstance(value, dict):
        return {k: fill(v, bound) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, bound) for v in value]
    return value


class LumeReplay:
    """Lume's API as the transcript ``name`` says it answers, on a free port of 127.0.0.1."""

    def __init__(self, name: str) -> None:
        self.entries: list[dict[str, Any]] = json.loads((FIXTURES / f"{name}.json").read_text())["entries"]
        self.at = 0
        self.bound: dict[str, str] = {}
        self.failures: list[str] = []
        self.seen: list[str] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                status, answer = replay.answer(self.command, self.path, body)
                data = b"" if answer is None else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def _matches(self, entry: dict[str, Any], method: str, path: str, body: Any) -> bool:
        trial = dict(self.bound)
        ok = (entry["method"] == method and bind(entry["path"], path, trial)
              and bind(entry.get("request"), body, trial))  # fmt: skip
        if ok:
            self.bound.update(trial)
        return ok

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        self.seen.append(f"{method} {path} {json.dumps(body)}")
        previous = self.entries[self.at - 1] if self.at else None
        if self.at < len(self.entries) and self._matches(self.entries[self.at], method, path, body):
            entry = self.entries[self.at]
            self.at += 1
        elif previous is not None and previous.get("repeat") and self._matches(previous, method, path, body):
            entry = previous
        else:
            expected = self.entries[self.at] if self.at < len(self.entries) else "nothing more"
            self.failures.append(f"unexpected request #{len(self.seen)}: {method} {path} {json.dumps(body)}; "
                                 f"the transcript expects {expected}")  # fmt: skip
            return 599, {"message": "not in the transcript"}
        return int(entry["status"]), fill(entry.get("response"), self.bound)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def check(self) -> None:
        """The test fails unless every request was the transcript's next and the whole transcript was used."""
        assert not self.failures, "\n".join(self.failures)
        assert self.at == len(self.entries), (
            f"the transcript's entries from #{self.at + 1} were never requested: {self.entries[self.at :]}; "
            f"requests: {self.seen}"
        )


FAKE_TART = r'''#!PYTHON
"""tart, as the transcript in $FAKE_TART_STATE says it answers (see conftest.py)."""
import fcntl, json, os, sys, time
from typing import Any
BIND
state = os.environ["FAKE_TART_STATE"]
argv = sys.argv[1:]
with open(os.path.join(state, "lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    entries = json.load(open(os.path.join(state, "transcript.json")))["entries"]
    path = os.path.join(state, "position.json")
    pos = json.load(open(path)) if os.path.exists(path) else {"next": 0, "pending": [], "bound": {}}
    with open(os.path.join(state, "calls.log"), "a") as log:
        log.write(json.dumps(argv) + "\n")
    chosen = None
    for index in list(pos["pending"]):
        trial = dict(pos["bound"])
        if bind(entries[index]["argv"], argv, trial):
            pos["pending"].remove(index); pos["bound"] = trial; chosen = entries[index]; break
    while chosen is None and pos["next"] < len(entries):
        entry, trial = entries[pos["next"]], dict(pos["bound"])
        if bind(entry["argv"], argv, trial):
            pos["next"] += 1; pos["bound"] = trial; chosen = entry
        elif entry.get("background"):
            pos["pending"].append(pos["next"]); pos["next"] += 1
        elif entry.get("optional"):
            pos["next"] += 1
        else:
            break
    if chosen is None:
        expected = entries[pos["next"]]["argv"] if pos["next"] < len(entries) else "nothing more"
        with open(os.path.join(state, "failures.log"), "a") as failures:
            failures.write(f"unexpected `tart {' '.join(argv)}`; the transcript expects {expected}\n")
        json.dump(pos, open(path, "w"))
        sys.exit(99)
    json.dump(pos, open(path, "w"))
    vm = pos["bound"].get("vm", "")
    stops = os.path.join(state, "stops-" + (argv[1] if len(argv) > 1 else ""))
    if argv[:1] == ["stop"]:
        count = int(open(stops).read()) if os.path.exists(stops) else 0
        open(stops, "w").write(str(count + 1))
sys.stdout.write(chosen.get("stdout", "").replace("{vm}", vm))
sys.stderr.write(chosen.get("stderr", ""))
sys.stdout.flush()
if chosen.get("background") and chosen.get("exit", 0) == 0:  # `tart run` lasts until `tart stop`
    name = os.path.join(state, "stops-" + argv[-1])
    start = int(open(name).read()) if os.path.exists(name) else 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if os.path.exists(name) and int(open(name).read()) > start:
            break
        time.sleep(0.05)
sys.exit(chosen.get("exit", 0))
'''

FAKE_SSH = r'''#!PYTHON
"""ssh, as far as the backend uses it: every call logged, a probe answered, the password read from askpass."""
import base64, json, os, subprocess, sys
state = os.environ["FAKE_SSH_STATE"]
stdin = sys.stdin.buffer.read()
askpass = os.environ.get("SSH_ASKPASS")
password = subprocess.run([askpass], capture_output=True, text=True).stdout if askpass else None
remote = sys.argv[-1]
with open(os.path.join(state, "ssh.log"), "a") as log:
    log.write(json.dumps({"argv": sys.argv[1:], "stdin": base64.b64encode(stdin).decode(), "password": password,
                          "askpass_require": os.environ.get("SSH_ASKPASS_REQUIRE")}) + "\n")
if "id -u" in remote:
    print(os.environ.get("FAKE_SSH_HOME", "/Users/lume")); print("501"); print(os.environ.get("FAKE_SSH_DIGEST", ""))
elif "tail -n" in remote:
    print(os.environ.get("FAKE_SSH_LOG", ""))
elif "tar -xzf -" in remote:
    sys.exit(int(os.environ.get("FAKE_SSH_INSTALL_EXIT", "0")))
'''


def write_fake(folder: Path, name: str, source: str) -> Path:
    """An executable Python script (this interpreter's) named ``name`` in ``folder``."""
    path = folder / name
    text = source.replace("#!PYTHON", f"#!{sys.executable}", 1).replace("BIND", inspect.getsource(bind), 1)
    path.write_text(text)
    path.chmod(0o755)
    return path


class TartReplay:
    """The fake ``tart``'s state folder: its transcript, where it got to, and what it was called with."""

    def __init__(self, state: Path) -> None:
        self.state = state

    def calls(self) -> list[list[str]]:
        log = self.state / "calls.log"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def check(self) -> None:
        """The test fails unless every call was the transcript's next and the whole transcript was used."""
        failures = self.state / "failures.log"
        assert not failures.exists(), failures.read_text()
        entries = json.loads((self.state / "transcript.json").read_text())["entries"]
        pos = json.loads((self.state / "position.json").read_text())
        unused = [e["argv"] for e in entries[pos["next"] :] if not e.get("optional")]
        unused += [entries[i]["argv"] for i in pos["pending"]]
        assert not unused, f"the transcript's calls never made: {unused}; calls: {self.calls()}"


class SshLog:
    """What the fake ``ssh`` was asked: argv, standard input, and the password askpass gave it."""

    def __init__(self, state: Path) -> None:
        self.state = state

    def calls(self) -> list[dict[str, Any]]:
        log = self.state / "ssh.log"
        found = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        for call in found:
            call["stdin"] = base64.b64decode(call["stdin"])
            call["script"] = call["argv"][-1]
        return found


@pytest.fixture
def ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SshLog:
    """A folder first on PATH holding the fake ``ssh`` (the ``tart`` fixture adds its fake there too)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    state = tmp_path / "ssh-state"
    state.mkdir()
    write_fake(folder, "ssh", FAKE_SSH)
    monkeypatch.setenv("FAKE_SSH_STATE", str(state))
    monkeypatch.setenv("FAKE_SSH_DIGEST", DIGEST)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    monkeypatch.setattr(cua_bench_macos.lume, "POLL", 0.01)
    return SshLog(state)


@pytest.fixture
def lume() -> Iterator[Callable[[str], LumeReplay]]:
    """Start a replay of Lume from a transcript (the test calls its ``check``)."""
    started: list[LumeReplay] = []

    def start(name: str) -> LumeReplay:
        started.append(LumeReplay(name))
        return started[-1]

    yield start
    for replay in started:
        replay.close()


@pytest.fixture
def tart(ssh: SshLog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], TartReplay]:
    """Put the fake ``tart`` first on PATH, replaying a transcript (the test calls its ``check``)."""

    def start(name: str) -> TartReplay:
        state = tmp_path / "tart-state"
        state.mkdir()
        shutil.copy(FIXTURES / f"{name}.json", state / "transcript.json")
        write_fake(tmp_path / "bin", "tart", FAKE_TART)
        monkeypatch.setenv("FAKE_TART_STATE", str(state))
        return TartReplay(state)

    return start


@pytest.fixture
def payload_home(tmp_path: Path) -> Path:
    """The backend's folder with a payload as ``build_payload`` leaves it."""
    home = tmp_path / "macos-home"
    (home / "payload").mkdir(parents=True)
    (home / "payload" / "payload.tar.gz").write_bytes(PAYLOAD)
    (home / "payload" / "payload.sha256").write_text(DIGEST + "\n")
    return home


@pytest.fixture
def answering(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guest's env server answers at once (no guest runs here: its address is on no network)."""
    monkeypatch.setattr(MacosBackend, "health", lambda self, computer, timeout=2.0: True)


@pytest.fixture
def no_lume() -> str:
    """An address where nothing listens: Lume absent."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
