"""`cua-bench osworld fetch`: against a loopback HTTP server serving generated files, with task files
written here that point at it. A guard fails any test that reaches for another host."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cua_bench.cli import main
from cua_bench_osworld.fetch import MANIFEST, fetch, remote_urls
from cua_bench_osworld.sources import mirror_path


class Files(http.server.ThreadingHTTPServer):
    """Serves ``files`` by path, with HTTP ranges (unless ``ranges`` is off); a path in ``cut`` is
    cut off halfway once; a path in ``slow`` trickles. ``requests``: (path, Range header) seen."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.files: dict[str, bytes] = {}
        self.cut: set[str] = set()
        self.slow: set[str] = set()
        self.ranges = True
        self.requests: list[tuple[str, str | None]] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(http.server.BaseHTTPRequestHandler):
    server: Files

    def do_GET(self) -> None:
        server = self.server
        server.requests.append((self.path, self.headers.get("Range")))
        data = server.files.get(self.path)
        if data is None:
            self.send_error(404, "Not Found")
            return
        start = 0
        wanted = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if wanted and server.ranges:
            start = int(wanted.group(1))
            if start >= len(data):
                self.send_error(416, "Range Not Satisfiable")
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.path in server.cut:
            server.cut.discard(self.path)
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        step = 64 * 1024
        for offset in range(0, len(body), step):
            self.wfile.write(body[offset : offset + step])
            if self.path in server.slow:
                self.wfile.flush()
                time.sleep(0.05)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Files]:
    files = Files()
    thread = threading.Thread(target=files.serve_forever, daemon=True)
    thread.start()
    yield files
    files.shutdown()
    files.server_close()


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may reach a host that is not this machine's loopback."""
    real = socket.create_connection

    def guarded(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        assert address[0] in ("127.0.0.1", "localhost", "::1"), f"a test reached for {address[0]}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", guarded)


def _blob(size: int, seed: int) -> bytes:
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    return bytes(out[:size])


def _write(folder: Path, domain: str, data: dict[str, Any]) -> None:
    (folder / domain).mkdir(parents=True, exist_ok=True)
    (folder / domain / f"{data['id']}.json").write_text(json.dumps(data))


@pytest.fixture
def tasks(tmp_path: Path, server: Files) -> Path:
    """Two tasks: downloads (one in OSWorld's Hugging Face layout), a cloud_file the other shares,
    and a multi cloud_file with a large file."""
    base = server.base
    server.files["/files/one.bin"] = _blob(10_000, 1)
    server.files["/datasets/xlangai/cache/resolve/main/os/task-a/gold%20copy.txt"] = b"gold\n"
    server.files["/files/big.bin"] = _blob(3 * 1024 * 1024 + 7, 2)
    folder = tmp_path / "examples"
    one = {"type": "cloud_file", "path": f"{base}/files/one.bin", "dest": "one.bin"}
    _write(folder, "os", {
        "id": "task-a", "instruction": "i",
        "config": [{"type": "download", "parameters": {"files": [
            {"url": f"{base}/files/one.bin", "path": "/home/user/one.bin"},
            {"url": f"{base}/datasets/xlangai/cache/resolve/main/os/task-a/gold%20copy.txt", "path": "/home/user/g.txt"},
        ]}}],
        "evaluator": {"func": "compare_text_file", "result": {"type": "vm_file", "path": "/x", "dest": "x"},
                      "expected": one},
    })  # fmt: skip
    _write(folder, "calc", {
        "id": "task-b", "instruction": "i",
        "evaluator": {"func": "compare_table", "result": {"type": "vm_file", "path": "/x", "dest": "x"},
                      "expected": {"type": "cloud_file", "multi": True, "gives": [0, 1],
                                   "path": [f"{base}/files/big.bin", f"{base}/files/one.bin"], "dest": ["b", "o"]}},
    })  # fmt: skip
    return folder


def _manifest(mirror: Path) -> dict[str, Any]:
    files: dict[str, Any] = json.loads((mirror / MANIFEST).read_text())["files"]
    return files


def test_every_remote_file_lands_in_the_mirror_with_its_size_and_hash(
    tasks: Path, server: Files, tmp_path: Path
) -> None:
    mirror = tmp_path / "mirror"
    urls, invalid = remote_urls(tasks)
    assert len(urls) == 3 and not invalid  # one.bin is used three times, listed once
    result = CliRunner().invoke(main, ["osworld", "fetch", str(tasks), "--mirror", str(mirror)])
    assert result.exit_code == 0, result.output
    assert "3 files: 3 fetched, 0 resumed, 0 already there, 0 failed" in result.output
    manifest = _manifest(mirror)
    assert set(manifest) == set(urls)
    for url in urls:
        data = server.files[url.removeprefix(server.base)]
        path = mirror_path(url, mirror)
        assert path.read_bytes() == data
        assert manifest[url] == {
            "path": str(path.relative_to(mirror)),
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    # OSWorld's file cache layout: <domain>/<task id>/<file>, as the runner's mirror lookup expects
    assert (mirror / "os" / "task-a" / "gold copy.txt").read_bytes() == b"gold\n"
    assert not list(mirror.rglob("*.part"))
    # A rerun fetches nothing and says so.
    server.requests.clear()
    again = CliRunner().invoke(main, ["osworld", "fetch", str(tasks), "--mirror", str(mirror)])
    assert again.exit_code == 0 and "3 files: 0 fetched, 0 resumed, 3 already there, 0 failed" in again.output
    assert server.requests == []


def test_a_missing_file_fails_by_name_and_the_rest_still_come(tasks: Path, server: Files, tmp_path: Path) -> None:
    del server.files["/files/one.bin"]
    mirror = tmp_path / "mirror"
    result = CliRunner().invoke(main, ["osworld", "fetch", str(tasks), "--mirror", str(mirror)])
    assert result.exit_code == 1
    assert f"failed: {server.base}/files/one.bin: HTTPError: HTTP Error 404: Not Found" in result.output
    assert "Error: 1 of 3 files failed (each named above); run the same command again to retry them" in result.output
    assert len(_manifest(mirror)) == 2 and not mirror_path(f"{server.base}/files/one.bin", mirror).exists()


def test_a_cut_download_is_never_complete_and_a_rerun_continues_it(tasks: Path, server: Files, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    big = f"{server.base}/files/big.bin"
    server.cut.add("/files/big.bin")
    result = fetch(tasks, mirror)
    assert list(result.failed) == [big] and "the connection ended after" in result.failed[big]
    dest = mirror_path(big, mirror)
    part = dest.with_name(dest.name + ".part")
    assert not dest.exists() and big not in _manifest(mirror)
    half = part.stat().st_size
    assert 0 < half < len(server.files["/files/big.bin"])
    server.requests.clear()
    result = fetch(tasks, mirror)
    assert result.resumed == [big] and not result.failed
    assert server.requests == [("/files/big.bin", f"bytes={half}-")]  # only the rest was asked for
    assert dest.read_bytes() == server.files["/files/big.bin"] and not part.exists()
    assert _manifest(mirror)[big]["sha256"] == hashlib.sha256(server.files["/files/big.bin"]).hexdigest()


def test_a_server_without_ranges_gets_the_file_again_from_the_start(tasks: Path, server: Files, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    big = f"{server.base}/files/big.bin"
    server.cut.add("/files/big.bin")
    fetch(tasks, mirror)
    server.ranges = False
    result = fetch(tasks, mirror)
    assert result.fetched == [big] and mirror_path(big, mirror).read_bytes() == server.files["/files/big.bin"]
    # A file that changed on disk since the manifest was written is fetched again.
    mirror_path(big, mirror).write_bytes(b"truncated")
    assert fetch(tasks, mirror).fetched == [big]
    assert mirror_path(big, mirror).read_bytes() == server.files["/files/big.bin"]


def test_kill_9_mid_download_leaves_no_file_that_counts_as_complete(tasks: Path, server: Files, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    big = f"{server.base}/files/big.bin"
    server.slow.add("/files/big.bin")  # ~2.5 s for the whole file
    dest = mirror_path(big, mirror)
    part = dest.with_name(dest.name + ".part")
    command = [sys.executable, "-m", "cua_bench.cli", "osworld", "fetch", str(tasks), "--mirror", str(mirror)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (part.exists() and part.stat().st_size > 256 * 1024):
            assert process.poll() is None, "fetch ended before the test could stop it"
            assert time.monotonic() < deadline, "the slow download never started"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert not dest.exists()  # the half is only ever the .part
    assert not (mirror / MANIFEST).exists() or big not in _manifest(mirror)
    server.slow.clear()
    result = fetch(tasks, mirror)
    assert big in result.resumed and not result.failed
    assert dest.read_bytes() == server.files["/files/big.bin"]


def test_a_folder_without_tasks_or_remote_files(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["osworld", "fetch", str(tmp_path), "--mirror", str(tmp_path / "m")])
    assert result.exit_code == 1 and "no OSWorld task files" in result.output
    _write(tmp_path, "os", {"id": "t", "instruction": "i", "evaluator": {"func": "infeasible"}})
    result = CliRunner().invoke(main, ["osworld", "fetch", str(tmp_path), "--mirror", str(tmp_path / "m")])
    assert result.exit_code == 0 and "nothing to fetch" in result.output


def test_a_url_that_climbs_out_of_the_mirror_is_refused(tmp_path: Path, server: Files) -> None:
    server.files["/x"] = b"x"
    _write(tmp_path / "t", "os", {"id": "t", "instruction": "i", "config": [{"type": "download", "parameters": {
        "files": [{"url": f"{server.base}/a/../../../../escaped.txt", "path": "/p"}]}}],
        "evaluator": {"func": "infeasible"}})  # fmt: skip
    result = fetch(tmp_path / "t", tmp_path / "mirror")
    (why,) = result.failed.values()
    assert "outside the mirror" in why and not list(tmp_path.rglob("escaped.txt"))
