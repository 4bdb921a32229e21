"""The embedded sim desktop: a deterministic pure-Python desktop rendered with Pillow.

Driven only by unified actions (``SimDesktop.apply``), read by evaluators through real state
(``find``, ``fs``, ``clipboard``, ``windows``) and the desktop's own records of what happened
(``provenance``: where text came from, what each key and click hit, who saved which file), seen by
agents as frames and by oracles as an accessibility tree in the common node form. ``SimSession``
wraps it as a task Session.
"""

from __future__ import annotations

from cua_bench.sim import provenance
from cua_bench.sim.apps import APPS, EditorApp, form_values, input_widgets, register_app
from cua_bench.sim.controls import Button, Checkbox, Label, RadioGroup, Slider
from cua_bench.sim.desktop import TASKBAR_HEIGHT, SimDesktop
from cua_bench.sim.dnd import Draggable, DropTarget
from cua_bench.sim.events import KeyEvent, MouseEvent, ScrollEvent, char_event
from cua_bench.sim.filebrowser import FileBrowser
from cua_bench.sim.fs import VirtualFS
from cua_bench.sim.geometry import Rect
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.menus import Menu, MenuBar, MenuItem, open_context_menu
from cua_bench.sim.popups import MenuPopup, PopupItem
from cua_bench.sim.provenance import (
    ClickRecord,
    Clip,
    FileRecord,
    KeyRecord,
    Origin,
    Provenance,
    Run,
    WidgetRef,
    pasted_from,
    typed_into,
)
from cua_bench.sim.session import SimSession
from cua_bench.sim.text import TextBuffer
from cua_bench.sim.textwidgets import TextArea, TextEditor, TextField
from cua_bench.sim.widget import Widget
from cua_bench.sim.windows import TITLE_HEIGHT, Dialog, Window

__all__ = [
    "APPS",
    "TASKBAR_HEIGHT",
    "TITLE_HEIGHT",
    "Button",
    "Checkbox",
    "ClickRecord",
    "Clip",
    "Dialog",
    "Draggable",
    "DropTarget",
    "Dropdown",
    "EditorApp",
    "FileBrowser",
    "FileRecord",
    "KeyEvent",
    "KeyRecord",
    "Label",
    "ListView",
    "Menu",
    "MenuBar",
    "MenuItem",
    "MenuPopup",
    "MouseEvent",
    "Origin",
    "PopupItem",
    "Provenance",
    "RadioGroup",
    "Rect",
    "Run",
    "ScrollEvent",
    "SimDesktop",
    "SimSession",
    "Slider",
    "TextArea",
    "TextBuffer",
    "TextEditor",
    "TextField",
    "VirtualFS",
    "Widget",
    "WidgetRef",
    "Window",
    "char_event",
    "form_values",
    "input_widgets",
    "open_context_menu",
    "pasted_from",
    "provenance",
    "register_app",
    "typed_into",
]
