"""OSWorld's Chrome tab steps and getters, over Chrome's DevTools HTTP endpoints on the computer.

OSWorld's tasks start Chrome with ``--remote-debugging-port=1337`` and forward 9222 to it with socat;
its host drives Chrome with Playwright over 9222. We ask the computer itself (``on_computer.py``),
which reaches 1337 whether or not socat runs, then 9222 (a Chrome started on that port by hand).

Where OSWorld's code gives a fallback (``[]`` when Chrome cannot be reached even after starting it
again, ``None`` when the active tab's URL is not in the accessibility tree) so do these; where it
raises (setup that never reaches Chrome), so do these, as a ``PlatformError``. Differences that
HTTP imposes: a tab's title and URL are read as they are when asked (Playwright first waits for the
network to go idle), and ``active_tab_info`` loads the URL in a tab of Chrome's own profile (Playwright's
``browser.new_page()`` makes a fresh context, without the profile's cookies).

The getters of Chrome's profile (its colour scheme, its extensions) read the Preferences file through the
Session, as ``getters.py``'s other profile getters do.
"""

from __future__ import annotations

import asyncio
import functools
import math
import re
import shlex
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import ParseResult, parse_qs, urlparse, urlunparse

from cua_bench.nodes import walk
from cua_bench_osworld.loader import PlatformError
from cua_bench_osworld.remote import on_computer

if TYPE_CHECKING:
    from cua_bench_osworld.config import Context

__all__ = ["CHROME_GETTERS", "CHROME_STEPS", "DEVTOOLS_PORTS", "active_url", "compare_urls"]

DEVTOOLS_PORTS = (1337, 9222)  # the port OSWorld's tasks give Chrome, then the one OSWorld's host uses
# The app names OSWorld's selector looks for: Google Chrome on x86, Chromium on ARM (and our docker
# image's google-chrome, which is Chromium).
CHROME_APPS = ("Google Chrome", "Chromium")
ADDRESS_BAR = "Address and search bar"
_CHROME_CLASSES = ("chromium", "google-chrome", "google chrome")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+\-.]*://")


async def _devtools(ctx: Context, op: str, wait: float, **args: Any) -> dict[str, Any]:
    """``op`` on the computer, polling ``wait`` seconds for Chrome; given time to load each page too (and
    to probe it, ``probe_timeout``)."""
    pages = max(1, len(args.get("urls", ())))
    return await on_computer(
        ctx.session,
        {"op": op, "ports": list(DEVTOOLS_PORTS), "wait": wait, "load_timeout": ctx.page_timeout, **args},
        timeout=ctx.command_timeout + wait + ctx.page_timeout * pages + float(args.get("probe_timeout", 0)),
    )


def _unreachable(what: str, wait: float) -> PlatformError:
    ports = " or ".join(str(p) for p in DEVTOOLS_PORTS)
    return PlatformError(
        f"{what}: no Chrome answered on DevTools port {ports} in {wait:g} s (OSWorld's tasks start it with "
        "google-chrome --remote-debugging-port=1337 in a launch step)"
    )


# -- steps ----------------------------------------------------------------------------------------


async def _chrome_open_tabs(ctx: Context, urls_to_open: list[str], **_: Any) -> None:
    answer = await _devtools(ctx, "open", ctx.chrome_wait, urls=list(urls_to_open))
    if answer["port"] is None:  # OSWorld retries for 75 s, then raises
        raise _unreachable("chrome_open_tabs", ctx.chrome_wait)


async def _chrome_close_tabs(ctx: Context, urls_to_close: list[str], **_: Any) -> None:
    await asyncio.sleep(ctx.close_delay)  # OSWorld waits 5 s for Chrome to finish starting
    answer = await _devtools(ctx, "tabs", ctx.chrome_wait)
    if answer["port"] is None:
        raise _unreachable("chrome_close_tabs", ctx.chrome_wait)
    tabs: list[dict[str, Any]] = list(answer["tabs"])
    closing = []
    for url in urls_to_close:  # the first open tab with the same URL, once per URL, as OSWorld's
        for tab in tabs:
            if compare_urls(str(tab["url"]), url):
                closing.append(tab["id"])
                tabs.remove(tab)
                break
    if closing:
        await on_computer(ctx.session, {"op": "close", "ports": [answer["port"]], "ids": closing}, ctx.command_timeout)


CHROME_STEPS: dict[str, Callable[..., Awaitable[None]]] = {
    "chrome_open_tabs": _chrome_open_tabs,
    "chrome_close_tabs": _chrome_close_tabs,
}


# -- getters --------------------------------------------------------------------------------------


async def _relaunch(ctx: Context) -> None:
    """OSWorld's getters start Chrome again (on 1337) when they cannot reach it, then wait 5 s."""
    from cua_bench_osworld.config import missing_program

    if await missing_program(ctx.session, "google-chrome"):
        raise PlatformError("open_tabs_info: Chrome is not running and google-chrome is not on this computer")
    command = shlex.quote(f"google-chrome --remote-debugging-port={DEVTOOLS_PORTS[0]}")
    await ctx.session.run_command(f"nohup sh -c {command} >/dev/null 2>&1 &", timeout=ctx.command_timeout)


async def open_tabs_info(ctx: Context, config: dict[str, Any]) -> list[dict[str, str]]:
    """``[{"title", "url"}]`` for every tab; ``[]`` when Chrome answers not even after starting it again."""
    answer = await _devtools(ctx, "tabs", 0)
    if answer["port"] is None:
        await _relaunch(ctx)
        answer = await _devtools(ctx, "tabs", ctx.relaunch_wait)
        if answer["port"] is None:
            return []
    return [{"title": str(tab["title"]), "url": str(tab["url"])} for tab in answer["tabs"]]


async def active_url(ctx: Context, config: dict[str, Any]) -> str | None:
    """``goto_prefix`` + the text of Chrome's address bar in the accessibility tree (OSWorld's selector
    ``application[name=Google Chrome] entry[name=Address and search bar]``); None when there is none."""
    nodes = await ctx.session.accessibility_tree()
    windows = [n for n in nodes if str(n.get("app") or n.get("name") or "") in CHROME_APPS]
    bars = [n for n in walk(windows) if n.get("role") == "entry" and n.get("name") == ADDRESS_BAR]
    if not bars:
        # A window AT-SPI does not know keeps the window manager's class as its app ("chromium").
        chrome = [n for n in nodes if str(n.get("app") or "").lower().startswith(_CHROME_CLASSES)]
        if chrome and not any(n.get("children") for n in chrome):
            # Chrome's windows are there but show no widgets: the accessibility bus does not reach
            # it, which is the computer's fault, not a URL the agent left empty.
            raise PlatformError(
                "active_url_from_accessTree: Chrome's windows expose no accessibility tree (Chromium shows its "
                "widgets on the AT-SPI bus when started with ACCESSIBILITY_ENABLED=1 and "
                "--force-renderer-accessibility, as the docker osworld image's google-chrome is)"
            )
        return None
    if not bars[-1].get("value"):  # OSWorld checks the last match, then reads the first
        return None
    return f"{config.get('goto_prefix', 'https://')}{bars[0].get('value')}"


async def active_tab_info(ctx: Context, config: dict[str, Any]) -> dict[str, str] | None:
    """``{"title", "url", "content"}`` of the active tab's URL loaded afresh (``title`` is "Load timeout"
    when it did not load in time); None without an address bar or a reachable Chrome."""
    url = await active_url(ctx, config)
    if url is None:
        return None
    answer = await _devtools(ctx, "page", 0, url=url)
    if answer["port"] is None:  # OSWorld does not start Chrome here: the active tab is gone
        return None
    page: dict[str, Any] = answer["page"]
    title = "Load timeout" if page.get("timeout") else str(page.get("title", ""))
    return {"title": title, "url": str(page.get("url", url)), "content": str(page.get("content", ""))}


async def active_tab_url_parse(ctx: Context, config: dict[str, Any]) -> dict[str, Any] | None:
    """The active tab URL's query values for ``parse_keys`` ("" when absent), renamed by ``replace``,
    split on commas with ``split_list``; None without an address bar."""
    url = await active_url(ctx, config)
    if url is None:
        return None
    query = parse_qs(urlparse(url).query)
    values: dict[str, Any] = {key: query.get(key, [""])[0] for key in config["parse_keys"]}
    for old, new in dict(config.get("replace", {})).items():
        values[new] = values.pop(old)
    if config.get("split_list", False):
        values = {key: value.split(",") for key, value in values.items()}
    return values


# -- Chrome's profile -----------------------------------------------------------------------------

COLOR_SCHEMES = {0: "system", 1: "light", 2: "dark"}  # browser.theme.color_scheme(2): 0 follows the device
SETTINGS_PROBE_WAIT = 10.0  # seconds the settings page gets, once loaded, to show the scheme Chrome has
# OSWorld reads the Preferences file up to five times, a second apart, until it says "light": Chrome
# writes the file a few seconds after a change.
PREFERENCES_READS = 5
PREFERENCES_INTERVAL = 1.0


_SCHEME_WORDS = {"system": "system", "default": "system", "0": "system", "light": "light", "1": "light",
                 "dark": "dark", "2": "dark"}  # fmt: skip


def _scheme_name(raw: Any) -> str | None:
    if isinstance(raw, str):
        return _SCHEME_WORDS.get(raw.strip().lower())
    if isinstance(raw, int | float) and math.isfinite(raw):  # a bool is an int here too, as in OSWorld's
        return COLOR_SCHEMES.get(int(raw))
    return None


def scheme_in_preferences(prefs: dict[str, Any]) -> str | None:
    """The scheme Chrome's Preferences name (``color_scheme2``, else the older ``color_scheme``; "system"
    when neither says); None when the file's shape is not Chrome's. ``extensions.theme.system_theme`` is
    not read: OSWorld's getter takes its 0 for "light", and a fresh profile has that 0 (Chromium's
    classic theme, not the GTK one), so an agent that did nothing would pass."""
    try:
        theme = prefs.get("browser", {}).get("theme", {})
        return _scheme_name(theme.get("color_scheme2", theme.get("color_scheme"))) or "system"
    except AttributeError:
        return None


async def _scheme_from_preferences(ctx: Context) -> str:
    from cua_bench_osworld.getters import _preferences

    mode = "system"  # OSWorld's answer when no profile has a Preferences file it can read
    for attempt in range(PREFERENCES_READS):
        prefs = await _preferences(ctx)
        found = None if prefs is None else scheme_in_preferences(prefs)
        if found is not None:
            mode = found
        if mode == "light" or attempt + 1 == PREFERENCES_READS:
            return mode
        await asyncio.sleep(PREFERENCES_INTERVAL)
    return mode


async def chrome_appearance_mode_ui(ctx: Context, config: dict[str, Any]) -> str:
    """The Mode chrome://settings/appearance shows ("light", "dark" or "system"), read in a tab opened in the
    background and closed after (the agent's active tab stays active, for ``active_url_from_accessTree``);
    from the Preferences file when Chrome does not answer or its page shows none, as OSWorld's.

    Where OSWorld's differs: its page probe and its file fallback both take ``extensions.theme.system_theme``
    0 for "light", which a fresh profile has (see ``scheme_in_preferences``); its probe also reads the text of
    any selected control, and the Mode menu shows "Light" until Chrome has told the page the real scheme.
    Ours reads the page's own value, which is unset until then, and waits for it."""
    answer = await _devtools(ctx, "color_scheme", 0, probe_timeout=SETTINGS_PROBE_WAIT)
    mode = answer.get("mode") if answer["port"] is not None else None
    if mode in COLOR_SCHEMES:
        return COLOR_SCHEMES[mode]
    return await _scheme_from_preferences(ctx)


NO_PREFERENCES = "Google"  # what OSWorld's extension getters give when they cannot read the profile


async def _each_extension(ctx: Context, field: Callable[[Any], Any]) -> list[Any] | str:
    """``field`` of every extension Chrome's Preferences list (``extensions.settings``); OSWorld's "Google"
    when the file is missing or any extension lacks the field."""
    from cua_bench_osworld.getters import _preferences

    prefs = await _preferences(ctx)
    if prefs is None:
        return NO_PREFERENCES
    try:
        return [field(settings) for settings in prefs.get("extensions", {}).get("settings", {}).values()]
    except (AttributeError, KeyError, TypeError):
        return NO_PREFERENCES


async def find_unpacked_extension_path(ctx: Context, config: dict[str, Any]) -> list[Any] | str:
    """The folder of every extension (component ones included), for ``is_in_list``."""
    return await _each_extension(ctx, lambda settings: settings["path"])


async def find_installed_extension_name(ctx: Context, config: dict[str, Any]) -> list[Any] | str:
    """The manifest name of every extension. Chrome keeps the manifest in Preferences for packed ones
    (the web store's, component ones) only, so one loaded unpacked makes this "Google", as OSWorld's."""
    return await _each_extension(ctx, lambda settings: settings["manifest"]["name"])


CHROME_GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "open_tabs_info": open_tabs_info,
    "active_tab_info": active_tab_info,
    "active_tab_url_parse": active_tab_url_parse,
    "active_url_from_accessTree": active_url,
    "chrome_appearance_mode_ui": chrome_appearance_mode_ui,
    "find_unpacked_extension_path": find_unpacked_extension_path,
    "find_installed_extension_name": find_installed_extension_name,
}


# -- URLs -----------------------------------------------------------------------------------------


def compare_urls(first: str, second: str) -> bool:
    """OSWorld's ``compare_urls``: equal once the scheme is lower case, a lone ``www`` subdomain and the
    public suffix are dropped (airbnb.com is airbnb.com.sg) and a bare ``/`` path is empty."""
    return _normal(first) == _normal(second)


@functools.cache
def _suffixes() -> Callable[[str], Any]:
    try:
        import tldextract
    except ImportError as exc:
        raise PlatformError(
            "comparing URLs as OSWorld does needs tldextract: pip install 'cua-bench[osworld]'"
        ) from exc
    # The suffix list shipped with tldextract: the answer must not depend on the network.
    extract: Callable[[str], Any] = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    return extract


def _normal(url: str) -> str:
    parsed = urlparse(url if _SCHEME.match(url) else f"http://{url}")
    parts = _suffixes()(parsed.netloc.lower())
    subdomain = "" if parts.subdomain == "www" else parts.subdomain
    netloc = f"{subdomain}.{parts.domain}" if subdomain else parts.domain
    path = "" if parsed.path == "/" else parsed.path
    return urlunparse(ParseResult(parsed.scheme.lower(), netloc, path, parsed.params, parsed.query, parsed.fragment))
