"""OSWorld's Chrome tab steps and getters against a real headless Chromium, and ``vlc_playing_info``
against a loopback server that answers as VLC's web interface does.

The Session here runs its commands with this machine's bash (the computer is this machine), so the
program the getters send to the computer (``on_computer.py``) really runs, with the real python3.
Chromium is required in CI (the README's test command installs it); elsewhere these tests skip.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.folder_server import serve_folder

from cua_bench.osworld import chrome, getters, on_computer
from cua_bench.osworld.config import Context, run_steps
from cua_bench.osworld.getters import get
from cua_bench.osworld.loader import PlatformError, Step, load_tasks
from cua_bench.osworld.support import check_support
from cua_bench.session import CommandResult, NotSupported, Session
from cua_core.actions import Action

CHROMIUM = shutil.which("chromium")
NAMES = ("chrome_open_tabs", "chrome_close_tabs", "open_tabs_info", "active_tab_info", "active_tab_url_parse",
         "active_url_from_accessTree", "vlc_playing_info")  # fmt: skip


class LocalShell(Session):
    """A Session whose shell is this machine's bash (``path``: its PATH); a scripted a11y tree."""

    def __init__(self, path: str | None = None) -> None:
        self.width, self.height = 1280, 800
        self.tree: list[dict[str, Any]] = []
        self.path = path

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        env = dict(os.environ, PATH=self.path) if self.path is not None else None
        proc = await asyncio.create_subprocess_exec(
            "/bin/bash", "-c", command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
        return CommandResult(proc.returncode or 0, out.decode(), err.decode())

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return self.tree

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        raise NotSupported("no input here")

    async def screenshot(self) -> bytes:
        raise NotSupported("no screen here")

    async def windows(self) -> list[dict[str, Any]]:
        return []

    async def launch(self, app: str, **params: Any) -> str:
        raise NotSupported("launch through the shell")

    async def read_bytes(self, path: str) -> bytes:
        return Path(path).read_bytes()

    async def write_file(self, path: str, content: bytes | str) -> None:
        Path(path).write_bytes(content.encode() if isinstance(content, str) else content)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    cache = tmp_path / "cache"
    cache.mkdir()
    context = Context(LocalShell(), tmp_path, cache, chrome_wait=20.0, page_timeout=20.0, command_timeout=30.0)
    context.close_delay = 0.0
    return context


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """Pages with titles on a loopback server (headless Chromium here has no other network)."""
    root = tmp_path / "site"
    root.mkdir()
    for name in ("a", "b", "c"):
        (root / f"{name}.html").write_text(f"<!DOCTYPE html><title>Page {name.upper()}</title><p>body of {name}</p>")

    with serve_folder(root) as url:
        yield url


@pytest.fixture
def chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A headless Chromium with a private profile on a free DevTools port, which the steps and getters
    find second (the first port answers nothing, as where socat does not run)."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but chromium is not installed (scripts/system-deps.sh installs it)")
        pytest.skip("chromium is not installed")
    port = free_port()
    proc = subprocess.Popen(
        [
            CHROMIUM, "--headless=new", f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={tmp_path / 'profile'}", "--no-first-run", "--no-default-browser-check",
            "--disable-gpu", "--no-sandbox", "about:blank",
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"chromium did not open its DevTools port {port} (exit {proc.poll()})")
                time.sleep(0.2)
        monkeypatch.setattr(chrome, "DEVTOOLS_PORTS", (free_port(), port))
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def devtools_pages(port: int) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
        return [t for t in json.loads(response.read()) if t["type"] == "page"]


def steps(ctx: Context, *pairs: tuple[str, dict[str, Any]]) -> None:
    asyncio.run(run_steps([Step(kind, params) for kind, params in pairs], ctx))


def getter(ctx: Context, config: dict[str, Any]) -> Any:
    return asyncio.run(get(ctx, config))


def chrome_window(*bars: str, app: str = "Chromium") -> dict[str, Any]:
    """A Chrome window as the local backend gives it, with address bars holding ``bars``."""
    entries = [{"role": "entry", "name": chrome.ADDRESS_BAR, "value": text, "children": []} for text in bars]
    toolbar = {"role": "tool bar", "name": "", "children": [{"role": "push button", "name": "Back"}, *entries]}
    return {"role": "window", "name": "Chromium", "app": app, "children": [toolbar]}


# -- Chrome ---------------------------------------------------------------------------------------


def test_open_tabs_opens_each_url_and_replaces_the_blank_start_tab(ctx: Context, chromium: int, site: str) -> None:
    assert [p["url"] for p in devtools_pages(chromium)] == ["about:blank"]
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/a.html", f"{site}/b.html"]}))
    tabs = getter(ctx, {"type": "open_tabs_info"})
    assert sorted(tabs, key=lambda t: t["url"]) == [
        {"title": "Page A", "url": f"{site}/a.html"},
        {"title": "Page B", "url": f"{site}/b.html"},
    ]
    # A second call keeps what is open (no blank tab to close now), as OSWorld's does.
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/c.html"]}))
    assert {t["title"] for t in getter(ctx, {"type": "open_tabs_info"})} == {"Page A", "Page B", "Page C"}
    assert not ctx.failures


def test_close_tabs_closes_the_first_tab_of_each_url(ctx: Context, chromium: int, site: str) -> None:
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/a.html", f"{site}/b.html", f"{site}/a.html"]}))
    steps(ctx, ("chrome_close_tabs", {"urls_to_close": [f"{site}/a.html"]}))
    titles = sorted(t["title"] for t in getter(ctx, {"type": "open_tabs_info"}))
    assert titles == ["Page A", "Page B"]  # one of the two A tabs is gone
    steps(ctx, ("chrome_close_tabs", {"urls_to_close": [f"{site}/nothing.html"]}))
    assert len(devtools_pages(chromium)) == 2


def test_active_tab_info_loads_the_address_bars_url_in_a_tab_it_closes_after(
    ctx: Context, chromium: int, site: str
) -> None:
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/b.html"]}))
    assert isinstance(ctx.session, LocalShell)
    ctx.session.tree = [chrome_window(site.removeprefix("http://") + "/c.html")]
    info = getter(ctx, {"type": "active_tab_info", "goto_prefix": "http://"})
    assert info["title"] == "Page C" and info["url"] == f"{site}/c.html"
    assert info["content"].startswith("<!DOCTYPE html><html>") and "<p>body of c</p>" in info["content"]
    assert [p["title"] for p in devtools_pages(chromium)] == ["Page B"]


def test_without_chrome_steps_are_errors_and_getters_give_osworlds_fallbacks(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chrome, "DEVTOOLS_PORTS", (free_port(), free_port()))
    ctx.chrome_wait, ctx.relaunch_wait = 0.5, 0.5
    with pytest.raises(PlatformError, match="no Chrome answered on DevTools port"):
        steps(ctx, ("chrome_open_tabs", {"urls_to_open": ["https://example.com"]}))
    # open_tabs_info starts google-chrome again, as OSWorld's does: not there, an error ...
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.executable).resolve())  # the interpreter itself, not a shim
    for tool in ("sh", "nohup"):
        (bin_dir / tool).symlink_to(str(shutil.which(tool)))
    ctx.session = LocalShell(path=str(bin_dir))
    with pytest.raises(PlatformError, match="google-chrome is not on this computer"):
        getter(ctx, {"type": "open_tabs_info"})
    # ... there but never answering: OSWorld's [] (the agent's Chrome is gone).
    fake = bin_dir / "google-chrome"
    fake.write_text(f'#!/bin/sh\necho started "$@" > {tmp_path / "launched"}\n')
    fake.chmod(0o755)
    assert getter(ctx, {"type": "open_tabs_info"}) == []
    assert (tmp_path / "launched").read_text().split() == [
        "started",
        f"--remote-debugging-port={chrome.DEVTOOLS_PORTS[0]}",
    ]
    # active_tab_info does not start Chrome: None.
    assert isinstance(ctx.session, LocalShell)
    ctx.session.tree = [chrome_window("example.com/")]
    assert getter(ctx, {"type": "active_tab_info"}) is None


def test_a_computer_without_python3_is_an_error(ctx: Context, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    ctx.session = LocalShell(path=str(empty))
    with pytest.raises(PlatformError, match="python3 is not on this computer"):
        getter(ctx, {"type": "open_tabs_info"})


def test_the_active_url_comes_from_chromes_address_bar(ctx: Context) -> None:
    assert isinstance(ctx.session, LocalShell)
    tree = ctx.session.tree
    assert getter(ctx, {"type": "active_url_from_accessTree"}) is None  # no Chrome at all
    tree[:] = [{"role": "window", "name": "Terminal", "app": "xterm", "children": []}, chrome_window("budget.com/x")]
    assert getter(ctx, {"type": "active_url_from_accessTree"}) == "https://budget.com/x"
    assert getter(ctx, {"type": "active_url_from_accessTree", "goto_prefix": "https://www."}) == (
        "https://www.budget.com/x"
    )
    tree[:] = [chrome_window("first.com", "second.com", app="Google Chrome")]
    assert getter(ctx, {"type": "active_url_from_accessTree"}) == "https://first.com"  # OSWorld reads the first
    tree[:] = [chrome_window("first.com", "")]
    assert getter(ctx, {"type": "active_url_from_accessTree"}) is None  # ... if the last has text
    for app in ("Chromium", "chromium", "Google-chrome"):  # AT-SPI's name, or the window manager's class
        tree[:] = [{"role": "window", "name": "New Tab - Chromium", "app": app, "children": []}]
        with pytest.raises(PlatformError, match="expose no accessibility tree"):
            getter(ctx, {"type": "active_url_from_accessTree"})


def test_active_tab_url_parse_reads_query_values(ctx: Context) -> None:
    assert isinstance(ctx.session, LocalShell)
    ctx.session.tree = [chrome_window("rentalcars.com/search?locationName=Z%C3%BCrich&puDay=3&list=a,b")]
    config = {"type": "active_tab_url_parse", "goto_prefix": "https://www."}
    values = getter(ctx, {**config, "parse_keys": ["locationName", "puDay", "absent"], "replace": {"puDay": "day"}})
    assert values == {"locationName": "Zürich", "absent": "", "day": "3"}
    assert getter(ctx, {**config, "parse_keys": ["list"], "split_list": True}) == {"list": ["a", "b"]}
    ctx.session.tree = []
    assert getter(ctx, {**config, "parse_keys": ["list"]}) is None


def test_urls_compare_as_osworlds_compare_urls() -> None:
    assert chrome.compare_urls("https://www.tripadvisor.com/", "https://www.tripadvisor.com")
    assert chrome.compare_urls("https://www.airbnb.com.sg/", "HTTPS://airbnb.com")
    assert chrome.compare_urls("lonelyplanet.com", "http://www.lonelyplanet.com/")
    assert not chrome.compare_urls("https://www.airbnb.com/rooms", "https://www.airbnb.com")
    assert not chrome.compare_urls("https://maps.airbnb.com", "https://www.airbnb.com")
    assert not chrome.compare_urls("https://www.airbnb.com/?a=1", "https://www.airbnb.com/?a=2")


class Remote(LocalShell):
    """The Session of a real local desktop, reached through its env server as a getter's would be."""

    def __init__(self, env: Any) -> None:
        super().__init__()
        self.env = env

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        done = await asyncio.to_thread(self.env.session, "run_command", command=command, timeout=timeout)
        return CommandResult(done["returncode"], done["stdout"], done["stderr"])

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return list(await asyncio.to_thread(self.env.session, "accessibility_tree"))


def test_on_a_local_desktop_tabs_open_and_the_address_bar_is_read(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OSWorld's launch step, then its tab step and getters, on a real desktop with the real a11y bus."""
    import cua_bench
    from cua_bench.backends.local import unavailable

    problem = unavailable() or (None if CHROMIUM else "chromium is not installed")
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the local desktop cannot run Chromium: {problem}")
        pytest.skip(f"local desktop with Chromium unavailable: {problem}")
    port = free_port()
    monkeypatch.setattr(chrome, "DEVTOOLS_PORTS", (port,))
    with cua_bench.make("desktop/xterm-create-file", backend="local", width=1024, height=768, obs="none") as env:
        env.reset()
        ctx.session = Remote(env)
        launch = (  # what the docker osworld image's google-chrome runs, on a private profile
            "ACCESSIBILITY_ENABLED=1 chromium --force-renderer-accessibility --no-sandbox --disable-gpu --no-first-run "
            f"--password-store=basic "
            f"--user-data-dir=$HOME/.chromium-test --remote-debugging-port={port}"
        )
        urls = ["http://127.0.0.1:9/first", "http://127.0.0.1:9/search?q=cats&page=2"]
        steps(ctx, ("launch", {"command": launch, "shell": True}), ("chrome_open_tabs", {"urls_to_open": urls}))
        assert not ctx.failures
        assert sorted(t["url"] for t in getter(ctx, {"type": "open_tabs_info"})) == urls
        deadline, url = time.monotonic() + 30, None
        while url != urls[1]:  # Chromium's widgets reach the bus a moment after its window
            assert time.monotonic() < deadline, f"the address bar shows {url!r}"
            time.sleep(0.5)
            with contextlib.suppress(PlatformError):
                url = getter(ctx, {"type": "active_url_from_accessTree", "goto_prefix": "http://"})
        parsed = getter(ctx, {"type": "active_tab_url_parse", "goto_prefix": "http://", "parse_keys": ["q", "page"]})
        assert parsed == {"q": "cats", "page": "2"}
        info = getter(ctx, {"type": "active_tab_info", "goto_prefix": "http://"})  # nothing listens: an error page
        assert info["url"] == urls[1] and info["title"] == "127.0.0.1" and "</html>" in info["content"]


# -- VLC ------------------------------------------------------------------------------------------

# What VLC 3's web interface answers at /requests/status.xml while it plays a stream (abridged).
STATUS_XML = b"""<?xml version="1.0" encoding="utf-8" standalone="yes" ?>
<root>
<fullscreen>false</fullscreen>
<apiversion>3</apiversion>
<currentplid>3</currentplid>
<time>4</time>
<volume>256</volume>
<length>600</length>
<random>false</random>
<rate>1</rate>
<state>playing</state>
<loop>false</loop>
<version>3.0.18 Vetinari</version>
<position>0.0066</position>
<repeat>false</repeat>
<information>
<category name="meta">
<info name='filename'>master.m3u8</info>
<info name='url'>https://devstreaming-cdn.apple.com/videos/streaming/examples/img_bipbop_adv_example_fmp4/master.m3u8</info>
</category>
</information>
</root>
"""


@pytest.fixture
def vlc(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """VLC's web interface on a loopback port: basic auth, user "" and a password; 401 otherwise."""
    expected = {"password": "password"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            token = base64.b64encode(f":{expected['password']}".encode()).decode()
            ok = self.path == "/requests/status.xml" and self.headers.get("Authorization") == f"Basic {token}"
            body = STATUS_XML if ok else b"<h1>401 Unauthorized</h1>"
            self.send_response(200 if ok else 401)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(getters, "VLC_HTTP", f"http://127.0.0.1:{server.server_address[1]}/requests/status.xml")
    yield expected
    server.shutdown()


def test_vlc_playing_info_copies_vlcs_status_and_osworlds_metric_reads_it(ctx: Context, vlc: dict[str, str]) -> None:
    path = getter(ctx, {"type": "vlc_playing_info", "dest": "status.xml"})
    assert path == str(ctx.cache_dir / "status.xml") and Path(path).read_bytes() == STATUS_XML
    from cua_bench.osworld.official import official_metrics

    is_vlc_playing = official_metrics().get("is_vlc_playing")
    if is_vlc_playing is not None:  # desktop-env installed: its own metric scores what we copied
        url = "https://devstreaming-cdn.apple.com/videos/streaming/examples/img_bipbop_adv_example_fmp4/master.m3u8"
        assert is_vlc_playing(path, {"type": "url", "url": url}) == 1
        assert is_vlc_playing(path, {"type": "url", "url": "https://elsewhere.example/x.m3u8"}) == 0


def test_vlc_playing_info_gives_none_on_a_refusal_and_an_error_without_vlc(
    ctx: Context, vlc: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    vlc["password"] = "another"  # VLC answers 401: OSWorld's getter gives None
    assert getter(ctx, {"type": "vlc_playing_info", "dest": "status.xml"}) is None
    assert not (ctx.cache_dir / "status.xml").exists()
    monkeypatch.setattr(getters, "VLC_HTTP", f"http://127.0.0.1:{free_port()}/requests/status.xml")
    with pytest.raises(PlatformError, match="VLC's web interface does not answer"):
        getter(ctx, {"type": "vlc_playing_info", "dest": "status.xml"})


# -- support --------------------------------------------------------------------------------------


def test_fixture_tasks_are_no_longer_skipped_for_these_steps_and_getters(shared_fixtures: Path) -> None:
    tasks = load_tasks(shared_fixtures / "osworld") + load_tasks(shared_fixtures / "osworld_more")
    users = [t for t in tasks if any(f'"{name}"' in t.path.read_text() for name in NAMES)]
    assert len(users) >= 50  # 50 use chrome_open_tabs alone (55 tasks in all)
    for task in users:
        reasons = check_support(task, official=frozenset(), mirror=None).reasons
        assert not [r for r in reasons if r.rsplit(": ", 1)[-1] in NAMES], (task.path, reasons)
    # What is still missing is still named (active_tab_html_parse, say): the check can fail.
    missing = {r for t in users for r in check_support(t, official=frozenset(), mirror=None).reasons}
    assert "unsupported getter: active_tab_html_parse" in missing


def test_a_new_tabs_blank_document_is_not_taken_for_the_loaded_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new tab holds an about:blank document, already ``complete``, until its navigation commits:
    waiting stopped there and ``active_tab_info`` read the empty title (a CI failure: '' == 'Page C')."""
    states = iter([["complete", "about:blank"], ["loading", "http://x/c.html"], ["complete", "http://x/c.html"]])
    reads: list[list[str]] = []

    def evaluate(ws_url: str, expression: str, timeout: float) -> str:
        reads.append(next(states))
        return json.dumps(reads[-1])

    monkeypatch.setattr(on_computer, "evaluate", evaluate)
    monkeypatch.setattr(on_computer.time, "sleep", lambda seconds: None)
    assert on_computer.wait_loaded("ws://x", 5.0, "http://x/c.html")
    assert reads[-1] == ["complete", "http://x/c.html"] and len(reads) == 3
    # A blank page asked for is loaded when its blank document is complete.
    monkeypatch.setattr(on_computer, "evaluate", lambda ws_url, expression, timeout: '["complete", "about:blank"]')
    assert on_computer.wait_loaded("ws://x", 5.0, "about:blank")
