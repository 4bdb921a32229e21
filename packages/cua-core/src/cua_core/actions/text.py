"""The text form of actions, as models write them: ``click(500, 300)``, ``key("ctrl+c")``.

Model output is untrusted, so the text is read with ``ast`` and only literal arguments are
accepted (``ast.literal_eval`` on each argument); nothing is ever evaluated. Positional arguments
follow each record's field order, and two numbers where a kind takes a point are folded into that
point, so ``click(500, 300)`` and ``click(coordinate=[500, 300])`` are the same action.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
import textwrap
from typing import Any

from cua_core.actions.checks import describe
from cua_core.actions.dicts import POINT_FIELDS, action_from_dict, action_to_dict
from cua_core.actions.keys import split_key_combo
from cua_core.actions.records import ACTIONS, Action
from cua_core.errors import ActionError

__all__ = ["format_action", "parse_action", "parse_actions"]

# Positional parameter order per kind: the record's field order.
_PARAMS: dict[str, tuple[str, ...]] = {
    kind: tuple(field.name for field in dataclasses.fields(cls)) for kind, cls in ACTIONS.items()
}
# Kinds that take exactly one point also accept it as x=..., y=... keywords.
_XY_FIELD: dict[str, str] = {
    kind: points[0]
    for kind, params in _PARAMS.items()
    if len(points := [name for name in params if name in POINT_FIELDS]) == 1
}
_LITERAL_HINT = "only numbers, strings, lists, tuples, True, False and None are allowed"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _syntax_error(text: str, error: SyntaxError) -> ActionError:
    lines = re.split(r"\r\n|\r|\n", text)
    lineno = min(max(error.lineno or 1, 1), len(lines))
    line = lines[lineno - 1]
    column = min(max(error.offset or 1, 1), len(line) + 1)
    start = max(0, column - 60)  # a window keeps the caret readable on very long lines
    return ActionError(
        f"cannot parse {describe(text)}: {error.msg} at line {lineno}, column {column}\n"
        f"    {line[start : start + 120]}\n    {' ' * (column - 1 - start)}^"
    )


def _parse_module(text: str) -> ast.Module:
    try:
        return ast.parse(text, mode="exec")
    except SyntaxError as error:
        raise _syntax_error(text, error) from None
    except (ValueError, RecursionError, MemoryError):
        # Null bytes or absurd nesting (the parser gives up with MemoryError): still the model's
        # mistake, never a crash.
        raise ActionError(f"cannot parse {describe(text)}: too deeply nested or not text a parser can read") from None


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def _fail(source: str, node: ast.AST, reason: str) -> ActionError:
    column = getattr(node, "col_offset", 0) + 1
    line = getattr(node, "lineno", 1)
    return ActionError(f"cannot parse {describe(_segment(source, node))} (line {line}, column {column}): {reason}")


def _literal(source: str, node: ast.expr, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _fail(source, node, f"{what} is not a literal ({_LITERAL_HINT})") from None


def _kind_of(source: str, call: ast.Call) -> str:
    if not isinstance(call.func, ast.Name):
        raise _fail(
            source,
            call.func,
            f"{_segment(source, call.func)} is not an action name; only literal calls "
            "such as click(500, 300) are read, nothing is evaluated; "
            f"known actions: {', '.join(ACTIONS)}",
        )
    kind = call.func.id
    if kind not in ACTIONS:
        close = difflib.get_close_matches(kind, ACTIONS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise _fail(source, call.func, f"unknown action {kind!r}; {hint}known actions: {', '.join(ACTIONS)}")
    return kind


def _assign_positional(source: str, call: ast.Call, kind: str) -> dict[str, Any]:
    values = [_literal(source, arg, f"argument {n}") for n, arg in enumerate(call.args, 1)]
    params = _PARAMS[kind]
    # key("ctrl", "c") is how pyautogui's hotkey reads; accept it as one chord.
    if kind == "key" and len(values) > 1 and all(isinstance(v, str) for v in values):
        return {"keys": values}
    assigned: dict[str, Any] = {}
    index = 0
    for param in params:
        if index >= len(values):
            break
        value = values[index]
        index += 1
        pair_follows = index < len(values) and _is_number(values[index])
        if param in POINT_FIELDS and _is_number(value) and pair_follows:
            value = [value, values[index]]
            index += 1
        assigned[param] = value
    if index < len(values):
        expected = ", ".join(params) or "no arguments"
        raise _fail(
            source,
            call,
            f"too many arguments for {kind}: it takes {expected}; "
            f"extra: {', '.join(describe(v) for v in values[index:])}",
        )
    return assigned


def _assign_keywords(source: str, call: ast.Call, kind: str, assigned: dict[str, Any]) -> dict[str, Any]:
    params = _PARAMS[kind]
    xy: dict[str, Any] = {}
    for keyword in call.keywords:
        name = keyword.arg
        if name is None:
            raise _fail(source, keyword, "unpacking with ** is not allowed")
        value = _literal(source, keyword.value, f"argument {name}")
        if name in assigned or name in xy:
            raise _fail(source, keyword, f"{kind} got {name!r} twice")
        if name in ("x", "y") and kind in _XY_FIELD:
            xy[name] = value
            continue
        if name not in params:
            allowed = list(params) + (["x", "y"] if kind in _XY_FIELD else [])
            raise _fail(
                source,
                keyword,
                f"{kind} has no argument {name!r}; allowed: {', '.join(allowed) or 'none'}",
            )
        assigned[name] = value
    if xy:
        field = _XY_FIELD[kind]
        if set(xy) != {"x", "y"}:
            raise _fail(source, call, f"{kind}: x and y must be given together")
        if field in assigned:
            raise _fail(source, call, f"{kind} got {field!r} twice (as {field} and as x, y)")
        assigned[field] = [xy["x"], xy["y"]]
    return assigned


def _call_to_action(source: str, call: ast.Call) -> Action:
    kind = _kind_of(source, call)
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            raise _fail(source, arg, "unpacking with * is not allowed")
    fields = _assign_keywords(source, call, kind, _assign_positional(source, call, kind))
    # A chord may be written as one string, key("ctrl+c"); lists keep their tokens as given.
    if isinstance(fields.get("keys"), str):
        try:
            fields["keys"] = list(split_key_combo(fields["keys"]))
        except ActionError as error:
            raise _fail(source, call, f"{kind}.keys: {error}") from None
    try:
        return action_from_dict({"kind": kind, **fields})
    except ActionError as error:
        raise _fail(source, call, str(error)) from None


def parse_actions(text: str) -> list[Action]:
    """Every action in ``text``: calls separated by newlines or ``;``. Blank text is no actions."""
    if not isinstance(text, str):
        raise ActionError(f"action text must be a string, got {describe(text)}")
    source = textwrap.dedent(text).strip()
    if not source:
        return []
    actions: list[Action] = []
    for statement in _parse_module(source).body:
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            raise _fail(source, statement, "expected an action call such as click(500, 300)")
        actions.append(_call_to_action(source, statement.value))
    return actions


def parse_action(text: str) -> Action:
    """The one action in ``text``; zero or several are an error (use ``parse_actions``)."""
    actions = parse_actions(text)
    if len(actions) != 1:
        raise ActionError(f"cannot parse {describe(text)}: expected exactly one action, found {len(actions)}")
    return actions[0]


def format_action(action: Action) -> str:
    """The text form of ``action``, with keyword arguments; ``parse_action`` reads it back."""
    defaults = {
        field.name: field.default for field in dataclasses.fields(action) if field.default is not dataclasses.MISSING
    }
    arguments = [
        f"{name}={value!r}"
        for name, value in action_to_dict(action).items()
        if name != "kind" and not (name in defaults and value == defaults[name])
    ]
    return f"{action.kind}({', '.join(arguments)})"
