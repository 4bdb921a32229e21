"""What the a11y policy reads of a turn: instruction spans, the tree's actionable nodes, its options.

Everything here is plain Python over the observation the policy declared (the instruction text and
the accessibility tree as nodes), so the choices a decision's tokens index are a pure function of
the turn: ``act`` and ``logprobs`` rebuild the same option list from the same turn.

Words are hashed with CRC-32 (not ``hash``, which Python salts per process), so a checkpoint scores
the same options the same way in every process that loads it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cua_core import Action, Click, Done, KeyPress, Point, SystemButton, Tap, TypeText

__all__ = [
    "ACTIONABLE",
    "BUCKETS",
    "KINDS",
    "Node",
    "Option",
    "Span",
    "Turnview",
    "option_for",
    "options_of",
    "read_turn",
    "word_ids",
]

BUCKETS = 4096  # hashed-word vocabulary
CONTEXT = 3  # words each side of a span that describe it ('as "x"', '"x" is not ticked')
KINDS = ("done", "click", "type")
# Roles a pointer or the keyboard acts on; labels, windows and containers are read through their
# children and names, not acted on.
ACTIONABLE = frozenset(
    {"button", "textbox", "checkbox", "radio", "combobox", "listitem", "menuitem", "slider", "tab", "link",
     "spinbutton", "switch", "option", "treeitem", "cell", "icon"}
)  # fmt: skip
STATES = ("focused", "checked", "editable", "collapsed", "expanded", "selected", "disabled", "pressed")
QUOTED = re.compile(r'"([^"]*)"')
WORD = re.compile(r"[a-z0-9]+")


def word_ids(words: Sequence[str], prefix: str) -> list[int]:
    """Bucket ids of ``prefix:word`` for each word (the prefix keeps a word before a span apart from after)."""
    return [zlib.crc32(f"{prefix}:{w}".encode()) % BUCKETS for w in words]


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower())


@dataclass(frozen=True)
class Span:
    """A quoted part of the instruction: what may be typed, and the words around it."""

    text: str
    index: int
    before: tuple[str, ...]
    after: tuple[str, ...]

    def shape(self) -> list[float]:
        t = self.text
        return [
            min(len(t), 30) / 30,
            float(any(c.isdigit() for c in t)),
            float(any(c.isupper() for c in t)),
            float(any(not c.isalnum() and c != " " for c in t)),
            float(" " in t),
            float(t[:1].isupper()),
            float(self.index == 0),
            float(self.index == 1),
            float(self.index >= 2),
        ]


@dataclass(frozen=True)
class Node:
    """An actionable node of the tree, with what an agent can read of it."""

    role: str
    name: str
    value: Any
    states: frozenset[str]
    center: tuple[float, float]
    order: float  # its place among the actionable nodes, 0 (first) .. 1 (last)
    bounds: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x0, y0, x1, y1 (0-1000)

    @property
    def identity(self) -> tuple[str, str]:
        return (self.role, self.name)

    @property
    def text(self) -> str:
        return self.value if isinstance(self.value, str) else ""


@dataclass(frozen=True)
class Option:
    """One choice: ``done``, ``click`` a node, or ``type`` a span into a node (click, select all, type)."""

    kind: str
    node: int | None = None
    span: int | None = None

    def actions(self, view: Turnview) -> list[Action]:
        if self.kind == "done":
            return [Done()]
        assert self.node is not None
        x, y = view.nodes[self.node].center
        click = Click(Point(x, y))
        if self.kind == "click":
            return [click]
        assert self.span is not None
        return [click, KeyPress(("ctrl", "a")), TypeText(view.spans[self.span].text)]

    def describe(self, view: Turnview) -> str:
        if self.kind == "done":
            return "done"
        assert self.node is not None
        node = view.nodes[self.node]
        if self.kind == "click":
            return f"click {node.role} {node.name!r}"
        assert self.span is not None
        return f"type {view.spans[self.span].text!r} into {node.role} {node.name!r}"


@dataclass
class Turnview:
    """A turn as the a11y policy reads it: spans, nodes, options, and what earlier turns did."""

    instruction: str
    spans: list[Span]
    nodes: list[Node]
    options: list[Option]
    step: int
    max_steps: int
    acted: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # node identity -> [clicks, types]
    last_kind: str | None = None
    episode: str = ""  # the played episode's id: the same on each of its turns, unique to it (compare_names' draw)


def spans_of(instruction: str) -> list[Span]:
    spans = []
    for index, match in enumerate(QUOTED.finditer(instruction)):
        before = words_of(instruction[: match.start()])[-CONTEXT:]
        after = words_of(instruction[match.end() :])[:CONTEXT]
        spans.append(Span(match.group(1), index, tuple(before), tuple(after)))
    return spans


def _walk(nodes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for node in nodes:
        found.append(node)
        found += _walk(node.get("children") or [])
    return found


def nodes_of(tree: Sequence[dict[str, Any]]) -> list[Node]:
    raw = [n for n in _walk(tree) if n.get("role") in ACTIONABLE]
    nodes = []
    for i, n in enumerate(raw):
        x0, y0, x1, y1 = (float(v) for v in n["bounds"])
        centre = (min(1000.0, max(0.0, (x0 + x1) / 2)), min(1000.0, max(0.0, (y0 + y1) / 2)))
        name = str(n.get("name") or "")
        nodes.append(
            Node(
                role=str(n["role"]),
                name=name,
                value=n.get("value"),
                states=frozenset(str(s) for s in n.get("states") or ()),
                center=centre,
                order=i / max(1, len(raw) - 1),
                bounds=(x0, y0, x1, y1),
            )
        )
    return nodes


def options_of(nodes: Sequence[Node], spans: Sequence[Span]) -> list[Option]:
    """``done``, a click on each node that is not a text field, and each span typed into each text
    field, in that order. (Typing clicks its field first, so a click that only focuses a field is
    left out: it changes nothing an evaluator reads, and would only teach the policy to stall.)"""
    options = [Option("done")]
    options += [Option("click", i) for i, n in enumerate(nodes) if "editable" not in n.states]
    options += [Option("type", i, s) for i, n in enumerate(nodes) if "editable" in n.states for s in range(len(spans))]
    return options


# A phone's system buttons, as the nodes of its navigation bar that a click option presses.
NAV_BUTTONS = {"home": "Home", "back": "Back", "recent": "Recents"}


def option_for(view: Turnview, actions: Sequence[Action]) -> int | None:
    """The index of the option that does what ``actions`` do on this turn's screen, or None when none
    does: how a demonstration's step becomes this policy's decision (behaviour cloning's label).

    A click or tap lands on the smallest actionable node under it; a system button is its navigation
    bar's node; a typed text must be one of the quoted spans, typed into the node clicked first. A swipe,
    a long press or a drag has no option (the policy cannot scroll)."""
    if not actions or not all(isinstance(a, Click | Tap | TypeText | KeyPress | SystemButton | Done) for a in actions):
        return None
    if all(isinstance(a, Done) for a in actions):
        return view.options.index(Option("done"))
    points = [a.coordinate for a in actions if isinstance(a, Click | Tap) and a.coordinate is not None]
    buttons = [NAV_BUTTONS[a.button] for a in actions if isinstance(a, SystemButton) and a.button in NAV_BUTTONS]
    typed = [a.text for a in actions if isinstance(a, TypeText)]
    if len(points) + len(buttons) != 1 or len(typed) > 1:
        return None
    if buttons:
        node = next((i for i, n in enumerate(view.nodes) if n.role == "button" and n.name == buttons[0]), None)
    else:
        node = _under(view.nodes, points[0])
    if node is None:
        return None
    span = next((s.index for s in view.spans if typed and s.text == typed[0]), None)
    if typed and span is None:
        return None
    want = Option("type", node, span) if typed else Option("click", node)
    return view.options.index(want) if want in view.options else None


def _under(nodes: Sequence[Node], point: Point) -> int | None:
    hits = [
        ((x1 - x0) * (y1 - y0), i)
        for i, n in enumerate(nodes)
        for x0, y0, x1, y1 in [n.bounds]
        if x0 <= point.x <= x1 and y0 <= point.y <= y1
    ]
    return min(hits)[1] if hits else None


def read_turn(instruction: str, observation: dict[str, Any], step: int, max_steps: int,
              history: Sequence[tuple[dict[str, Any], int]] = ()) -> Turnview:  # fmt: skip
    """The turn's view; ``history`` is each earlier turn's (observation, chosen option index)."""
    tree = observation.get("a11y")
    if not isinstance(tree, list):
        raise ValueError(
            "the a11y policy reads the accessibility tree as nodes (observation['a11y'] a list); got "
            f"{type(tree).__name__}: play it with observes a11y='nodes'"
        )
    spans = spans_of(instruction)
    nodes = nodes_of(tree)
    view = Turnview(instruction, spans, nodes, options_of(nodes, spans), step, max(1, max_steps))
    for earlier, chosen in history:
        past = read_turn(instruction, earlier, 0, 1)
        if not 0 <= chosen < len(past.options):
            continue
        option = past.options[chosen]
        view.last_kind = option.kind
        if option.node is not None:
            counts = view.acted.setdefault(past.nodes[option.node].identity, [0, 0])
            counts[0 if option.kind == "click" else 1] += 1
    return view


# --- numeric features --------------------------------------------------------------------------


def node_dense(view: Turnview, node: Node) -> list[float]:
    # Nothing here compares a node with the instruction: "this field holds a quoted span" read off by hand
    # says, on a form that shows the named record, that the record in front is the named one. What a node
    # shares with the instruction is for the policy's learned forms (match, again, finish) to find.
    clicks, types = view.acted.get(node.identity, [0, 0])
    value = node.value
    return [
        *(float(s in node.states) for s in STATES),
        float(isinstance(value, str) and value == ""),
        float(isinstance(value, str) and value != ""),
        float(value is True),
        float(value is False),
        min(clicks, 3) / 3,
        min(types, 3) / 3,
        node.order,
        node.center[0] / 1000,
        node.center[1] / 1000,
    ]


NODE_DENSE = len(STATES) + 9


def pair_dense(node: Node, span: Span) -> list[float]:
    text = node.text
    return [
        float(text == span.text),
        float(text != "" and span.text.startswith(text) and text != span.text),
        float(text not in ("", span.text)),
        float(bool(set(words_of(node.name)) & set(span.before + span.after))),  # 'the password "x"' and Password
    ]


PAIR_DENSE = 4


def global_dense(view: Turnview) -> list[float]:
    """The turn as a whole: how far along, what the last turn did, and how the fields stand."""
    kinds = [float(view.last_kind == k) for k in KINDS]
    fields = [n for n in view.nodes if "editable" in n.states]
    return [
        view.step / view.max_steps,
        float(view.step == 0),
        *kinds,
        min(len(view.spans), 6) / 6,
        sum(n.text == "" for n in fields) / max(1, len(fields)),  # empty fields
        *focus_role(view),
    ]


# What the keyboard focus is on, as a direct feature of the whole turn: pressing a button moves the focus
# to it, so "a form was just submitted" and "a field was just filled" differ here most plainly; read only
# through the focused node's learned encoding, the two states scored alike and GRPO's signals for
# "stop now" and "press the button first" cancelled out.
FOCUS_ROLES = ("button", "textbox", "checkbox")


def focus_role(view: Turnview) -> list[float]:
    at = focused(view)
    role = view.nodes[at].role if at is not None else None
    return [*(float(role == r) for r in FOCUS_ROLES), float(role not in FOCUS_ROLES)]


GLOBAL_DENSE = 4 + len(KINDS) + len(FOCUS_ROLES) + 1


def focused(view: Turnview) -> int | None:
    """The index of the node with the keyboard focus (what was acted on last, mostly), if any."""
    return next((i for i, n in enumerate(view.nodes) if "focused" in n.states), None)
