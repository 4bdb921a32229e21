"""The accessibility tree of an environment's apps, read over AT-SPI's D-Bus protocol.

Every environment runs its own session bus (``display.start_bus``); a GTK, Qt or Chromium app
started on it asks for ``org.a11y.Bus``, which D-Bus activates (at-spi-bus-launcher, the
accessibility bus and the registry), and exports its widgets there. We speak the protocol with
jeepney (pure Python), not pyatspi: pyatspi needs the system's PyGObject, which a virtualenv lacks.

A tree is read breadth-first, one level at a time, with all of a level's calls sent before any
reply is read, so a read costs a round trip per level (a dozen for a GTK window), not per call;
what remains is jeepney's pure-Python (de)serialisation, ~0.1 ms a call (a gnumeric window: ~1,200
calls). Subtrees that are not showing (closed menus, hidden tabs) are skipped after one call: an
agent cannot act on them. An app that does not answer within the timeout loses its missing nodes;
it is never an error.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cua_bench.backends.local.windows import normalised

__all__ = ["STATE_NAMES", "AccessibilityReader", "AppTree", "state_names"]

log = logging.getLogger(__name__)

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
VALUE = "org.a11y.atspi.Value"
PROPERTIES = "org.freedesktop.DBus.Properties"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
NULL_PATH = "/org/a11y/atspi/null"
MAX_TEXT = 10_000  # characters of a text widget's content kept in a node (a whole document is noise)
MAX_NODES = 5_000  # per app: Chromium's page trees can be huge
BATCH = 512  # calls in flight at once: bounded so neither side's socket buffer fills

# AtspiStateType, in order: bit n of GetState's two 32-bit words is STATE_NAMES[n].
STATE_NAMES = (
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable", "enabled",
    "expandable", "expanded", "focusable", "focused", "has_tooltip", "horizontal", "iconified", "modal",
    "multi_line", "multiselectable", "opaque", "pressed", "resizable", "selectable", "selected", "sensitive",
    "showing", "single_line", "stale", "transient", "vertical", "visible", "manages_descendants",
    "indeterminate", "required", "truncated", "animated", "invalid_entry", "supports_autocompletion",
    "selectable_text", "is_default", "visited", "checkable", "has_popup", "read_only",
)  # fmt: skip


def state_names(words: Sequence[int]) -> list[str]:
    """GetState's bit words to state names (``invalid`` dropped: it is bit 0, never meaningful)."""
    bits = sum(int(word) << (32 * index) for index, word in enumerate(words))
    return [name for index, name in enumerate(STATE_NAMES) if index and bits >> index & 1]


@dataclass
class _Node:
    bus: str
    path: str
    role: str = ""
    name: str = ""
    states: list[str] = field(default_factory=list)
    interfaces: list[str] = field(default_factory=list)
    extents: tuple[int, int, int, int] | None = None
    value: str | float | None = None
    children: list[_Node] = field(default_factory=list)


@dataclass
class AppTree:
    """One application's top-level nodes (frames, dialogs) and the pid of the process that owns it."""

    name: str
    pid: int | None
    frames: list[dict[str, Any]]


class AccessibilityReader:
    """Reads every app's tree from the accessibility bus behind ``session_bus`` (a D-Bus address).

    Not thread safe: one read at a time. The accessibility bus is looked up on each read after a
    failure, since reset kills it and D-Bus starts a new one for the next app.
    """

    def __init__(self, session_bus: str, width: int, height: int, *, timeout: float = 2.0) -> None:
        self.session_bus, self.width, self.height, self.timeout = session_bus, width, height, timeout
        self._conn: Any = None

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
            self._conn = None

    def _connect(self) -> Any:
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection

        if self._conn is None:
            with open_dbus_connection(bus=self.session_bus, auth_timeout=self.timeout) as session:
                bus = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
                reply = session.send_and_get_reply(new_method_call(bus, "GetAddress"), timeout=self.timeout)
            address = reply.body[0] if reply.body else ""
            if not isinstance(address, str) or not address:
                raise OSError(f"org.a11y.Bus answered {reply.body!r} instead of an address")
            self._conn = open_dbus_connection(bus=address, auth_timeout=self.timeout)
        return self._conn

    def apps(self) -> list[AppTree]:
        """Every registered app's showing frames in node form; [] when no app is accessible."""
        for attempt in range(2):  # a connection to a bus that reset killed fails once, then reconnects
            try:
                return self._read()
            except (OSError, EOFError, TimeoutError, ValueError) as exc:
                log.debug("accessibility tree, attempt %d: %r", attempt + 1, exc)
                self.close()
        return []

    # -- reading --------------------------------------------------------------------------------

    def _calls(self, calls: Sequence[tuple[str, str, str, str, str | None, tuple[Any, ...]]]) -> list[Any]:
        """Send every call, then collect the replies: each result is the reply's body or None (an error)."""
        from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call

        conn = self._connect()
        results: list[Any] = [None] * len(calls)
        deadline = time.monotonic() + self.timeout
        for start in range(0, len(calls), BATCH):
            pending: dict[int, int] = {}
            for index in range(start, min(start + BATCH, len(calls))):
                bus, path, interface, method, signature, body = calls[index]
                message = new_method_call(DBusAddress(path, bus_name=bus, interface=interface), method, signature, body)
                serial = next(conn.outgoing_serial)
                conn.send(message, serial=serial)
                pending[serial] = index
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    log.debug("accessibility tree: %d calls unanswered after %g s", len(pending), self.timeout)
                    return results
                reply = conn.receive(timeout=left)
                index_or_none = pending.pop(reply.header.fields.get(HeaderFields.reply_serial, -1), None)
                if index_or_none is not None and reply.header.message_type == MessageType.method_return:
                    results[index_or_none] = reply.body
        return results

    def _read(self) -> list[AppTree]:
        bus, path = REGISTRY
        (found,) = self._calls([(bus, path, ACCESSIBLE, "GetChildren", None, ())])
        if not found:
            return []
        apps = [_Node(app_bus, app_path) for app_bus, app_path in found[0]]
        self._describe(apps, hidden_too=True)
        pids = self._calls(
            [("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
              "s", (app.bus,)) for app in apps]
        )  # fmt: skip
        level = [child for app in apps for child in app.children]
        seen = len(level)
        while level:
            self._describe(level)
            level = [child for node in level if "showing" in node.states for child in node.children]
            seen += len(level)
            if seen > MAX_NODES * max(1, len(apps)):
                log.debug("accessibility tree: stopped at %d nodes", seen)
                break
        return [
            AppTree(app.name, int(pid[0]) if pid else None,
                    [self._as_dict(frame) for frame in app.children if "showing" in frame.states])
            for app, pid in zip(apps, pids, strict=True)
        ]  # fmt: skip

    def _describe(self, nodes: list[_Node], *, hidden_too: bool = False) -> None:
        """States of ``nodes``; role, name, interfaces and children of the showing ones (of all with
        ``hidden_too``: applications show nothing themselves); then extents and values.

        States go first and alone: most nodes of a GTK window are hidden (closed menus), and one
        call each for them instead of five is most of a read's cost.
        """
        states = self._calls([(node.bus, node.path, ACCESSIBLE, "GetState", None, ()) for node in nodes])
        for node, state in zip(nodes, states, strict=True):
            node.states = state_names(state[0]) if state else []
        wanted = [node for node in nodes if hidden_too or "showing" in node.states]
        calls: list[tuple[str, str, str, str, str | None, tuple[Any, ...]]] = []
        for node in wanted:
            calls += [
                (node.bus, node.path, ACCESSIBLE, "GetRoleName", None, ()),
                (node.bus, node.path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")),
                (node.bus, node.path, ACCESSIBLE, "GetInterfaces", None, ()),
                (node.bus, node.path, ACCESSIBLE, "GetChildren", None, ()),
            ]
        results = self._calls(calls)
        second: list[tuple[_Node, str]] = []
        calls = []
        for index, node in enumerate(wanted):
            role, name, interfaces, children = results[4 * index : 4 * index + 4]
            node.role = role[0] if role else "unknown"
            node.name = name[0][1] if name else ""
            node.interfaces = list(interfaces[0]) if interfaces else []
            node.children = [_Node(bus, path) for bus, path in (children[0] if children else []) if path != NULL_PATH]
            if "showing" not in node.states:
                continue
            if COMPONENT in node.interfaces:
                calls.append((node.bus, node.path, COMPONENT, "GetExtents", "u", (0,)))  # 0: screen coordinates
                second.append((node, "extents"))
            if TEXT in node.interfaces:
                # A terminal's newest lines are at its end (what OSWorld's vm_terminal_output reads): all of it.
                end = -1 if node.role == "terminal" else MAX_TEXT
                calls.append((node.bus, node.path, TEXT, "GetText", "ii", (0, end)))
                second.append((node, "text"))
            elif VALUE in node.interfaces:
                calls.append((node.bus, node.path, PROPERTIES, "Get", "ss", (VALUE, "CurrentValue")))
                second.append((node, "value"))
        for (node, what), result in zip(second, self._calls(calls), strict=True):
            if not result:
                continue
            if what == "extents":
                x, y, w, h = (int(v) for v in result[0])
                if w > 0 and h > 0 and x > -(2**30) and y > -(2**30):
                    node.extents = (x, y, w, h)
            elif what == "text":
                text = str(result[0]).replace("\ufffc", "").replace("\ufffd", "")
                node.value = text or None
            else:
                node.value = float(result[0][1])

    def _as_dict(self, node: _Node) -> dict[str, Any]:
        bounds = None
        if node.extents is not None:
            x, y, w, h = node.extents
            left, top = max(0, x), max(0, y)
            right, bottom = min(self.width, x + w), min(self.height, y + h)
            if right > left and bottom > top:
                bounds = normalised((left, top, right, bottom), self.width, self.height)
        return {
            "role": node.role,
            "name": node.name,
            "bounds": bounds,
            "states": node.states,
            "value": node.value,
            "children": [self._as_dict(child) for child in node.children if "showing" in child.states],
        }
