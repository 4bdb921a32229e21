"""cua-bench-macos: macOS desktops in virtual machines, made by Lume (its HTTP API) or tart (its CLI).

The ``macos`` backend (``MacosBackend``) clones a golden VM per environment on an Apple silicon Mac,
starts the env server in the guest's GUI session over SSH (``guest``), reaches it over CURVE on the
guest's address, and resets by cloning again. ``LumeClient`` and ``TartClient`` are the two providers
(``choose_provider`` picks one). Inside the guest the server serves ``--backend macos``, whose session
is ``MacSession``: Quartz events, ``screencapture`` and the accessibility tree, every macOS call
through ``MacApi`` (``QuartzApi`` is the real one, importable anywhere). Written against Lume's, tart's
and Apple's documentation and tested against transcripts of them; never run on a Mac (see the README).
"""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

if TYPE_CHECKING:
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

# Imported on first use: cua-bench loads this plugin (its ``backend`` entry point, and so this package) in
# every env server, which needs the guest's session (Quartz, the accessibility tree) only inside a Mac.
_LAZY = {
    "PREFIX": "cua_bench_macos.backend",
    "MacosBackend": "cua_bench_macos.backend",
    "AGENT": "cua_bench_macos.guest",
    "GUEST_PORT": "cua_bench_macos.guest",
    "Ssh": "cua_bench_macos.guest",
    "agent_plist": "cua_bench_macos.guest",
    "LUME_DEFAULT_URL": "cua_bench_macos.lume",
    "LumeClient": "cua_bench_macos.lume",
    "AXElement": "cua_bench_macos.macapi",
    "KeyEvent": "cua_bench_macos.macapi",
    "MacApi": "cua_bench_macos.macapi",
    "MouseEvent": "cua_bench_macos.macapi",
    "ScrollEvent": "cua_bench_macos.macapi",
    "WindowInfo": "cua_bench_macos.macapi",
    "element_from": "cua_bench_macos.macapi",
    "window_from": "cua_bench_macos.macapi",
    "MACOS_PLATFORMS": "cua_bench_macos.payload",
    "build_payload": "cua_bench_macos.payload",
    "stored_payload": "cua_bench_macos.payload",
    "INSTALL_HINT": "cua_bench_macos.provider",
    "Provider": "cua_bench_macos.provider",
    "choose_provider": "cua_bench_macos.provider",
    "QuartzApi": "cua_bench_macos.quartz",
    "APPS": "cua_bench_macos.session",
    "LaunchError": "cua_bench_macos.session",
    "MacSession": "cua_bench_macos.session",
    "TartClient": "cua_bench_macos.tart",
}

__getattr__ = lazy_getattr(__name__, _LAZY)

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
