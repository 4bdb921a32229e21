"""cua-bench-macos: macOS desktops in virtual machines, made by Lume (its HTTP API) or tart (its CLI).

The ``macos`` backend (``MacosBackend``) clones a golden VM per environment on an Apple silicon Mac,
starts the env server in the guest's GUI session over SSH (``guest``), reaches it over CURVE on the
guest's address, and resets by cloning again. ``LumeClient`` and ``TartClient`` are the two providers
(``choose_provider`` picks one). Inside the guest the server serves ``--backend macos``, whose session
is ``MacSession``: Quartz events, ``screencapture`` and the accessibility tree, every macOS call
through ``MacApi`` (``QuartzApi`` is the real one, importable anywhere). Written against Lume's, tart's
and Apple's documentation and tested against transcripts of them; never run on a Mac (see the README).
"""

from cua_bench_macos.backend import PREFIX, MacosBackend
from cua_bench_macos.guest import AGENT, GUEST_PORT, Ssh, agent_plist
from cua_bench_macos.lume import LUME_DEFAULT_URL, LumeClient
from cua_bench_macos.macapi import (
    AXElement,
    KeyEvent,
    MacApi,
    MouseEvent,
    ScrollEvent,
    WindowInfo,
    element_from,
    window_from,
)
from cua_bench_macos.payload import MACOS_PLATFORMS, build_payload, stored_payload
from cua_bench_macos.provider import INSTALL_HINT, Provider, choose_provider
from cua_bench_macos.quartz import QuartzApi
from cua_bench_macos.session import APPS, LaunchError, MacSession
from cua_bench_macos.tart import TartClient

__all__ = [
    "AGENT",
    "APPS",
    "GUEST_PORT",
    "INSTALL_HINT",
    "LUME_DEFAULT_URL",
    "MACOS_PLATFORMS",
    "PREFIX",
    "AXElement",
    "KeyEvent",
    "LaunchError",
    "LumeClient",
    "MacApi",
    "MacSession",
    "MacosBackend",
    "MouseEvent",
    "Provider",
    "QuartzApi",
    "ScrollEvent",
    "Ssh",
    "TartClient",
    "WindowInfo",
    "agent_plist",
    "build_payload",
    "choose_provider",
    "element_from",
    "stored_payload",
    "window_from",
]
