"""Editable text: the one-line ``TextField`` and the multi-line ``TextArea`` (alias ``TextEditor``).

Both edit a ``TextBuffer`` with the keys of common desktop toolkits: arrows (shift extends the
selection, ctrl moves by word), home/end, backspace/delete, ctrl+a/c/x/v/z/y, and the mouse
(click places the caret, shift+click and dragging select, double click selects a word).

Typed characters are marked typed into the widget, and a copy puts the selection's origins on the
desktop's clipboard with the widget it came from, so a paste marks each character with where it
was copied from and where it was first typed or set (``origins``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, MouseEvent, ScrollEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.provenance import PASTED, TYPED_HERE, Clip, Origin
from cua_bench.sim.render import LINE_HEIGHT, Theme, draw_text, fit_text, focus_ring, text_index_at, text_width
from cua_bench.sim.text import TextBuffer
from cua_bench.sim.widget import Callback, Widget

__all__ = ["TextArea", "TextEditor", "TextField"]

PAD = 6


class _TextWidget(Widget):
    role = "textbox"
    focusable = True
    multiline = False

    def __init__(self, name: str = "", text: str = "", *, placeholder: str = "", read_only: bool = False,
                 on_change: Callback | None = None, on_submit: Callback | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, **kw)
        self.buffer = TextBuffer(text, multiline=self.multiline)
        self.placeholder = placeholder
        self.read_only = read_only
        self.on_change = on_change
        self.on_submit = on_submit
        self._scroll_x = 0.0
        self._drag_anchor: int | None = None

    # --- state -----------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return self.buffer.text

    @text.setter
    def text(self, value: str) -> None:
        self.buffer.set_text(value)
        self._after_edit(changed=True)

    @property
    def caret(self) -> int:
        return self.buffer.caret

    @property
    def selection(self) -> tuple[int, int]:
        return self.buffer.selection

    @property
    def selected_text(self) -> str:
        return self.buffer.selected_text

    def states(self) -> list[str]:
        states = [*super().states(), "editable" if not self.read_only else "readonly"]
        if self.multiline:
            states.append("multiline")
        if self.buffer.has_selection:
            states.append("selected")
        return states

    def node_value(self) -> Any:
        return self.text

    def origins(self) -> tuple[Origin, ...]:
        """Where each character of the text came from: typed into this widget, pasted into it (from
        which widget, and where it was first typed or set), or set by a program."""
        return self._resolved(self.buffer.origins)

    def _resolved(self, origins: Sequence[Origin]) -> tuple[Origin, ...]:
        """The buffer's origins with ``into`` filled in as this widget (as they leave it)."""
        ref = self.ref
        done: dict[int, Origin] = {}  # by identity: a run of characters shares one origin
        out = []
        for origin in origins:
            resolved = done.get(id(origin))
            if resolved is None:
                resolved = done[id(origin)] = replace(origin, into=ref)
            out.append(resolved)
        return tuple(out)

    def _after_edit(self, changed: bool) -> None:
        self._ensure_visible()
        self.invalidate()
        if changed and self.on_change:
            self.on_change(self)

    def _ensure_visible(self) -> None:
        raise NotImplementedError

    def _index_at(self, event: MouseEvent) -> int:
        raise NotImplementedError

    # --- keyboard --------------------------------------------------------------------------

    def _copy(self, *, cut: bool = False) -> None:
        desktop = self.desktop
        if desktop is not None:
            selected = self._resolved(self.buffer.selected_origins)
            desktop.clip = Clip(self.buffer.selected_text, selected, self.ref, cut)

    def _paste(self) -> bool:
        desktop = self.desktop
        clip = desktop.clip if desktop is not None else Clip("", ())
        made: dict[int, Origin] = {}
        marks = []
        for origin in clip.origins:
            mark = made.get(id(origin))
            if mark is None:
                mark = made[id(origin)] = Origin(PASTED, copied_from=clip.source, root=origin.first)
            marks.append(mark)
        return self.buffer.insert(clip.text, origin=marks)

    def _edit(self, key: str, event: KeyEvent) -> bool | None:
        """Editing keys; None when ``key`` is not one of them. Returns whether the text changed."""
        buffer = self.buffer
        if event.ctrl and key == "a":
            buffer.select_all()
            return False
        if event.ctrl and key == "c":
            if buffer.has_selection:
                self._copy()
            return False
        if self.read_only:
            return None
        if event.ctrl and key == "x":
            if not buffer.has_selection:
                return False
            self._copy(cut=True)
            return buffer.delete_selection()
        if event.ctrl and key == "v":
            return self._paste()
        if event.ctrl and (key == "y" or (key == "z" and event.shift)):
            return buffer.redo()
        if event.ctrl and key == "z":
            return buffer.undo()
        if key == "backspace":
            return buffer.backspace(word=event.ctrl)
        if key == "delete":
            return buffer.delete(word=event.ctrl)
        if event.text is not None and not event.ctrl and not event.alt:
            return buffer.insert(event.text, typing=True, origin=TYPED_HERE)
        return None

    def _visible_lines(self) -> int:
        return 1

    def on_key(self, event: KeyEvent) -> bool:
        key = event.key
        if key in ("left", "right", "home", "end", "up", "down", "pageup", "pagedown") and not event.alt:
            if key in ("up", "down") and not self.multiline:
                return False
            where = {"pageup": "up", "pagedown": "down"}.get(key, key)
            lines = self._visible_lines() if key in ("pageup", "pagedown") else 1
            self.buffer.move(where, select=event.shift, word=event.ctrl, lines=lines)
            self._after_edit(changed=False)
            return True
        if key == "enter" and not event.ctrl and not event.alt:
            if self.multiline and not self.read_only:
                self.buffer.insert("\n", typing=True, origin=TYPED_HERE)
                self._after_edit(changed=True)
                return True
            if self.on_submit:
                self.on_submit(self)
                return True
            return False
        changed = self._edit(key, event)
        if changed is None:
            return False
        self._after_edit(changed)
        return True

    # --- mouse -----------------------------------------------------------------------------

    def on_mouse_down(self, event: MouseEvent) -> bool:
        if not self.enabled or event.button != "left":
            return False
        self.focus()
        index = self._index_at(event)
        if event.count == 2:
            self.buffer.select_word(index)
        elif event.count >= 3:
            self._select_line(index)
        else:
            self.buffer.set_caret(index, select=event.shift)
            self._drag_anchor = self.buffer.anchor
        self._after_edit(changed=False)
        return True

    def _select_line(self, index: int) -> None:
        self.buffer.select_all()

    def on_mouse_drag(self, event: MouseEvent) -> None:
        if self._drag_anchor is not None:
            self.buffer.select(self._drag_anchor, self._index_at(event))
            self._after_edit(changed=False)

    def on_mouse_up(self, event: MouseEvent) -> None:
        self._drag_anchor = None

    def on_context(self, event: MouseEvent) -> bool:
        self.focus()
        return False

    def _box(self, draw: ImageDraw.ImageDraw) -> None:
        fill = Theme.field_bg if self.enabled and not self.read_only else Theme.window_bg
        draw.rectangle(self.rect.box(), fill=fill, outline=Theme.focus if self.has_focus else Theme.field_border)
        if self.has_focus:
            focus_ring(draw, self.rect)

    def _line(self, draw: ImageDraw.ImageDraw, line: str, start: int, x: float, y: int, inner: Rect) -> None:
        """One line of text whose first character is at buffer index ``start``, clipped to ``inner``."""
        sel_start, sel_end = self.buffer.selection
        end = start + len(line)
        if sel_start != sel_end and sel_start <= end and sel_end > start:
            a = text_width(line[: max(0, sel_start - start)])
            b = text_width(line[: min(len(line), sel_end - start)]) + (4 if sel_end > end else 0)
            left, right = max(inner.x, x + a), min(inner.right - 1, x + b)
            if right > left:
                draw.rectangle((left, y, right, y + LINE_HEIGHT - 1), fill=Theme.selection)
        first, last = fit_text(line, inner.x - x, inner.width)
        if last > first:
            color = Theme.text if self.enabled else Theme.text_disabled
            draw_text(draw, x + text_width(line[:first]), y, line[first:last], color)
        caret = self.buffer.caret
        if self.has_focus and start <= caret <= end:
            cx = round(x + text_width(line[: caret - start]))
            if inner.x <= cx <= inner.right:
                draw.line([(cx, y + 1), (cx, y + LINE_HEIGHT - 2)], fill=Theme.text, width=1)


class TextField(_TextWidget):
    """One line of editable text. Enter calls ``on_submit`` (or the window's default button)."""

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 30

    def _inner(self) -> Rect:
        r = self.rect
        return Rect(r.x + PAD, r.y + (r.height - LINE_HEIGHT) // 2, max(1, r.width - 2 * PAD), LINE_HEIGHT)

    def _ensure_visible(self) -> None:
        inner = self._inner().width
        caret = text_width(self.text[: self.buffer.caret])
        total = text_width(self.text)
        if caret - self._scroll_x > inner:
            self._scroll_x = caret - inner
        self._scroll_x = min(self._scroll_x, caret)
        self._scroll_x = max(0.0, min(self._scroll_x, max(0.0, total - inner + 1)))

    def _index_at(self, event: MouseEvent) -> int:
        return text_index_at(self.text, event.x - self._inner().x + self._scroll_x)

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        self._box(draw)
        inner = self._inner()
        if not self.text and self.placeholder and not self.has_focus:
            draw_text(draw, inner.x, inner.y, self.placeholder, Theme.placeholder, max_width=inner.width)
        self._line(draw, self.text, 0, inner.x - self._scroll_x, inner.y, inner)


class TextArea(_TextWidget):
    """Multi-line text that scrolls (wheel, caret moves). ``accepts_tab`` makes tab indent."""

    multiline = True

    def __init__(self, name: str = "", text: str = "", *, accepts_tab: bool = False, **kw: Any) -> None:
        super().__init__(name, text, **kw)
        self.accepts_tab = accepts_tab
        self._top = 0

    @property
    def scroll_top(self) -> int:
        """The first visible line."""
        return self._top

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 6 * LINE_HEIGHT + 2 * PAD

    def _inner(self) -> Rect:
        r = self.rect
        return Rect(r.x + PAD, r.y + PAD - 2, max(1, r.width - 2 * PAD - 6), max(LINE_HEIGHT, r.height - 2 * PAD + 4))

    def _visible_lines(self) -> int:
        return max(1, self._inner().height // LINE_HEIGHT)

    def _ensure_visible(self) -> None:
        line, col = self.buffer.line_col(self.buffer.caret)
        rows = self._visible_lines()
        if line < self._top:
            self._top = line
        elif line >= self._top + rows:
            self._top = line - rows + 1
        self._top = max(0, min(self._top, max(0, len(self.buffer.lines) - rows)))
        inner = self._inner().width
        caret = text_width(self.buffer.lines[line][:col])
        if caret - self._scroll_x > inner:
            self._scroll_x = caret - inner + 40
        if caret < self._scroll_x:
            self._scroll_x = max(0.0, caret - 40)

    def _index_at(self, event: MouseEvent) -> int:
        inner = self._inner()
        line = self._top + max(0, (event.y - inner.y) // LINE_HEIGHT)
        lines = self.buffer.lines
        if line >= len(lines):
            return len(self.text)
        col = text_index_at(lines[line], event.x - inner.x + self._scroll_x)
        return self.buffer.index_of(line, col)

    def _select_line(self, index: int) -> None:
        line, _ = self.buffer.line_col(index)
        start = self.buffer.index_of(line, 0)
        self.buffer.select(start, start + len(self.buffer.lines[line]))

    def on_key(self, event: KeyEvent) -> bool:
        if event.key == "tab" and self.accepts_tab and not self.read_only and not event.mods:
            self.buffer.insert("    ", origin=TYPED_HERE)
            self._after_edit(changed=True)
            return True
        return super().on_key(event)

    def on_scroll(self, event: ScrollEvent) -> bool:
        if event.dy:
            rows = self._visible_lines()
            limit = max(0, len(self.buffer.lines) - rows)
            top = max(0, min(limit, self._top + 3 * event.amount * event.dy))
            if top == self._top:
                return False
            self._top = top
        else:
            self._scroll_x = max(0.0, self._scroll_x + 30 * event.amount * event.dx)
        self.invalidate()
        return True

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        self._box(draw)
        inner = self._inner()
        lines = self.buffer.lines
        if not self.text and self.placeholder and not self.has_focus:
            draw_text(draw, inner.x, inner.y, self.placeholder, Theme.placeholder, max_width=inner.width)
        start = sum(len(line) + 1 for line in lines[: self._top])
        rows = self._visible_lines()
        for index in range(self._top, min(len(lines), self._top + rows)):
            y = inner.y + (index - self._top) * LINE_HEIGHT
            self._line(draw, lines[index], start, inner.x - self._scroll_x, y, inner)
            start += len(lines[index]) + 1
        if len(lines) > rows:  # a scroll indicator on the right edge
            r = self.rect
            track = r.height - 8
            size = max(16, track * rows // len(lines))
            top = r.y + 4 + (track - size) * self._top // max(1, len(lines) - rows)
            draw.rectangle((r.right - 7, top, r.right - 4, top + size), fill=Theme.border)


TextEditor = TextArea
