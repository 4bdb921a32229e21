"""Cua's computer-server commands, answered by one of our environments.

Each command of ``cua-computer-server`` 0.1.25 (its ``handlers`` table) becomes our unified actions
(``session.apply``) or a Session call over the env server's RPC, so the answer is whatever that
environment's own backend does: there is no second action type. Pixels come in as Cua sends them
and are normalised with ``from_pixels``; replies carry Cua's field names (``image_data``, ``size``,
``position``, ``return_code``, ``content_b64``, ...).

Actions are applied without waiting for the screen to settle (Cua's server does not wait either);
the next ``screenshot`` settles first, so it shows their effect.
"""

from __future__ import annotations

import base64
import inspect
import logging
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

from cua_core import (
    Action,
    Click,
    CuaError,
    Drag,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseButton,
    MouseDown,
    MouseMove,
    MouseUp,
    Point,
    Scroll,
    TypeText,
    action_to_dict,
    from_pixels,
    to_pixels,
)

log = logging.getLogger(__name__)

__all__ = ["PROTOCOL_VERSION", "UNSUPPORTED", "Commands", "Environment", "Reply"]

PROTOCOL_VERSION = 1  # computer-server's ``protocol_version``
Reply = dict[str, Any]

# Commands of Cua's server this endpoint knows but cannot serve, and why (answered as Cua answers a
# failed command: ``{"success": false, "error": ...}``).
UNSUPPORTED = {
    "find_element": "Cua's server finds elements on macOS only; use get_accessibility_tree",
    "diorama_cmd": "Diorama (macOS app windows) has no counterpart in our environments",
}


class Environment(Protocol):
    """What the commands need of an env server: ``AsyncEnvClient.session``."""

    async def session(self, method: str, **params: Any) -> Any: ...


def _package_version() -> str:
    try:
        return f"cua-bench-cua {version('cua-bench-cua')}"
    except PackageNotFoundError:  # a source checkout on sys.path
        return "cua-bench-cua"


class Commands:
    """The command table of one endpoint, over one environment of ``width`` x ``height`` pixels."""

    def __init__(self, env: Environment, width: int, height: int) -> None:
        self.env = env
        self.width = width
        self.height = height
        # Where our actions left the pointer: sessions report no cursor, and only these actions move it.
        self.cursor = (width // 2, height // 2)
        self.dirty = False  # actions applied since the screen last settled
        self.table: dict[str, Callable[..., Awaitable[Reply]]] = {
            name.removeprefix("cmd_"): getattr(self, name) for name in dir(self) if name.startswith("cmd_")
        }

    def known(self, command: object) -> bool:
        return isinstance(command, str) and (command in self.table or command in UNSUPPORTED)

    async def run(self, command: str, params: object) -> Reply:
        """Cua's reply to ``command``: ``{"success": true, ...}`` or ``{"success": false, "error": ...}``.

        Parameters a command does not take are dropped, as Cua's server drops them; a missing or
        ill-typed one is an error naming the command and the parameter.
        """
        if command in UNSUPPORTED:
            return {"success": False, "error": f"{command} is not supported by cua-bench: {UNSUPPORTED[command]}"}
        if not isinstance(params, Mapping):
            return {"success": False, "error": f"{command}: params must be a JSON object, not {type(params).__name__}"}
        handler = self.table[command]
        accepted = inspect.signature(handler).parameters
        kwargs = {key: value for key, value in params.items() if key in accepted}
        try:
            inspect.signature(handler).bind(**kwargs)
        except TypeError as exc:
            return {"success": False, "error": f"{command}: {exc}"}
        try:
            return {"success": True, **await handler(**kwargs)}
        except (CuaError, ValueError, TypeError, OSError) as exc:
            return {"success": False, "error": f"{command}: {exc}"}
        except Exception as exc:  # as Cua's server: any failure is the command's answer, never the connection's end
            log.exception("%s failed", command)
            return {"success": False, "error": f"{command}: unexpected {type(exc).__name__}: {exc}"}

    # -- helpers ------------------------------------------------------------------------------

    def _point(self, x: object, y: object) -> Point:
        if (
            not isinstance(x, int | float)
            or not isinstance(y, int | float)
            or isinstance(x, bool)
            or isinstance(y, bool)
        ):
            raise ValueError(f"x and y must be numbers of pixels, not {x!r} and {y!r}")
        point = from_pixels(x, y, self.width, self.height)
        self.cursor = to_pixels(point, self.width, self.height)
        return point

    def _maybe_point(self, x: object, y: object) -> Point | None:
        return None if x is None or y is None else self._point(x, y)

    async def _apply(self, *actions: Action) -> Reply:
        errors: Sequence[str | None] = await self.env.session(
            "apply", actions=[action_to_dict(action) for action in actions], settle=False
        )
        self.dirty = True
        problems = [error for error in errors if error]
        if problems:
            raise ValueError("; ".join(problems))
        return {}

    async def _shell(self, command: str) -> Reply:
        result = await self.env.session("run_command", command=command, timeout=60.0)
        if result["returncode"] != 0:
            raise ValueError(result["stderr"].strip() or f"exit code {result['returncode']}")
        return {}

    @staticmethod
    def _button(button: object) -> MouseButton:
        if button not in ("left", "right", "middle"):
            raise ValueError(f"button must be left, right or middle, not {button!r}")
        return button

    # -- mouse ----------------------------------------------------------------------------------

    async def cmd_left_click(self, x: int | None = None, y: int | None = None) -> Reply:
        return await self._apply(Click(self._maybe_point(x, y)))

    async def cmd_right_click(self, x: int | None = None, y: int | None = None) -> Reply:
        return await self._apply(Click(self._maybe_point(x, y), button="right"))

    async def cmd_double_click(self, x: int | None = None, y: int | None = None) -> Reply:
        return await self._apply(Click(self._maybe_point(x, y), clicks=2))

    async def cmd_move_cursor(self, x: int, y: int) -> Reply:
        return await self._apply(MouseMove(self._point(x, y)))

    async def cmd_mouse_down(self, x: int | None = None, y: int | None = None, button: str = "left") -> Reply:
        return await self._apply(MouseDown(self._button(button), self._maybe_point(x, y)))

    async def cmd_mouse_up(self, x: int | None = None, y: int | None = None, button: str = "left") -> Reply:
        return await self._apply(MouseUp(self._button(button), self._maybe_point(x, y)))

    async def cmd_drag_to(self, x: int, y: int, button: str = "left", duration: float = 0.5) -> Reply:
        return await self._apply(Drag(None, self._point(x, y), self._button(button)))

    async def cmd_drag(
        self,
        path: list[list[int]] | None = None,
        button: str = "left",
        start_x: int | None = None,
        start_y: int | None = None,
        end_x: int | None = None,
        end_y: int | None = None,
    ) -> Reply:
        """The SDK sends ``path`` (a list of [x, y]); the server's own handler takes start/end."""
        pressed = self._button(button)
        if path is None:
            if None in (start_x, start_y, end_x, end_y):
                raise ValueError("give path=[[x, y], ...] or start_x, start_y, end_x and end_y")
            path = [[start_x, start_y], [end_x, end_y]]  # type: ignore[list-item]
        if (
            not isinstance(path, list)
            or len(path) < 2
            or not all(isinstance(p, list | tuple) and len(p) == 2 for p in path)
        ):
            raise ValueError(f"path must hold at least two [x, y] points, not {path!r}")
        points = [self._point(px, py) for px, py in path]
        return await self._apply(
            MouseDown(pressed, points[0]), *(MouseMove(p) for p in points[1:-1]), MouseUp(pressed, points[-1])
        )

    async def cmd_scroll(self, x: int = 0, y: int = 0) -> Reply:
        """pynput's scroll(dx, dy) in wheel clicks: dy > 0 is up, dx > 0 right."""
        actions: list[Action] = []
        for amount, positive, negative in ((y, "up", "down"), (x, "right", "left")):
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise ValueError(f"x and y must be whole wheel clicks, not {amount!r}")
            if amount:
                actions.append(Scroll(positive if amount > 0 else negative, abs(amount)))  # type: ignore[arg-type]
        return await self._apply(*actions) if actions else {}

    async def cmd_scroll_down(self, clicks: int = 1) -> Reply:
        return await self._apply(Scroll("down", clicks))

    async def cmd_scroll_up(self, clicks: int = 1) -> Reply:
        return await self._apply(Scroll("up", clicks))

    # -- keyboard -------------------------------------------------------------------------------

    async def cmd_type_text(self, text: str) -> Reply:
        return await self._apply(TypeText(text))

    async def cmd_press_key(self, key: str) -> Reply:
        return await self._apply(KeyPress((key,)))

    async def cmd_hotkey(self, keys: list[str]) -> Reply:
        if not isinstance(keys, list | tuple):
            raise ValueError(f"keys must be a list of key names, not {keys!r}")
        return await self._apply(KeyPress(tuple(keys)))

    async def cmd_key_down(self, key: str) -> Reply:
        return await self._apply(KeyDown(key))

    async def cmd_key_up(self, key: str) -> Reply:
        return await self._apply(KeyUp(key))

    # -- screen ---------------------------------------------------------------------------------

    async def cmd_screenshot(self) -> Reply:
        if self.dirty:  # the screen shows the last actions before it is read
            await self.env.session("apply", actions=[], settle=True)
            self.dirty = False
        png: bytes = await self.env.session("screenshot")
        if png[12:16] == b"IHDR":  # a task's computer block may have resized the screen at reset
            self.width, self.height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        return {"image_data": base64.b64encode(png).decode()}

    async def cmd_get_screen_size(self) -> Reply:
        return {"size": {"width": self.width, "height": self.height}}

    async def cmd_get_cursor_position(self) -> Reply:
        return {"position": {"x": self.cursor[0], "y": self.cursor[1]}}

    async def cmd_get_active_window_bounds(self) -> Reply:
        """Newer SDKs ask for it; the focused window from ``session.windows`` (0-1000) in pixels."""
        windows = await self.env.session("windows")
        focused = next((w for w in windows if w.get("focused")), None)
        if focused is None:
            raise ValueError("no window has the focus")
        left, top, right, bottom = (
            round(v * size / 1000) for v, size in zip(focused["bounds"], (self.width, self.height) * 2, strict=True)
        )
        return {"bounds": {"x": left, "y": top, "width": right - left, "height": bottom - top}}

    async def cmd_get_accessibility_tree(self) -> Reply:
        """Cua's Linux server answers a placeholder; ours holds the environment's tree (our node form)."""
        nodes = await self.env.session("accessibility_tree")
        return {
            "tree": {
                "role": "Desktop",
                "title": "",
                "position": {"x": 0, "y": 0},
                "size": {"width": self.width, "height": self.height},
                "children": nodes,
            }
        }

    async def cmd_version(self) -> Reply:
        return {"protocol": PROTOCOL_VERSION, "package": _package_version()}

    # -- commands and files ---------------------------------------------------------------------

    async def cmd_run_command(self, command: str) -> Reply:
        if not isinstance(command, str):
            raise ValueError(f"command must be a string, not {command!r}")
        result = await self.env.session("run_command", command=command, timeout=600.0)
        return {"stdout": result["stdout"], "stderr": result["stderr"], "return_code": result["returncode"]}

    async def cmd_copy_to_clipboard(self) -> Reply:
        return {"content": str(await self.env.session("clipboard"))}

    async def cmd_set_clipboard(self, text: str) -> Reply:
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, not {text!r}")
        await self.env.session("set_clipboard", text=text)
        return {}

    async def cmd_file_exists(self, path: str) -> Reply:
        return {"exists": bool(await self.env.session("file_exists", path=path))}

    async def cmd_directory_exists(self, path: str) -> Reply:
        return {"exists": bool(await self.env.session("directory_exists", path=path))}

    async def cmd_list_dir(self, path: str) -> Reply:
        return {"files": list(await self.env.session("list_dir", path=path))}

    async def cmd_read_text(self, path: str) -> Reply:
        return {"content": await self.env.session("read_file", path=path)}

    async def cmd_write_text(self, path: str, content: str) -> Reply:
        await self.env.session("write_file", path=path, content=content)
        return {}

    async def cmd_read_bytes(self, path: str, offset: int = 0, length: int | None = None) -> Reply:
        data: bytes = await self.env.session("read_bytes", path=path)
        data = data[offset:] if length is None else data[offset : offset + length]
        return {"content_b64": base64.b64encode(data).decode()}

    async def cmd_write_bytes(self, path: str, content_b64: str, append: bool = False) -> Reply:
        data = base64.b64decode(content_b64, validate=True)
        if append and await self.env.session("file_exists", path=path):
            data = await self.env.session("read_bytes", path=path) + data
        await self.env.session("write_file", path=path, content=data)
        return {}

    async def cmd_get_file_size(self, path: str) -> Reply:
        return {"size": len(await self.env.session("read_bytes", path=path))}

    async def cmd_delete_file(self, path: str) -> Reply:
        return await self._shell(f"rm -- {_shell_path(path)}")

    async def cmd_create_dir(self, path: str) -> Reply:
        return await self._shell(f"mkdir -p -- {_shell_path(path)}")

    async def cmd_delete_dir(self, path: str) -> Reply:
        return await self._shell(f"rmdir -- {_shell_path(path)}")


def _shell_path(path: object) -> str:
    """``path`` quoted for the environment's shell, ``~`` still meaning its home (as Cua expands it)."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"path must be a non-empty string, not {path!r}")
    if path == "~" or path.startswith("~/"):
        return '"$HOME"' + shlex.quote(path[1:]) if len(path) > 1 else '"$HOME"'
    return shlex.quote(path)
