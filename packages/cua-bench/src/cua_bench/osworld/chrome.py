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
"""

from __future__ import annotations

import asyncio
import functools
import re
import shlex
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import ParseResult, parse_qs, urlparse, urlunparse

from cua_bench.osworld.loader import PlatformError
from cua_bench.osworld.remote import on_computer
from cua_bench.session import walk

if TYPE_CHECKING:
    from cua_bench.osworld.config import Context

__all__ = ["CHROME_GETTERS", "CHROME_STEPS", "DEVTOOLS_PORTS", "active_url", "compare_urls"]

DEVTOOLS_PORTS = (1337, 9222)  # the port OSWorld's tasks give Chrome, then the one OSWorld's host uses
# The app names OSWorld's selector looks for: Google Chrome on x86, Chromium on ARM (and our docker
# image's google-chrome, which is Chromium).
CHROME_APPS = ("Google Chrome", "Chromium")
ADDRESS_BAR = "Address and search bar"
_CHROME_CLASSES = ("chromium", "google-chrome", "google chrome")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+\-.]*://")


async def _devtools(ctx: Context, op: str, wait: float, **args: Any) -> dict[str, Any]:
    """``op`` on the computer, polling ``wait`` seconds for Chrome; given time to load each page too."""
    pages = max(1, len(args.get("urls", ())))
    return await on_computer(
        ctx.session,
        {"op": op, "ports": list(DEVTOOLS_PORTS), "wait": wait, "load_timeout": ctx.page_timeout, **args},
        timeout=ctx.command_timeout + wait + ctx.page_timeout * pages,
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
    from cua_bench.osworld.config import missing_program

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


CHROME_GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "open_tabs_info": open_tabs_info,
    "active_tab_info": active_tab_info,
    "active_tab_url_parse": active_tab_url_parse,
    "active_url_from_accessTree": active_url,
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
