"""A phone on the sim desktop: ``Phone.install(desktop)`` gives one episode's (portrait) desktop a
status bar, a navigation bar, a launcher, apps made of ``Screen``s, recents and notifications, and
makes ``system_button`` and swipes act as on a phone."""

from __future__ import annotations

from cua_bench.sim.phone.chrome import NAV_HEIGHT, STATUS_HEIGHT
from cua_bench.sim.phone.notes import NotesApp
from cua_bench.sim.phone.registry import PHONE_APPS, register_phone_app
from cua_bench.sim.phone.screens import PhoneApp, Screen, ToolbarButton
from cua_bench.sim.phone.surface import Gesture, Notification, Phone

__all__ = [
    "NAV_HEIGHT",
    "PHONE_APPS",
    "STATUS_HEIGHT",
    "Gesture",
    "NotesApp",
    "Notification",
    "Phone",
    "PhoneApp",
    "Screen",
    "ToolbarButton",
    "register_phone_app",
]
