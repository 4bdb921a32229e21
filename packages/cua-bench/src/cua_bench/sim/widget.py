"""The widget base class: geometry in window pixels, focus, input hooks, and its accessibility node.

Assigning any public attribute of a widget marks its window for repainting, so setup code and
callbacks can change state directly (``label.text = ...``) and the next frame shows it; the
desktop only repaints windows that changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from PIL import ImageDraw

from cua_bench.sim.events import KeyEvent, MouseEvent, ScrollEvent
from cua_bench.sim.geometry import Rect, normalised_bounds
from cua_bench.sim.provenance import WidgetRef, new_serial

if TYPE_CHECKING:
    from cua_bench.sim.desktop import SimDesktop
    from cua_bench.sim.windows import Window

__all__ = ["A11yContext", "Callback", "Widget"]

Callback = Callable[..., Any]


class A11yContext:
    """Turns window-local rectangles into normalised, clipped screen bounds for one window."""

    def __init__(self, window_rect: Rect, screen_width: int, screen_height: int) -> None:
        self.origin = (window_rect.x, window_rect.y)
        self.width, self.height = screen_width, screen_height
        screen = Rect(0, 0, screen_width, screen_height)
        self.clip = window_rect.intersect(screen)

    def screen(self, rect: Rect) -> Rect | None:
        """The visible part of a window-local rectangle, in screen pixels."""
        if self.clip is None:
            return None
        return rect.moved(*self.origin).intersect(self.clip)

    def bounds(self, rect: Rect, within: Rect | None = None) -> list[float] | None:
        """Normalised bounds of the part of ``rect`` inside the window (and ``within``, if given)."""
        if within is not None:
            clipped = rect.intersect(within)
            if clipped is None:
                return None
            rect = clipped
        visible = self.screen(rect)
        return None if visible is None else normalised_bounds(visible, self.width, self.height)

    def screen_bounds(self, rect: Rect) -> list[float] | None:
        """Bounds of a rectangle already in screen pixels (popups), clipped to the screen."""
        visible = rect.intersect(Rect(0, 0, self.width, self.height))
        return None if visible is None else normalised_bounds(visible, self.width, self.height)


_NOT_INPUTS = frozenset({"label", "button", "draggable", "menubar"})


class Widget:
    """Something drawn in a window that may take the pointer and the keyboard."""

    role: ClassVar[str] = "generic"
    focusable: ClassVar[bool] = False
    # Its value is where the person is (a file list's selection), not something they made.
    navigates: ClassVar[bool] = False

    def __init__(
        self,
        name: str = "",
        *,
        x: int | None = None,
        y: int | None = None,
        width: int | None = None,
        height: int | None = None,
        enabled: bool = True,
        visible: bool = True,
    ) -> None:
        self._window: Window | None = None
        self._parent: Widget | None = None
        self._serial = new_serial()
        self._placed = x is not None and y is not None
        self._want = (width, height)
        self.name = name
        self.rect = Rect(x or 0, y or 0, width or 0, height or 0)
        self.enabled = enabled
        self.visible = visible

    def __setattr__(self, key: str, value: Any) -> None:
        object.__setattr__(self, key, value)
        if key[0] != "_":
            self.invalidate()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # --- place in the tree -----------------------------------------------------------------

    @property
    def window(self) -> Window | None:
        return getattr(self, "_window", None)

    @property
    def desktop(self) -> SimDesktop | None:
        window = self.window
        return None if window is None else window.desktop

    @property
    def parent(self) -> Widget | None:
        return self._parent

    @property
    def ref(self) -> WidgetRef:
        """This widget as the desktop's records name it (``cua_bench.sim.provenance``)."""
        window = self.window
        return WidgetRef(window.id if window is not None else "", self.name, self._serial)

    def attach(self, window: Window | None, parent: Widget | None = None) -> None:
        self._window = window
        self._parent = parent
        for child in self.children():
            child.attach(window, self)

    def children(self) -> list[Widget]:
        return []

    def invalidate(self) -> None:
        """Mark the window for repainting (the desktop re-renders only dirty windows)."""
        window = getattr(self, "_window", None)
        if window is not None:
            window.invalidate()

    def screen_rect(self) -> Rect:
        window = self.window
        return self.rect if window is None else self.rect.moved(window.rect.x, window.rect.y)

    # --- focus -----------------------------------------------------------------------------

    @property
    def has_focus(self) -> bool:
        window = self.window
        return window is not None and window.focus_widget is self and window.active

    def can_focus(self) -> bool:
        return self.focusable and self.enabled and self.visible

    def focus(self) -> None:
        if self.window is not None:
            self.window.set_focus(self)

    def on_focus_change(self, focused: bool) -> None:
        """Called when keyboard focus arrives or leaves (text fields end an edit on blur)."""

    # --- sizes for layout ------------------------------------------------------------------

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 28

    def layout(self) -> None:
        """Place children after the window set ``rect`` (drop targets stack their chips)."""

    # --- input: return True when the event was used ----------------------------------------

    def on_mouse_down(self, event: MouseEvent) -> bool:
        return False

    def on_mouse_drag(self, event: MouseEvent) -> None:
        """The pointer moved while the button pressed on this widget is still down."""

    def on_mouse_up(self, event: MouseEvent) -> None:
        """The button pressed on this widget was released (anywhere)."""

    def on_hover(self, event: MouseEvent) -> bool:
        """The pointer moved over the widget with no button down; True when the look changed."""
        return False

    def on_context(self, event: MouseEvent) -> bool:
        """A right click on the widget."""
        return False

    def on_scroll(self, event: ScrollEvent) -> bool:
        return False

    def on_key(self, event: KeyEvent) -> bool:
        return False

    # --- drawing and accessibility ---------------------------------------------------------

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        """Draw in window-local pixels."""

    def states(self) -> list[str]:
        states = []
        if self.has_focus:
            states.append("focused")
        if not self.enabled:
            states.append("disabled")
        return states

    def node_value(self) -> Any:
        """The accessibility node's ``value``."""
        return None

    @property
    def value(self) -> Any:
        """The widget's value as evaluators read it: text, checked, the chosen option, a number."""
        return self.node_value()

    @property
    def is_input(self) -> bool:
        """Whether its value is something a person sets: named, not a label, button, drag chip or menu
        bar, and not a place to move around in."""
        return bool(self.name) and self.role not in _NOT_INPUTS and not self.navigates

    def child_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        return [node for child in self.children() if child.visible for node in child.nodes(ctx)]

    def popup_nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        """The open popup this widget owns (a dropdown's list, a context menu), as a child node."""
        desktop = self.desktop
        popup = None if desktop is None else desktop.popup
        if popup is None or popup.owner is not self:
            return []
        node = popup.node(ctx, self.name)
        return [] if node is None else [node]

    def nodes(self, ctx: A11yContext) -> list[dict[str, Any]]:
        """This widget's accessibility node (a list: empty when it is not visible on screen)."""
        bounds = ctx.bounds(self.rect)
        if bounds is None:
            return []
        return [
            {
                "role": self.role,
                "name": self.name,
                "bounds": bounds,
                "states": self.states(),
                "value": self.node_value(),
                "children": self.child_nodes(ctx) + self.popup_nodes(ctx),
            }
        ]
