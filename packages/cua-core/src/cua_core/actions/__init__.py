"""The unified action space: one set of typed action records for environments, data and models.

Coordinates are normalised to ``[0, 1000]`` (see ``coords``), keys have one canonical spelling
(see ``keys``), and every record validates itself, so an invalid action is an ``ActionError`` with
a reason the agent can read, never a crash in an environment.
"""

from __future__ import annotations

from cua_core.actions.checks import describe, is_integer, is_real
from cua_core.actions.coords import COORD_MAX, Point, from_pixels, to_pixels
from cua_core.actions.dicts import action_from_dict, action_to_dict, action_to_pixels
from cua_core.actions.keys import KEY_ALIASES, KEY_NAMES, normalize_key, split_key_combo
from cua_core.actions.osworld import OSWORLD_ACTION_TYPES, from_osworld, to_osworld
from cua_core.actions.records import (
    ACTIONS,
    MOUSE_BUTTONS,
    SCROLL_DIRECTIONS,
    SYSTEM_BUTTONS,
    Action,
    Click,
    CursorPosition,
    Done,
    Drag,
    Fail,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    LongPress,
    MouseButton,
    MouseDown,
    MouseMove,
    MouseUp,
    OpenApp,
    Pinch,
    Screenshot,
    Scroll,
    ScrollDirection,
    Swipe,
    SystemButton,
    SystemButtonName,
    Tap,
    TypeText,
    Wait,
)
from cua_core.actions.text import format_action, parse_action, parse_actions

__all__ = [
    "ACTIONS",
    "COORD_MAX",
    "KEY_ALIASES",
    "KEY_NAMES",
    "MOUSE_BUTTONS",
    "OSWORLD_ACTION_TYPES",
    "SCROLL_DIRECTIONS",
    "SYSTEM_BUTTONS",
    "Action",
    "Click",
    "CursorPosition",
    "Done",
    "Drag",
    "Fail",
    "HoldKey",
    "KeyDown",
    "KeyPress",
    "KeyUp",
    "LongPress",
    "MouseButton",
    "MouseDown",
    "MouseMove",
    "MouseUp",
    "OpenApp",
    "Pinch",
    "Point",
    "Screenshot",
    "Scroll",
    "ScrollDirection",
    "Swipe",
    "SystemButton",
    "SystemButtonName",
    "Tap",
    "TypeText",
    "Wait",
    "action_from_dict",
    "action_to_dict",
    "action_to_pixels",
    "describe",
    "format_action",
    "from_osworld",
    "from_pixels",
    "is_integer",
    "is_real",
    "normalize_key",
    "parse_action",
    "parse_actions",
    "split_key_combo",
    "to_osworld",
    "to_pixels",
]
