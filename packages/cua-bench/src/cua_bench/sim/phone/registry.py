"""The phone apps a ``Phone`` can put on its launcher, by name (``register_phone_app`` adds one)."""

from __future__ import annotations

from cua_bench.sim.phone.notes import NotesApp
from cua_bench.sim.phone.screens import PhoneApp

__all__ = ["PHONE_APPS", "register_phone_app"]

PHONE_APPS: dict[str, type[PhoneApp]] = {NotesApp.name: NotesApp}


def register_phone_app(app: type[PhoneApp]) -> type[PhoneApp]:
    """Add (or replace) a phone app under its ``name``; usable as a class decorator."""
    if not app.name or not app.label:
        raise ValueError(f"{app.__name__} needs a name and a label to go on the launcher")
    PHONE_APPS[app.name] = app
    return app
