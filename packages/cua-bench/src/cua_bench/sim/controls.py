"""Simple controls: labels, buttons, check boxes, radio groups and sliders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, MouseEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, focus_ring, text_width
from cua_bench.sim.widget import A11yContext, Callback, Widget

__all__ = ["Button", "Checkbox", "Label", "RadioGroup", "Slider"]


class Label(Widget):
    """Static text; ``name`` is the text. Lines split on newlines."""

    role = "label"

    def __init__(self, text: str = "", *, size: int = 14, color: tuple[int, int, int] | None = None, **kw: Any):
        super().__init__(text, **kw)
        self.size = size
        self.color = color

    @property
    def text(self) -> str:
        return self.name

    @text.setter
    def text(self, value: str) -> None:
        self.name = value

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        lines = self.name.split("\n")
        return available_width, max(1, len(lines)) * (LINE_HEIGHT + self.size - 14)

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        color = self.color or (Theme.text if self.enabled else Theme.text_disabled)
        step = LINE_HEIGHT + self.size - 14
        for index, line in enumerate(self.name.split("\n")):
            draw_text(draw, self.rect.x, self.rect.y + index * step, line, color, self.size, self.rect.width)


class _Pressable(Widget):
    """Activated by a press and release inside it, or by the keyboard when focused."""

    focusable = True

    def __init__(self, name: str = "", **kw: Any) -> None:
        super().__init__(name, **kw)
        self._pressed = False

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        self._pressed = True
        self.focus()
        return True

    def on_mouse_up(self, event: MouseEvent) -> None:
        pressed, self._pressed = self._pressed, False
        if pressed and self.rect.contains(event.x, event.y):
            self.activate()

    def activate(self) -> None:
        raise NotImplementedError


class Button(_Pressable):
    """A push button; ``on_click`` callbacks get the button. ``default`` answers enter in its window."""

    role = "button"

    def __init__(self, label: str = "", on_click: Callback | None = None, *, default: bool = False, **kw: Any):
        super().__init__(label, **kw)
        self.callbacks: list[Callback] = [on_click] if on_click else []
        self.default = default
        self.clicks = 0

    @property
    def label(self) -> str:
        return self.name

    def on_click(self, callback: Callback) -> Callback:
        self.callbacks.append(callback)
        return callback

    def activate(self) -> None:
        if not self.enabled:
            return
        self.clicks += 1
        for callback in list(self.callbacks):
            callback(self)

    def click(self) -> None:
        """Activate from code, as a mouse click would."""
        self.activate()

    def on_key(self, event: KeyEvent) -> bool:
        if event.key in ("space", "enter") and not event.mods:
            self.activate()
            return True
        return False

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return int(text_width(self.name)) + 32, 30

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        fill = Theme.button_pressed if self._pressed else Theme.button_default if self.default else Theme.button
        draw.rounded_rectangle(r.box(), radius=4, fill=fill, outline=Theme.border, width=2 if self.default else 1)
        color = Theme.text if self.enabled else Theme.text_disabled
        width = text_width(self.name)
        draw_text(draw, r.x + max(4, (r.width - width) / 2), r.y + (r.height - LINE_HEIGHT) // 2, self.name, color,
                  max_width=r.width - 8)  # fmt: skip
        if self.has_focus:
            focus_ring(draw, r)


class Checkbox(_Pressable):
    """A check box with its text to the right; the whole row toggles it."""

    role = "checkbox"

    def __init__(self, label: str = "", checked: bool = False, on_change: Callback | None = None, **kw: Any):
        super().__init__(label, **kw)
        self.checked = checked
        self.on_change = on_change

    def activate(self) -> None:
        if self.enabled:
            self.checked = not self.checked
            if self.on_change:
                self.on_change(self)

    def on_key(self, event: KeyEvent) -> bool:
        if event.key == "space" and not event.mods:
            self.activate()
            return True
        return False

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return min(available_width, int(text_width(self.name)) + 32), 24

    def states(self) -> list[str]:
        return [*super().states(), *(["checked"] if self.checked else [])]

    def node_value(self) -> Any:
        return self.checked

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        top = r.y + (r.height - 16) // 2
        draw.rectangle((r.x, top, r.x + 15, top + 15), fill=Theme.field_bg, outline=Theme.field_border)
        if self.checked:
            draw.line([(r.x + 3, top + 8), (r.x + 6, top + 12), (r.x + 12, top + 3)], fill=Theme.text, width=2)
        draw_text(draw, r.x + 24, r.y + (r.height - LINE_HEIGHT) // 2, self.name,
                  Theme.text if self.enabled else Theme.text_disabled, max_width=r.width - 24)  # fmt: skip
        if self.has_focus:
            focus_ring(draw, r)


ROW = 24


class RadioGroup(Widget):
    """Mutually exclusive options stacked vertically; arrows move the choice when focused."""

    role = "radiogroup"
    focusable = True

    def __init__(self, name: str = "", options: Sequence[str] = (), selected: str | None = None,
                 on_change: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        self.options = list(options)
        self.selected = selected
        self.on_change = on_change

    def option_rect(self, index: int) -> Rect:
        return Rect(self.rect.x, self.rect.y + index * ROW, self.rect.width, ROW)

    def select(self, option: str | None) -> None:
        if option != self.selected:
            self.selected = option
            if self.on_change:
                self.on_change(self)

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, max(1, len(self.options)) * ROW

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        index = (event.y - self.rect.y) // ROW
        self.focus()
        if 0 <= index < len(self.options):
            self.select(self.options[index])
        return True

    def on_key(self, event: KeyEvent) -> bool:
        if not self.options or event.mods - {"shift"}:
            return False
        index = self.options.index(self.selected) if self.selected in self.options else -1
        if event.key in ("down", "right"):
            self.select(self.options[min(len(self.options) - 1, index + 1)])
        elif event.key in ("up", "left"):
            self.select(self.options[max(0, index - 1)])
        elif event.key == "space" and index < 0:
            self.select(self.options[0])
        else:
            return False
        return True

    def node_value(self) -> Any:
        return self.selected

    def child_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        nodes = []
        for index, option in enumerate(self.options):
            bounds = ctx.bounds(self.option_rect(index))
            if bounds is not None:
                checked = ["checked"] if option == self.selected else []
                nodes.append({"role": "radio", "name": option, "bounds": bounds, "states": checked,
                              "value": option == self.selected, "children": []})  # fmt: skip
        return nodes

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        for index, option in enumerate(self.options):
            r = self.option_rect(index)
            cy = r.y + ROW // 2
            draw.ellipse((r.x, cy - 8, r.x + 15, cy + 7), fill=Theme.field_bg, outline=Theme.field_border)
            if option == self.selected:
                draw.ellipse((r.x + 4, cy - 4, r.x + 11, cy + 3), fill=Theme.text)
            color = Theme.text if self.enabled else Theme.text_disabled
            draw_text(draw, r.x + 24, cy - LINE_HEIGHT // 2, option, color, max_width=r.width - 24)
        if self.has_focus:
            focus_ring(draw, self.rect)


class Slider(Widget):
    """A horizontal value slider: drag the thumb, click the track, or use the arrow keys."""

    role = "slider"
    focusable = True
    VALUE_WIDTH = 48
    THUMB = 12

    def __init__(self, name: str = "", minimum: float = 0, maximum: float = 100, value: float | None = None,
                 step: float = 1, on_change: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        if maximum <= minimum or step <= 0:
            raise ValueError("a slider needs minimum < maximum and step > 0")
        self.minimum, self.maximum, self.step = minimum, maximum, step
        self.current = minimum if value is None else value
        self.on_change = on_change

    def track(self) -> Rect:
        r = self.rect
        return Rect(r.x + self.THUMB // 2, r.y, max(1, r.width - self.VALUE_WIDTH - self.THUMB), r.height)

    def set_value(self, value: float) -> None:
        steps = round((value - self.minimum) / self.step)
        snapped = min(self.maximum, max(self.minimum, self.minimum + steps * self.step))
        if isinstance(self.step, int) and isinstance(self.minimum, int):
            snapped = int(snapped)
        if snapped != self.current:
            self.current = snapped
            if self.on_change:
                self.on_change(self)

    def thumb_x(self) -> int:
        track = self.track()
        fraction = (self.current - self.minimum) / (self.maximum - self.minimum)
        return track.x + round(fraction * (track.width - 1))

    def _value_at(self, x: int) -> float:
        track = self.track()
        fraction = min(1.0, max(0.0, (x - track.x) / max(1, track.width - 1)))
        return self.minimum + fraction * (self.maximum - self.minimum)

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        self.focus()
        if event.x < self.track().right + self.THUMB:
            self.set_value(self._value_at(event.x))
        return True

    def on_mouse_drag(self, event: MouseEvent) -> None:
        self.set_value(self._value_at(event.x))

    def on_key(self, event: KeyEvent) -> bool:
        moves = {"left": -1, "down": -1, "right": 1, "up": 1, "pagedown": -10, "pageup": 10}
        if event.key in moves:
            self.set_value(self.current + moves[event.key] * self.step)
        elif event.key == "home":
            self.set_value(self.minimum)
        elif event.key == "end":
            self.set_value(self.maximum)
        else:
            return False
        return True

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 28

    def node_value(self) -> Any:
        return self.current

    @property
    def value(self) -> Any:
        return self.current

    @value.setter
    def value(self, value: float) -> None:
        self.set_value(value)

    def nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        """Bounds are the track, so ``left + f * (right - left)`` is the point for fraction ``f``."""
        nodes = super().nodes(ctx)
        bounds = ctx.bounds(self.track())
        if nodes and bounds is not None:
            nodes[0]["bounds"] = bounds
        return nodes

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        track = self.track()
        cy = self.rect.y + self.rect.height // 2
        draw.rectangle((track.x, cy - 2, track.right - 1, cy + 1), fill=Theme.border)
        tx = self.thumb_x()
        draw.rectangle((track.x, cy - 2, tx, cy + 1), fill=Theme.focus)
        half = self.THUMB // 2
        draw.rounded_rectangle((tx - half, cy - 10, tx + half, cy + 9), radius=3, fill=Theme.button,
                               outline=Theme.border)  # fmt: skip
        text = f"{self.current:g}"
        draw_text(draw, self.rect.right - self.VALUE_WIDTH + 8, cy - LINE_HEIGHT // 2, text, Theme.text)
        if self.has_focus:
            focus_ring(draw, self.rect)
