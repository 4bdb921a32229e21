"""KEY=VALUE options of every cua command line (``--agent-option``, ``--trainer-option``, ...), typed by
what they configure.

Every ``--*-option`` family, and every settings file read into a typed config, goes through here, so
each is checked the same way and before anything starts: a key the target does not take is refused
with the closest spelling and the keys it takes, and each value becomes the type its parameter or
field is annotated with, or is refused naming the option and that type (``temperature=hot`` for a
float is an error, not a string sent on to a model server). A parameter without a usable annotation
(none, or ``Any``) reads its value as JSON where it is JSON (``3``, ``true``, ``[1, 2]``), else as text.

    raw = parse_pairs(("lr=3e-4", "lora=true"), "--trainer-option")   # {"lr": "3e-4", "lora": "true"}
    typed_options(TrainerConfig, raw, label="--trainer-option")      # {"lr": 0.0003, "lora": True}
"""

from __future__ import annotations

import collections.abc
import dataclasses
import difflib
import inspect
import json
import os
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePath
from typing import Any

from cua_core.errors import CuaError

__all__ = ["OptionError", "convert", "describe", "parse_pairs", "typed_options"]

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")
_SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_WORDS: dict[Any, str] = {bool: "true or false", int: "an integer", float: "a number", str: "text"}


class OptionError(CuaError):
    """A KEY=VALUE option that is malformed, unknown to what it configures, or of the wrong type."""


def parse_pairs(pairs: Iterable[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` strings as text by key (a repeated key: the last wins); typing is ``typed_options``'.
    A pair without ``=`` or a key is a usage error of ``flag`` (click's exit status 2)."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            import click  # here: an env server reads options through this module and never needs click

            raise click.BadParameter(f"{pair!r} is not KEY=VALUE (expected KEY=VALUE, like seed=3)", param_hint=flag)
        found[key.strip()] = value
    return found


@dataclasses.dataclass(frozen=True)
class _Accepts:
    types: dict[str, Any]  # each name a target takes, with its annotation (Any when it has none)
    required: list[str]
    any_name: bool  # it takes **kwargs too


def typed_options(
    target: Any,
    options: Mapping[str, Any],
    *,
    label: str = "",
    what: str = "option",
    flag: str | None = None,
    complete: bool = True,
) -> dict[str, Any]:
    """``options`` checked against ``target`` (a dataclass, a class or a function) and typed by its annotations.

    ``label`` starts each error (``agent 'openai'``); ``what`` names one key (option, setting);
    ``flag`` is what a user types to set one (``--agent-option``), named when a required one is missing;
    ``complete=False`` for a part of the settings, whose required keys may come later. A target whose
    signature cannot be read takes the options as they are.
    """
    accepts = _accepts(target)
    if accepts is None:
        return dict(options)
    prefix = f"{label}: " if label else ""
    known = list(accepts.types)
    typed: dict[str, Any] = {}
    for name, value in options.items():
        if name not in accepts.types:
            if accepts.any_name:
                typed[name] = _json_or_text(value) if isinstance(value, str) else value
                continue
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise OptionError(f"{prefix}unknown {what} {name!r}{hint} (its {what}s: {', '.join(known) or 'none'})")
        annotation = accepts.types[name]
        try:
            typed[name] = convert(value, annotation)
        except ValueError as exc:
            shown = value if isinstance(value, str) else repr(value)
            raise OptionError(
                f"{prefix}{flag or what} {name}={shown}: {name} must be {exc} ({_type_name(annotation)})"
            ) from None
    missing = [name for name in accepts.required if name not in typed] if complete else []
    if missing:
        setting = " ".join(f"{name}=..." for name in missing)
        raise OptionError(f"{prefix}needs {f'{flag} ' if flag else ''}{setting} (its {what}s: {', '.join(known)})")
    return typed


def convert(value: Any, annotation: Any) -> Any:
    """``value`` as ``annotation`` says: text (from a command line) converted, anything else checked.

    Raises ValueError whose message is what was expected (``a number``), for the caller to phrase.
    """
    if annotation in (Any, object, inspect.Parameter.empty) or isinstance(annotation, typing.TypeVar | str):
        return _json_or_text(value) if isinstance(value, str) else value
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and (value is None or (isinstance(value, str) and value.strip().lower() in _NONE)):
            return None
        # Text is tried last: "3" for ``int | str`` is the number.
        for choice in sorted((a for a in args if a is not type(None)), key=lambda a: a is str):
            try:
                return convert(value, choice)
            except ValueError:
                continue
        raise ValueError(describe(annotation))
    if origin is typing.Literal:
        for choice in args:
            if value == choice or (isinstance(value, str) and value == str(choice)):
                return choice
        close = difflib.get_close_matches(str(value), [str(a) for a in args], n=1)
        raise ValueError(describe(annotation) + (f" (did you mean {close[0]!r}?)" if close else ""))
    if annotation is bool:
        return _bool(value)
    if annotation is int:
        return _number(value, int)
    if annotation is float:
        return float(_number(value, float))
    if annotation is str:
        if isinstance(value, str | os.PathLike):  # a path a Python caller passes where text is declared
            return value
        raise ValueError(describe(annotation))
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        if isinstance(value, str | os.PathLike):
            return annotation(value)
        raise ValueError(describe(annotation))
    if annotation in _SEQUENCES or origin in _SEQUENCES:
        return _sequence(value, annotation, origin or annotation, args)
    if annotation in _MAPPINGS or origin in _MAPPINGS:
        found = _json_or_text(value) if isinstance(value, str) else value
        if isinstance(found, Mapping):
            return found
        raise ValueError(describe(annotation))
    # Another class (an enum, a model's own type): its constructor checks what it is given.
    return _json_or_text(value) if isinstance(value, str) else value


def describe(annotation: Any) -> str:
    """What a value of ``annotation`` is, in words: ``a number``, ``an integer or none``, ``one of 'a', 'b'``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        words = [describe(a) for a in args if a is not type(None)]
        return " or ".join(words + (["none"] if type(None) in args else []))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if annotation in _SEQUENCES or origin in _SEQUENCES:
        if origin is tuple and args and args[-1] is not Ellipsis:
            return f"{len(args)} values separated by commas, like {','.join(_example(a) for a in args)}"
        item = args[0] if args else Any
        return f"a list (comma-separated or JSON) of {_plural(item)}"
    if annotation in _MAPPINGS or origin in _MAPPINGS:
        return 'a JSON object, like {"key": 1}'
    if annotation in _WORDS:
        return _WORDS[annotation]
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return "a path"
    return "any value" if annotation in (Any, object) else _type_name(annotation)


def _plural(item: Any) -> str:
    plurals: dict[Any, str] = {bool: "true or false", int: "integers", float: "numbers", str: "text"}
    return plurals.get(item, describe(item))


def _example(item: Any) -> str:
    return {int: "8", float: "0.5", bool: "true"}.get(item, "x")


def _type_name(annotation: Any) -> str:
    """The annotation as it is written (``int | None``, ``tuple[str, ...]``), shown beside the words."""
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("collections.abc.", "").replace("NoneType", "None")


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(describe(bool))


def _number(value: Any, kind: type[int] | type[float]) -> int | float:
    if isinstance(value, bool):  # True is an int to Python, never a number to a user
        raise ValueError(describe(kind))
    if isinstance(value, int) or (kind is float and isinstance(value, float)):
        return value
    if isinstance(value, str):
        try:
            return kind(value.strip())
        except ValueError:
            pass
    raise ValueError(describe(kind))


def _sequence(value: Any, annotation: Any, origin: Any, args: tuple[Any, ...]) -> Any:
    items = value
    if isinstance(value, str):
        parsed = _json_or_text(value)
        items = parsed if isinstance(parsed, list) else [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(items, list | tuple | set | frozenset):
        raise ValueError(describe(annotation))
    if origin is tuple and args and args[-1] is not Ellipsis:  # a fixed size: tuple[int, int]
        if len(items) != len(args):
            raise ValueError(describe(annotation))
        return tuple(convert(item, kind) for item, kind in zip(items, args, strict=True))
    item = args[0] if args else Any
    try:
        converted = [convert(one, item) for one in items]
    except ValueError:
        raise ValueError(describe(annotation)) from None
    if origin in (tuple, set, frozenset):
        return origin(converted)
    return converted


def _accepts(target: Any) -> _Accepts | None:
    """The names ``target`` takes with their annotations (strings resolved where they can be)."""
    if isinstance(target, type) and dataclasses.is_dataclass(target):
        fields = [f for f in dataclasses.fields(target) if f.init]
        hints = _hints(target, {f.name: f.type for f in fields})
        required = [
            f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        return _Accepts({f.name: hints[f.name] for f in fields}, required, any_name=False)
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: nothing to check against
    named = {
        name: param
        for name, param in signature.parameters.items()
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY) and name != "self"
    }
    function = getattr(target, "__init__", target) if isinstance(target, type) else target  # a class: its __init__
    hints = _hints(function, {name: param.annotation for name, param in named.items()})
    return _Accepts(
        {name: hints[name] for name in named},
        [name for name, param in named.items() if param.default is inspect.Parameter.empty],
        any_name=any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()),
    )


def _hints(owner: Any, annotations: dict[str, Any]) -> dict[str, Any]:
    """``annotations`` resolved (``from __future__ import annotations`` leaves them text). A name that
    only type checkers import cannot be resolved: that one parameter is then taken as ``Any``."""
    unwrapped: Callable[..., Any] | type = inspect.unwrap(owner) if callable(owner) else owner
    namespace = getattr(unwrapped, "__globals__", None)
    if namespace is None:
        module = sys.modules.get(getattr(owner, "__module__", ""), None)
        namespace = vars(module) if module is not None else {}
    resolved: dict[str, Any] = {}
    for name, written in annotations.items():
        annotation = written
        if isinstance(written, str):
            try:
                annotation = eval(written, dict(namespace))
            except Exception:
                annotation = Any
        resolved[name] = Any if annotation is inspect.Parameter.empty else annotation
    return resolved
