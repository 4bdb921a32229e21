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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.folder_server import serve_folder
from support.osworld_sessions import LocalShell

from cua_bench.commands import CommandResult
from cua_bench_osworld import chrome, chrome_pages, getters, on_computer
from cua_bench_osworld.config import Context, run_steps
from cua_bench_osworld.getters import get
from cua_bench_osworld.loader import PlatformError, Step, TaskSkipped, load_tasks
from cua_bench_osworld.support import SHELL_GETTERS, check_support

CHROMIUM = shutil.which("chromium")
NAMES = ("chrome_open_tabs", "chrome_close_tabs", "open_tabs_info", "active_tab_info", "active_tab_url_parse",
         "active_url_from_accessTree", "vlc_playing_info")  # fmt: skip


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
    ctx.session = LocalShell({"PATH": str(bin_dir)})
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
    ctx.session = LocalShell({"PATH": str(empty)})
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
    with cua_bench.make("desktop/xterm-create-file", backend="local", width=1024, height=768, observes="none") as env:
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
    from cua_bench_osworld.official import official_metrics

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
    # What is still missing is still named (url_dashPart, say): the check can fail.
    missing = {r for t in users for r in check_support(t, official=frozenset(), mirror=None).reasons}
    assert "unsupported getter: url_dashPart" in missing


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


# -- Chrome: the settings page, the agent's own tab, the profile ---------------------------------

NEW_NAMES = ("chrome_appearance_mode_ui", "active_tab_html_parse", "url_path_parse", "find_unpacked_extension_path",
             "find_installed_extension_name")  # fmt: skip


@pytest.fixture
def scheme(request: pytest.FixtureRequest, tmp_path: Path) -> int | None:
    """The colour scheme written in the profile before ``chromium`` starts (as task 93eabf48's setup does),
    or a fresh profile (None). Request it before ``chromium``."""
    value: int | None = request.param
    if value is not None:
        (tmp_path / "profile" / "Default").mkdir(parents=True)
        prefs = {"browser": {"theme": {"color_scheme": value, "color_scheme2": value}}}
        (tmp_path / "profile" / "Default" / "Preferences").write_text(json.dumps(prefs))
    return value


def visible_page(port: int) -> str:
    """The URL of the tab Chrome shows (its document is ``visible``; every other tab's is ``hidden``)."""
    shown = [
        page["url"]
        for page in devtools_pages(port)
        if on_computer.evaluate(page["webSocketDebuggerUrl"], "document.visibilityState", 5) == "visible"
    ]
    assert len(shown) == 1, shown
    return str(shown[0])


@pytest.mark.parametrize(("scheme", "expected"), [(None, "system"), (2, "dark"), (1, "light")], indirect=["scheme"])
def test_appearance_mode_is_the_settings_pages_and_the_agents_tab_stays_active(
    scheme: int | None, expected: str, ctx: Context, chromium: int, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh profile is "system", not OSWorld's "light" (its probe takes extensions.theme.system_theme 0,
    which a fresh profile has, for light). The page is read, not the file; our tab is gone after, and the
    tab the agent had in front is in front still (closing a tab opened in front would show its neighbour)."""

    async def no_file(ctx: Context) -> str:
        raise AssertionError("the settings page answered: the Preferences file is not read")

    monkeypatch.setattr(chrome, "_scheme_from_preferences", no_file)
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/a.html", f"{site}/b.html"]}))
    first = next(p for p in devtools_pages(chromium) if p["url"] == f"{site}/a.html")
    urllib.request.urlopen(f"http://127.0.0.1:{chromium}/json/activate/{first['id']}", timeout=5).close()
    assert visible_page(chromium) == f"{site}/a.html"
    assert getter(ctx, {"type": "chrome_appearance_mode_ui"}) == expected
    assert sorted(p["url"] for p in devtools_pages(chromium)) == [f"{site}/a.html", f"{site}/b.html"]
    assert visible_page(chromium) == f"{site}/a.html"


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Chrome profile folder the profile getters read (OSWorld's is /home/user/.config/google-chrome/Default)."""
    folder = tmp_path / "chrome-profile" / "Default"
    folder.mkdir(parents=True)
    monkeypatch.setattr(getters, "CHROME_PROFILES", (str(folder),))
    return folder


def test_appearance_mode_falls_back_to_the_preferences_file(
    ctx: Context, profile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chrome, "DEVTOOLS_PORTS", (free_port(),))  # no Chrome: the file, as OSWorld's
    monkeypatch.setattr(chrome, "PREFERENCES_INTERVAL", 0.0)
    config = {"type": "chrome_appearance_mode_ui"}
    assert getter(ctx, config) == "system"  # no file: OSWorld's answer
    prefs = profile / "Preferences"
    for theme, expected in [
        ({"color_scheme2": 1, "color_scheme": 2}, "light"),  # the newer key wins
        ({"color_scheme": 2}, "dark"),
        ({"color_scheme2": "Dark"}, "dark"),
        ({}, "system"),
    ]:
        prefs.write_text(json.dumps({"browser": {"theme": theme}}))
        assert getter(ctx, config) == expected, theme
    # A fresh profile's classic theme is no choice of light (OSWorld's fallback says "light" here).
    prefs.write_text(json.dumps({"extensions": {"theme": {"system_theme": 0}}}))
    assert getter(ctx, config) == "system"

    # Chrome there, but its settings page shows no scheme (a Chrome without that menu): the file too.
    async def no_mode(ctx: Context, op: str, wait: float, **args: Any) -> dict[str, Any]:
        assert op == "color_scheme"
        return {"port": 1337, "mode": None}

    monkeypatch.setattr(chrome, "_devtools", no_mode)
    prefs.write_text(json.dumps({"browser": {"theme": {"color_scheme2": 2}}}))
    assert getter(ctx, config) == "dark"


def test_the_settings_probe_gives_none_and_closes_its_tab_when_the_page_shows_no_scheme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed: list[str] = []
    monkeypatch.setattr(on_computer, "background_tab", lambda port, url: "T1")
    monkeypatch.setattr(on_computer, "close_tab", lambda port, target: closed.append(target))
    monkeypatch.setattr(on_computer, "tabs", lambda port: [])
    monkeypatch.setattr(on_computer, "wait_loaded", lambda ws_url, timeout, url: True)
    monkeypatch.setattr(on_computer, "evaluate", lambda ws_url, expression, timeout: None)
    assert on_computer.color_scheme(9, load_timeout=1.0, probe_timeout=0.3) is None
    assert closed == ["T1"]
    answers = iter([None, 2])  # unset until Chrome tells the page, then its value
    monkeypatch.setattr(on_computer, "evaluate", lambda ws_url, expression, timeout: next(answers))
    assert on_computer.color_scheme(9, load_timeout=1.0, probe_timeout=5.0) == 2
    assert closed == ["T1", "T1"]


SHOP = """<!DOCTYPE html><title>Shop</title><body>
<div class="where">Boston Logan Intl Airport</div><div class="where">  BOS  </div>
<div class="route">SEA<div class="sep"></div>NYC <span>not direct</span></div><div class="route">LAX</div>
<div class="slot"><h3>Apply for a pass</h3><p>x</p></div><div class="slot"><p>no heading</p></div>
<div class="slot"><h3> October 06, 10:15 AM </h3></div>
<span class="chip">Black</span><span class="chip">On sale</span><span class="chip">Refurbished</span>
<ul class="crumbs"><li class="catAllProducts"><span>Spider-Man</span></li><li class="catAllProducts"><span>Toys</span>
</li><li class="other"><span>Kids</span></li></ul>
<div class="host"></div>
<form><div><input id="name" value=""><input id="mail" value="preset@x.org"></div></form>
<script>document.querySelector('.host').attachShadow({mode: 'open'}).innerHTML = '<b class="where">In shadow</b>';
</script></body>"""


def test_active_tab_html_parse_reads_the_agents_own_tab(ctx: Context, chromium: int, site: str, tmp_path: Path) -> None:
    (tmp_path / "site" / "shop.html").write_text(SHOP)
    steps(ctx, ("chrome_open_tabs", {"urls_to_open": [f"{site}/shop.html?q=Women,Jerseys"]}))
    tab = next(p for p in devtools_pages(chromium) if "/shop.html" in p["url"])
    # What the agent typed is in its tab only: a page loaded afresh would not have it.
    on_computer.evaluate(tab["webSocketDebuggerUrl"], "document.getElementById('name').value = ' James Smith '", 5)
    assert isinstance(ctx.session, LocalShell)
    ctx.session.tree = [chrome_window(site.removeprefix("http://") + "/shop.html?q=Women%2CJerseys")]
    base = {"type": "active_tab_html_parse", "goto_prefix": "http://"}

    values = getter(ctx, {**base, "category": "class",
        "class_multiObject": {"where": {"0": "start", "1": "end", "2": "shadow", "3": "missing"}},
        "class_multiObject_child": {"route": {"0": "from", "1": "to", "2": "beyond"}},
        "class_multiObject_only_child": {"slot": {"0": "content", "1": "time", "2": "none"}},
        "class_multiObject_search_exist": {"chip": ["Black", "On sale", "$25 - $60", "is_other_exist"]},
        "class_singleObject": {"chip": "first_chip", "absent-class": "nothing"},
    })  # fmt: skip
    assert values == {
        "start": "Boston Logan Intl Airport", "end": "BOS", "shadow": "In shadow", "missing": "",  # pierces shadow
        "from": "SEA", "to": "NYC", "beyond": "",  # the first element's own text nodes
        "content": "Apply for a pass", "time": "October 06, 10:15 AM", "none": "",  # elements with no h3 skipped
        "Black": True, "On sale": True, "$25 - $60": False, "is_other_exist": True,  # Refurbished
        "first_chip": "Black", "nothing": "",
    }  # fmt: skip
    xpath = getter(ctx, {**base, "category": "xpath", "xpathObject": {
        "/html/body/div[1]": "first", "//ul[@class='crumbs']/li[3]": "third", "/html/body/div[99]": "gone",
        "//div[": "broken",
    }})  # fmt: skip
    assert xpath == {"first": "Boston Logan Intl Airport", "third": "Kids", "gone": "", "broken": ""}
    inputs = getter(ctx, {**base, "category": "input", "inputObject": {
        "/html/body/form/div/input[1]": "name", "/html/body/form/div/input[2]": "mail",
        "/html/body/div[1]": "not_an_input", "/html/body/form/div/input[9]": "gone",
    }})  # fmt: skip
    assert inputs == {"name": "James Smith", "mail": "preset@x.org", "not_an_input": "", "gone": ""}
    listed = getter(ctx, {**base, "category": "class&url",
        "class_multiObject_li": {"crumbs": ["Spider-Man", "Toys", "Kids"]},
        "url_include_expected": ["women", "nike"],
        "url_include_expected_multichoice": {"Jerseys": "jerseys", "Kids": "kids", "S=4": "Price Low-High"},
    })  # fmt: skip
    # Only li.catAllProducts count: Kids (li.other) is not shown, so the URL decides it (and says no).
    assert listed == {"spider-man": True, "toys": True, "is_other_exist": False, "women": True, "nike": False,
                      "jerseys": True, "kids": False, "price low-high": False}  # fmt: skip
    from cua_bench_osworld.official import official_metrics

    check = official_metrics().get("check_direct_json_object")
    if check is not None:  # desktop-env installed: its own metric reads what we give
        assert check(inputs, {"expected": {"name": "James Smith", "mail": "preset@x.org"}}) == 1.0
        assert check(listed, {"expected": {"spider-man": True, "toys": True, "kids": True}}) == 0.0
    # No open tab shows the address bar's URL: OSWorld's {}; no address bar: None.
    ctx.session.tree = [chrome_window(site.removeprefix("http://") + "/elsewhere.html")]
    assert getter(ctx, {**base, "category": "class", "class_singleObject": {"chip": "x"}}) == {}
    ctx.session.tree = []
    assert getter(ctx, {**base, "category": "class", "class_singleObject": {"chip": "x"}}) is None
    assert [p["url"] for p in devtools_pages(chromium)] == [tab["url"]]  # nothing opened, nothing closed


def test_active_tab_html_parse_without_chrome_or_with_an_unknown_category(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chrome, "DEVTOOLS_PORTS", (free_port(),))
    assert isinstance(ctx.session, LocalShell)
    ctx.session.tree = [chrome_window("example.com/")]
    config = {"type": "active_tab_html_parse", "category": "class", "class_singleObject": {"a": "b"}}
    with pytest.raises(PlatformError, match="no Chrome answered on DevTools port"):
        getter(ctx, config)  # Chrome runs (its address bar is there) but does not answer: the computer's fault
    with pytest.raises(TaskSkipped, match="label"):
        getter(ctx, {"type": "active_tab_html_parse", "category": "label", "labelObject": {"Price": "price"}})
    assert (
        chrome_pages.html_values({"category": "table"}, chrome_pages._Answers([], []), "https://x") == {}
    )  # OSWorld's {}


def test_url_path_parse_reads_macys_filter_path(ctx: Context) -> None:
    assert isinstance(ctx.session, LocalShell)
    config = {"type": "url_path_parse", "goto_prefix": "https://www.",
              "parse_keys": ["mens_clothing", "shirts", "Men_regular_size_t", "Price_discount_range", "short_sleeve"]}  # fmt: skip
    filters = "Men_regular_size_t,Price_discount_range,Sleeve_length/L,50_PERCENT_%20off%20%26%20more,Short%20Sleeve"
    ctx.session.tree = [chrome_window(f"macys.com/shop/mens-clothing/mens-casual-shirts/{filters}?id=20635")]
    expected = {"mens_clothing": True, "shirts": True, "Men_regular_size_t": "L",
                "Price_discount_range": "50_PERCENT_ off & more", "short_sleeve": True}  # fmt: skip
    assert getter(ctx, config) == expected  # task 2888b4e6's expected value
    several = (
        "Price_discount_range,Product_department/30_PERCENT_%20off%20%26%20more|50_PERCENT_%20off%20%26%20more,Shirts"
    )
    ctx.session.tree = [chrome_window(f"macys.com/shop/mens-clothing/{several}")]
    assert getter(ctx, config) == {"mens_clothing": True, "shirts": True, "short_sleeve": None,
                                   "Men_regular_size_t": None, "Price_discount_range": "not_50_PERCENT_ off & more"}  # fmt: skip
    ctx.session.tree = [chrome_window("macys.com/shop/womens-clothing")]  # OSWorld's substring test: mens-clothing
    assert getter(ctx, config)["mens_clothing"] is True
    ctx.session.tree = [chrome_window("macys.com/shop/kids-clothes")]
    assert getter(ctx, config) == {"mens_clothing": None, "shirts": None, "short_sleeve": None,
                                   "Men_regular_size_t": None, "Price_discount_range": "not_50_PERCENT_ off & more"}  # fmt: skip
    ctx.session.tree = []
    assert getter(ctx, config) is None


def devtools_targets(port: int) -> list[dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
            return list(json.loads(response.read()))
    except OSError:
        return []  # not listening yet


def test_extension_getters_read_a_real_chromium_profile(ctx: Context, profile: Path, tmp_path: Path) -> None:
    """Chromium (156) keeps every extension's folder in Preferences, and the manifest of packed ones only."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but chromium is not installed (scripts/system-deps.sh installs it)")
        pytest.skip("chromium is not installed")
    assert getter(ctx, {"type": "find_unpacked_extension_path"}) == "Google"  # no Preferences: OSWorld's
    extension = tmp_path / "helloExtension"
    extension.mkdir()
    manifest = {"manifest_version": 3, "name": "Hello", "version": "1.0", "background": {"service_worker": "sw.js"}}
    (extension / "manifest.json").write_text(json.dumps(manifest))
    (extension / "sw.js").write_text("")  # a DevTools target once the extension is loaded
    port = free_port()
    proc = subprocess.Popen(
        [CHROMIUM, "--headless=new", f"--user-data-dir={profile.parent}", f"--load-extension={extension}",
         f"--remote-debugging-port={port}", "--no-first-run", "--no-default-browser-check", "--disable-gpu",
         "--no-sandbox", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not any(t["url"].endswith("/sw.js") for t in devtools_targets(port)):
            assert proc.poll() is None and time.monotonic() < deadline, "Chromium never loaded the extension"
            time.sleep(0.2)
    finally:
        # Chromium writes Preferences as it quits: the browser alone is told to (1 in 12 runs that signalled
        # its whole group, the browser died before writing), then whatever is left goes.
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    paths = getter(ctx, {"type": "find_unpacked_extension_path"})
    assert str(extension) in paths and len(paths) >= 2  # and Chromium's own PDF viewer
    assert getter(ctx, {"type": "find_installed_extension_name"}) == "Google"  # the unpacked one has no manifest
    from cua_bench_osworld.metrics import is_in_list

    assert is_in_list(paths, {"expected": str(extension)}) == 1.0
    assert is_in_list("Google", {"expected": str(extension)}) == 0.0


def test_installed_extension_names_come_from_the_manifests_in_preferences(ctx: Context, profile: Path) -> None:
    settings = {
        "mhjfbmdgcfjbbpaeojofohoefgiehjai": {"path": "/usr/lib/chromium/resources/pdf", "manifest": {"name": "PDF"}},
        "aapbdbdomjkkjkaonfhkkikfgjllcleb": {"path": "aapb/2.0_0", "manifest": {"name": "Google Translate"}},
    }
    (profile / "Preferences").write_text(json.dumps({"extensions": {"settings": settings}}))
    names = getter(ctx, {"type": "find_installed_extension_name"})
    assert names == ["PDF", "Google Translate"]
    assert getter(ctx, {"type": "find_unpacked_extension_path"}) == ["/usr/lib/chromium/resources/pdf", "aapb/2.0_0"]
    from cua_bench_osworld.official import official_metrics

    metric = official_metrics().get("is_expected_installed_extensions")
    if metric is not None:
        assert metric(names, {"expected": ["Google Translate"]}) == 1.0
        assert metric(names, {"expected": ["Google Translate", "Momentum"]}) == 0.0
    (profile / "Preferences").write_text(json.dumps({"extensions": []}))  # not Chrome's shape: OSWorld's fallback
    assert getter(ctx, {"type": "find_installed_extension_name"}) == "Google"
    (profile / "Preferences").write_text(json.dumps({}))
    assert getter(ctx, {"type": "find_installed_extension_name"}) == []


def test_fixture_tasks_using_the_new_chrome_getters_are_no_longer_skipped_for_them(shared_fixtures: Path) -> None:
    tasks = load_tasks(shared_fixtures / "osworld") + load_tasks(shared_fixtures / "osworld_more")
    users = {name: [t for t in tasks if any(g["type"] == name for g in t.evaluator.getters())] for name in NEW_NAMES}
    assert {name: len(found) for name, found in users.items()} == {
        "chrome_appearance_mode_ui": 1, "active_tab_html_parse": 9, "url_path_parse": 1,
        "find_unpacked_extension_path": 2, "find_installed_extension_name": 1,
    }  # fmt: skip
    for task in {t.path: t for found in users.values() for t in found}.values():
        support = check_support(task, official=frozenset(), mirror=None)
        assert not [r for r in support.reasons if r.rsplit(": ", 1)[-1] in NEW_NAMES], (task.path, support.reasons)
    # Those that read a page run python3 on the computer; those that read the profile or the address bar do not.
    assert {n for n in NEW_NAMES if n in SHELL_GETTERS} == {
        "chrome_appearance_mode_ui",
        "active_tab_html_parse",
    }
