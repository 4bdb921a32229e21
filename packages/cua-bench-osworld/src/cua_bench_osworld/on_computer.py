"""The program OSWorld's browser and VLC getters run on the computer, with its ``python3`` (standard library only).

OSWorld's host reaches Chrome's DevTools port (9222, forwarded by socat to the 1337 its tasks start
Chrome with) and VLC's web interface (8080) over the VM's network. Our env server may sit outside the
computer's network (a container, a VM, another user's namespace), so the HTTP happens where the apps
are: ``on_computer`` in ``remote.py`` sends this file as ``python3 -c SOURCE ARGS`` and reads one JSON line.
Playwright is not on OSWorld's images nor ours, hence DevTools' HTTP endpoints and, for the little
that needs a page's own answer (its load state, its HTML, what it shows) or the browser's (a tab opened
in the background), a bare WebSocket client.

Never imported by the package; it is its own program, kept here as Python so ruff and mypy read it.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

# OSWorld's "blank tab" URLs, and the new tab page of a Chromium whose search engine is not Google's.
BLANK = ("about:blank", "chrome://newtab/", "chrome://new-tab-page/", "chrome://new-tab-page-third-party/", "")


def http(url: str, method: str = "GET", auth: str | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    """(status, body); an HTTP error status is an answer, a refused connection raises OSError."""
    request = urllib.request.Request(url, method=method)
    if auth is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read())


def devtools_port(ports: list[int], wait: float) -> int | None:
    """The first of ``ports`` where Chrome answers ``/json/version``, polling for ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        for port in ports:
            try:
                status, _ = http(f"http://127.0.0.1:{port}/json/version", timeout=2)
            except OSError:
                continue
            if status == 200:
                return port
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.5)


def tabs(port: int) -> list[dict[str, Any]]:
    """Chrome's tabs (``page`` targets, most recently used first): id, title and url."""
    _, body = http(f"http://127.0.0.1:{port}/json/list")
    return [
        {"id": t["id"], "title": t.get("title", ""), "url": t.get("url", "")}
        for t in json.loads(body)
        if t.get("type") == "page"
    ]


def new_tab(port: int, url: str) -> dict[str, Any]:
    """A new tab loading ``url`` (PUT: Chrome refuses a GET ``/json/new`` since version 111)."""
    status, body = http(f"http://127.0.0.1:{port}/json/new?{urllib.parse.quote(url, safe='')}", method="PUT")
    if status != 200:
        raise OSError(f"/json/new answered {status}: {body[:200]!r}")
    target: dict[str, Any] = json.loads(body)
    return target


def close_tab(port: int, target: str) -> None:
    """Close a tab, and return once it is gone: Chrome answers /json/close first, and a getter right
    after (a test on a loaded machine, OSWorld's next getter) would still find it."""
    http(f"http://127.0.0.1:{port}/json/close/{target}")
    deadline = time.monotonic() + 5
    while any(t["id"] == target for t in tabs(port)) and time.monotonic() < deadline:
        time.sleep(0.05)


def _frame(payload: bytes) -> bytes:
    """One masked text frame, as a client must send."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x81, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x81, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def evaluate(ws_url: str, expression: str, timeout: float) -> Any:
    """``Runtime.evaluate`` on one page over its WebSocket; the value, or None when the page has none."""
    reply = call(ws_url, "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout)
    return reply.get("result", {}).get("result", {}).get("value")


def call(ws_url: str, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One DevTools command over a target's WebSocket (a page's, or the browser's): its whole reply."""
    address, _, path = ws_url.removeprefix("ws://").partition("/")
    host, _, port = address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            f"GET /{path} HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        stream = sock.makefile("rb")
        status = stream.readline()
        if b" 101 " not in status:
            raise OSError(f"DevTools refused the WebSocket: {status!r}")
        while stream.readline() not in (b"\r\n", b""):
            pass
        sock.sendall(_frame(json.dumps({"id": 1, "method": method, "params": params}).encode()))
        message = b""
        while True:
            first, second = stream.read(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack("!H", stream.read(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", stream.read(8))[0]
            payload = stream.read(size)
            opcode = first & 0x0F
            if opcode == 8:
                raise OSError("DevTools closed the WebSocket")
            if opcode not in (0, 1):
                continue  # ping, pong, binary: nothing DevTools answers with
            message += payload
            if first & 0x80:
                reply = json.loads(message)
                message = b""
                if reply.get("id") == 1:
                    answer: dict[str, Any] = reply
                    return answer


# The page's HTML as Playwright's ``page.content()`` gives it: the doctype, then the document.
_CONTENT = (
    "JSON.stringify({title: document.title, url: location.href, content: (document.doctype ? "
    "new XMLSerializer().serializeToString(document.doctype) : '') + "
    "(document.documentElement ? document.documentElement.outerHTML : '')})"
)


def wait_loaded(ws_url: str, timeout: float, url: str) -> bool:
    """Whether the page navigated to ``url`` reached ``readyState == complete`` (its load event) within
    ``timeout``. A new tab holds an about:blank document, already complete, until the navigation
    commits: that one does not count (its empty title was read as the page's)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = json.loads(evaluate(ws_url, "JSON.stringify([document.readyState, location.href])", timeout=5))
            if state[0] == "complete" and (state[1] not in BLANK or url in BLANK):
                return True
        except (OSError, ValueError, TypeError):
            pass  # the page is between documents
        time.sleep(0.3)
    return False


def open_tabs(port: int, urls: list[str], load_timeout: float) -> list[str]:
    """OSWorld's ``chrome_open_tabs``: a tab per URL, each waited for; the blank tabs a fresh Chrome
    starts with are closed when no real page was open before."""
    before = tabs(port)
    blank = [t for t in before if t["url"] in BLANK]
    opened = []
    for url in urls:
        target = new_tab(port, url)
        opened.append(str(target["id"]))
        if target.get("webSocketDebuggerUrl"):
            wait_loaded(str(target["webSocketDebuggerUrl"]), load_timeout, url)  # OSWorld logs a slow page, goes on
    if len(blank) == len(before):
        for tab in blank:
            close_tab(port, str(tab["id"]))
    return opened


def page(port: int, url: str, load_timeout: float) -> dict[str, Any]:
    """OSWorld's ``active_tab_info``: ``url`` loaded in a tab of its own, its title, URL and HTML;
    ``{"timeout": True, ...}`` when it did not load in time. The tab is closed after."""
    target = new_tab(port, url)
    ws_url = str(target["webSocketDebuggerUrl"])
    try:
        loaded = wait_loaded(ws_url, load_timeout, url)
        info = json.loads(evaluate(ws_url, _CONTENT, timeout=30) or "{}")
        # The tab's URL as DevTools (and Playwright's page.url) has it: an error page's document is
        # at chrome-error://, its tab at the URL that failed.
        info["url"] = next((t["url"] for t in tabs(port) if t["id"] == target["id"]), info.get("url"))
        return {"timeout": not loaded, **info}
    finally:
        close_tab(port, str(target["id"]))


def background_tab(port: int, url: str) -> str:
    """The id of a new tab loading ``url`` that Chrome does not switch to (``Target.createTarget`` with
    ``background``). Closing it leaves the user's tab active; closing a tab opened in front (``/json/new``)
    activates its neighbour instead, which need not be the tab the user was on."""
    _, body = http(f"http://127.0.0.1:{port}/json/version")
    browser = str(json.loads(body)["webSocketDebuggerUrl"])
    reply = call(browser, "Target.createTarget", {"url": url, "background": True}, timeout=10)
    if "result" not in reply:
        raise OSError(f"Target.createTarget answered {reply.get('error')!r}")
    return str(reply["result"]["targetId"])


def page_socket(port: int, target: str) -> str:
    return f"ws://127.0.0.1:{port}/devtools/page/{target}"


SETTINGS_APPEARANCE = "chrome://settings/appearance"
# The colour scheme the settings page's Mode menu shows (0 device, 1 light, 2 dark), from the page's own
# property: it stays undefined until Chrome has told the page, while the menu shows its first item,
# "Light", so the menu is not read. (Chromium 156 keeps browser.theme.color_scheme* out of
# chrome.settingsPrivate: getPref answers that they do not exist.)
_COLOR_SCHEME = """(() => {
  const find = (root) => {
    const page = root.querySelector('settings-appearance-page');
    if (page) return page;
    for (const el of root.querySelectorAll('*')) {
      const inner = el.shadowRoot ? find(el.shadowRoot) : null;
      if (inner) return inner;
    }
    return null;
  };
  const page = find(document);
  const mode = page ? page.selectedColorSchemeMode_ : undefined;
  return [0, 1, 2].includes(mode) ? mode : null;
})()"""


def color_scheme(port: int, load_timeout: float, probe_timeout: float) -> int | None:
    """OSWorld's ``chrome_appearance_mode_ui`` reading: chrome://settings/appearance in a background tab,
    closed after; the scheme its page shows within ``probe_timeout`` of loading, or None."""
    target = background_tab(port, SETTINGS_APPEARANCE)
    ws_url = page_socket(port, target)
    try:
        if not wait_loaded(ws_url, load_timeout, SETTINGS_APPEARANCE):
            return None
        deadline = time.monotonic() + probe_timeout
        while True:
            try:
                mode = evaluate(ws_url, _COLOR_SCHEME, timeout=5)
            except (OSError, ValueError):
                mode = None
            if isinstance(mode, int) and not isinstance(mode, bool):
                return mode
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.2)
    finally:
        close_tab(port, target)


# What ``active_tab_html_parse`` reads in a page, as Playwright reads it for OSWorld: CSS that pierces open
# shadow roots (the light DOM's matches, then each shadow root's), XPath that does not, raw text that
# the host strips as Python does. Each query answers ``{"ok": value}`` or ``{"error": why}``.
_READ_PAGE = r"""(queries) => {
  const css = (scope, selector) => {
    const found = [];
    const query = (root) => {
      found.push(...root.querySelectorAll(selector));
      if (root.shadowRoot) query(root.shadowRoot);
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) query(el.shadowRoot);
    };
    query(scope);
    return [...new Set(found)];
  };
  const xpath = (expression) => {
    const nodes = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const found = [];
    for (let i = 0; i < nodes.snapshotLength; i++) {
      if (nodes.snapshotItem(i).nodeType === Node.ELEMENT_NODE) found.push(nodes.snapshotItem(i));
    }
    return found;
  };
  const fields = ['INPUT', 'TEXTAREA', 'SELECT'];
  const inputValue = (el) => {  // Playwright's input_value: a label stands for its control
    if (!fields.includes(el.nodeName) && !el.isContentEditable) {
      const label = el.closest('label');
      if (label && label.control) el = label.control;
    }
    if (!fields.includes(el.nodeName)) throw new Error('Node is not an <input>, <textarea> or <select> element');
    return el.value;
  };
  const kinds = {
    text: (s) => css(document, s).map((el) => el.textContent),
    direct_text: (s) => {
      const first = css(document, s)[0];
      if (!first) return [];
      return Array.from(first.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent.trim()).filter(Boolean);
    },
    li_span: (s) => css(document, s + ' li.catAllProducts').map((el) => css(el, 'span')[0]).filter(Boolean)
      .map((span) => span.innerText),
    h3: (s) => css(document, s).map((el) => css(el, 'h3')[0]).filter(Boolean).map((h) => h.textContent),
    xpath_text: (s) => { const first = xpath(s)[0]; return first ? first.textContent : null; },
    xpath_input: (s) => { const first = xpath(s)[0]; return first ? inputValue(first) : null; },
  };
  return JSON.stringify(queries.map((q) => {
    try { return {ok: kinds[q.kind](q.selector)}; } catch (e) { return {error: String(e)}; }
  }));
}"""


def same_page(first: str, second: str) -> bool:
    """OSWorld's match of a tab to the address bar's URL: equal once percent-decoded, without trailing ``/``."""
    return urllib.parse.unquote(first).rstrip("/") == urllib.parse.unquote(second).rstrip("/")


def read_tab(port: int, url: str, queries: list[dict[str, str]], load_timeout: float) -> dict[str, Any]:
    """OSWorld's ``active_tab_html_parse`` reading: ``queries`` answered in the open tab that shows ``url``
    (the most recently used, when several do), once it has loaded; ``{"found": False}`` when none does.
    The agent's own tab is read, not a copy loaded afresh: what it typed and chose is in that page only."""
    tab = next((t for t in tabs(port) if same_page(str(t["url"]), url)), None)
    if tab is None:
        return {"found": False}
    ws_url = page_socket(port, str(tab["id"]))
    wait_loaded(ws_url, load_timeout, str(tab["url"]))  # OSWorld waits for the network to go idle
    answers = json.loads(evaluate(ws_url, f"({_READ_PAGE})({json.dumps(queries)})", timeout=30) or "null")
    if not isinstance(answers, list):
        raise OSError(f"the tab at {tab['url']} gave no answers (it navigated away while being read?)")
    return {"found": True, "url": tab["url"], "answers": answers}


def main(args: dict[str, Any]) -> dict[str, Any]:
    op = args["op"]
    if op == "get":
        try:
            status, body = http(args["url"], auth=args.get("auth"), timeout=float(args.get("timeout", 10)))
        except OSError as error:
            return {"error": f"{type(error).__name__}: {error}"}
        return {"status": status, "body": base64.b64encode(body).decode()}
    port = devtools_port([int(p) for p in args["ports"]], float(args.get("wait", 0)))
    if port is None:
        return {"port": None}
    if op == "tabs":
        return {"port": port, "tabs": tabs(port)}
    if op == "open":
        return {"port": port, "opened": open_tabs(port, list(args["urls"]), float(args["load_timeout"]))}
    if op == "close":
        for target in args["ids"]:
            close_tab(port, str(target))
        return {"port": port, "closed": list(args["ids"])}
    if op == "page":
        return {"port": port, "page": page(port, str(args["url"]), float(args["load_timeout"]))}
    if op == "color_scheme":
        mode = color_scheme(port, float(args["load_timeout"]), float(args["probe_timeout"]))
        return {"port": port, "mode": mode}
    if op == "read_tab":
        queries = [dict(q) for q in args["queries"]]
        return {"port": port, **read_tab(port, str(args["url"]), queries, float(args["load_timeout"]))}
    raise ValueError(f"unknown op {op!r}")


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
