"""Cua's own SDK (PyPI cua-computer) drives our environments through our endpoint, and each
environment's own evaluator says whether what it did took effect."""

from __future__ import annotations

import shlex
import time
from typing import Any

import pytest

from cua_bench.client import EnvClient
from cua_bench.nodes import center, find
from cua_core.actions import to_pixels

pytestmark = pytest.mark.slow


def pixels(env: EnvClient, role: str, name: str) -> list[int]:
    node = find(env.session("accessibility_tree"), role=role, name=name)
    return list(to_pixels(center(node), 1280, 800))


def test_sdk_screenshots_clicks_and_types_into_sim(sdk: Any, endpoint: Any) -> None:
    with endpoint("--backend", "sim") as (_, address), EnvClient(address) as env:
        _, info = env.reset(options={"task": "sim/enter-text", "variant": 0, "observes": "none"})
        meta = info["task"]["metadata"]
        field, submit = pixels(env, "textbox", meta["target"]), pixels(env, "button", "Submit")
        shot, size, *_ = sdk(
            ["screenshot"],
            ["get_screen_size"],
            ["left_click", *field],
            ["type_text", meta["text"]],
            ["left_click", *submit],
        )
        assert shot == {"png": True, "width": 1280, "height": 800}
        assert size == {"width": 1280, "height": 800}
        assert env.evaluate() == 1.0


def test_sdk_types_into_a_real_xterm_on_local(desktop: None, sdk: Any, endpoint: Any) -> None:
    with endpoint("--backend", "local") as (_, address), EnvClient(address, step_timeout=120) as env:
        _, info = env.reset(options={"task": "desktop/xterm-create-file", "variant": 0, "observes": "none"})
        meta = info["task"]["metadata"]
        assert env.evaluate() == 0.0  # nothing done yet
        xterm = next(w for w in env.session("windows") if w["app"] == "xterm")
        left, top, right, bottom = xterm["bounds"]
        x, y = to_pixels(center({"bounds": [left, top, right, bottom]}), 1280, 800)
        line = f"echo {shlex.quote(meta['text'])} > {shlex.quote(meta['folder'] + '/' + meta['name'])}"
        shot, *_ = sdk(["screenshot"], ["left_click", x, y], ["type_text", line], ["press_key", "enter"])
        assert shot == {"png": True, "width": 1280, "height": 800}
        deadline = time.monotonic() + 15
        while env.evaluate() != 1.0:
            assert time.monotonic() < deadline, "the xterm never wrote the file the SDK typed the command for"
            time.sleep(0.3)
        # The SDK's clipboard calls reach the environment's X clipboard (it types non-ASCII text with them).
        _, pasted = sdk(["set_clipboard", "héllo wörld"], ["copy_to_clipboard"])
        assert pasted == "héllo wörld" and env.session("clipboard") == "héllo wörld"
