"""The text editing model behind text fields and editors: caret, selection, undo and redo.

It knows nothing about pixels or keys, so every editing rule is testable on its own and both
the one-line field and the multi-line editor share it. Each character carries its ``Origin``
(``cua_bench.sim.provenance``) through every edit, undo and redo, so where the text came from is
a fact the buffer keeps, not something read back from the keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cua_bench.sim.provenance import SET_HERE, Origin

__all__ = ["TextBuffer"]


@dataclass(frozen=True, slots=True)
class _Snapshot:
    text: str
    caret: int
    anchor: int
    origins: tuple[Origin, ...]


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


class TextBuffer:
    """Text with a caret and an anchor: the selection is the span between them.

    Consecutive typed characters form one undo step (as in most editors), so ``ctrl+z`` after
    typing a word removes the word, not its last letter.
    """

    def __init__(self, text: str = "", *, multiline: bool = False, max_undo: int = 500,
                 origin: Origin = SET_HERE) -> None:  # fmt: skip
        self.multiline = multiline
        self.max_undo = max_undo
        self._text, self._origins = self._clean(text, origin)
        self.caret = len(self._text)
        self.anchor = self.caret
        self._undo: list[_Snapshot] = []
        self._redo: list[_Snapshot] = []
        self._typing = False

    # --- state -----------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return self._text

    @property
    def origins(self) -> tuple[Origin, ...]:
        """Each character's origin, as the buffer keeps it (``into`` None: this buffer's widget)."""
        return self._origins

    @property
    def selected_origins(self) -> tuple[Origin, ...]:
        start, end = self.selection
        return self._origins[start:end]

    def set_text(self, text: str, origin: Origin = SET_HERE) -> None:
        """Replace everything as a program would: caret to the end, history forgotten."""
        self._text, self._origins = self._clean(text, origin)
        self.caret = self.anchor = len(self._text)
        self._undo.clear()
        self._redo.clear()
        self._typing = False

    @property
    def selection(self) -> tuple[int, int]:
        return (min(self.caret, self.anchor), max(self.caret, self.anchor))

    @property
    def has_selection(self) -> bool:
        return self.caret != self.anchor

    @property
    def selected_text(self) -> str:
        start, end = self.selection
        return self._text[start:end]

    @property
    def lines(self) -> list[str]:
        return self._text.split("\n")

    def line_col(self, index: int) -> tuple[int, int]:
        before = self._text[:index]
        line = before.count("\n")
        return line, index - (before.rfind("\n") + 1)

    def index_of(self, line: int, col: int) -> int:
        lines = self.lines
        line = max(0, min(line, len(lines) - 1))
        start = sum(len(text) + 1 for text in lines[:line])
        return start + max(0, min(col, len(lines[line])))

    def _clean(self, text: str, origin: Origin | Sequence[Origin]) -> tuple[str, tuple[Origin, ...]]:
        """Line ends made ``\n`` (a space in one line), with one origin per character kept: ``origin``
        for all of them, or a sequence of one per character of ``text``."""
        marks = (origin,) * len(text) if isinstance(origin, Origin) else tuple(origin)
        if len(marks) != len(text):
            raise ValueError(f"{len(marks)} origins for {len(text)} characters")
        if "\r" not in text and (self.multiline or "\n" not in text):
            return text, marks
        chars: list[str] = []
        kept: list[Origin] = []
        for index, char in enumerate(text):
            if char == "\r" and text[index + 1 : index + 2] == "\n":
                continue  # \r\n is one line end: the \n's
            end = char in "\r\n"
            chars.append(char if not end else "\n" if self.multiline else " ")
            kept.append(marks[index])
        return "".join(chars), tuple(kept)

    # --- history ---------------------------------------------------------------------------

    def _push(self, typing: bool = False, *, fresh: bool = False) -> None:
        if typing and self._typing and not fresh:
            return
        self._undo.append(self._snapshot())
        del self._undo[: -self.max_undo]
        self._redo.clear()
        self._typing = typing

    def undo(self) -> bool:
        if not self._undo:
            return False
        self._redo.append(self._snapshot())
        self._restore(self._undo.pop())
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        self._undo.append(self._snapshot())
        self._restore(self._redo.pop())
        return True

    def _snapshot(self) -> _Snapshot:
        return _Snapshot(self._text, self.caret, self.anchor, self._origins)

    def _restore(self, snap: _Snapshot) -> None:
        self._text, self.caret, self.anchor, self._origins = snap.text, snap.caret, snap.anchor, snap.origins
        self._typing = False

    # --- editing ---------------------------------------------------------------------------

    def insert(self, text: str, *, typing: bool = False, origin: Origin | Sequence[Origin] = SET_HERE) -> bool:
        """Replace the selection with ``text``; ``typing`` joins the previous undo step. ``origin``:
        where the new text comes from (one for all of it, or one per character)."""
        text, marks = self._clean(text, origin)
        if not text and not self.has_selection:
            return False
        self._push(typing=typing, fresh=self.has_selection)
        start, end = self.selection
        self._text = self._text[:start] + text + self._text[end:]
        self._origins = self._origins[:start] + marks + self._origins[end:]
        self.caret = self.anchor = start + len(text)
        return True

    def delete_selection(self) -> bool:
        if not self.has_selection:
            return False
        return self.insert("")

    def backspace(self, *, word: bool = False) -> bool:
        if self.has_selection:
            return self.delete_selection()
        if self.caret == 0:
            return False
        self.anchor = self._word_left(self.caret) if word else self.caret - 1
        return self.insert("")

    def delete(self, *, word: bool = False) -> bool:
        if self.has_selection:
            return self.delete_selection()
        if self.caret >= len(self._text):
            return False
        self.anchor = self._word_right(self.caret) if word else self.caret + 1
        return self.insert("")

    # --- caret -----------------------------------------------------------------------------

    def set_caret(self, index: int, *, select: bool = False) -> None:
        self.caret = max(0, min(index, len(self._text)))
        if not select:
            self.anchor = self.caret
        self._typing = False

    def select(self, start: int, end: int) -> None:
        self.anchor = max(0, min(start, len(self._text)))
        self.set_caret(end, select=True)

    def select_all(self) -> None:
        self.select(0, len(self._text))

    def select_word(self, index: int) -> None:
        index = max(0, min(index, len(self._text)))
        start = index
        while start > 0 and _is_word(self._text[start - 1]):
            start -= 1
        end = index
        while end < len(self._text) and _is_word(self._text[end]):
            end += 1
        self.select(start, end)

    def _word_left(self, index: int) -> int:
        while index > 0 and not _is_word(self._text[index - 1]):
            index -= 1
        while index > 0 and _is_word(self._text[index - 1]):
            index -= 1
        return index

    def _word_right(self, index: int) -> int:
        size = len(self._text)
        while index < size and not _is_word(self._text[index]):
            index += 1
        while index < size and _is_word(self._text[index]):
            index += 1
        return index

    def move(self, where: str, *, select: bool = False, word: bool = False, lines: int = 1) -> None:
        """Move the caret: ``left``/``right`` (by word with ``word``), ``home``/``end`` (of the
        line; of the text with ``word``, as ctrl+home does), ``up``/``down`` by ``lines``."""
        caret = self.caret
        if not select and self.has_selection and where in ("left", "right") and not word:
            start, end = self.selection
            self.set_caret(start if where == "left" else end)
            return
        line, col = self.line_col(caret)
        if where == "left":
            caret = self._word_left(caret) if word else caret - 1
        elif where == "right":
            caret = self._word_right(caret) if word else caret + 1
        elif where == "home":
            caret = 0 if word or not self.multiline else self.index_of(line, 0)
        elif where == "end":
            caret = len(self._text) if word or not self.multiline else self.index_of(line, len(self.lines[line]))
        elif where in ("up", "down"):
            if not self.multiline:
                caret = 0 if where == "up" else len(self._text)
            else:
                target = line - lines if where == "up" else line + lines
                if target < 0:
                    caret = 0
                elif target >= len(self.lines):
                    caret = len(self._text)
                else:
                    caret = self.index_of(target, col)
        else:
            raise ValueError(f"unknown caret motion {where!r}")
        self.set_caret(caret, select=select)
