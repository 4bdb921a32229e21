"""Options a backend declares, set with ``--backend-option KEY=VALUE`` or its constructor.

Each option is a typed front for one environment variable the backend reads (docker's
``memory`` is ``CUA_DOCKER_MEMORY``). The variable is how an option reaches everything that builds
the backend by name (the runner, the checks) and every process the backend starts (an env server
reads its settings from its environment); the declaration is what lets a command line refuse an
unknown key or a badly typed value before anything starts, naming the backend and what it takes.
Typing goes through ``cua_core.options``, like every other ``--*-option`` family.
"""

from __future__ import annotations

import difflib
import os
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cua_core.options import OptionError, convert, describe, parse_pairs

__all__ = ["Option", "check_options", "export_options", "options_env", "parse_options", "resolve_options"]

FLAG = "--backend-option"


@dataclass(frozen=True)
class Option:
    """One setting of a backend: ``type`` is an annotation ``cua_core.options.convert`` reads (``str``,
    ``int``, ``float``, ``bool``, ``Literal["a", "b"]``); ``default`` applies when neither the option nor
    ``env`` is set."""

    name: str
    type: Any
    default: Any
    help: str
    env: str

    def expects(self) -> str:
        """The values it takes, in words: ``a number (float)``, ``one of none, host``."""
        if typing.get_origin(self.type) is typing.Literal:
            return "one of " + ", ".join(str(choice) for choice in typing.get_args(self.type))
        return f"{describe(self.type)} ({self.type.__name__})" if isinstance(self.type, type) else describe(self.type)

    def convert(self, value: Any) -> Any:
        """``value`` (text from a command line or a variable, or a Python value) as this option's type;
        ValueError naming what it expects."""
        try:
            return convert(value, self.type)
        except ValueError:
            raise ValueError(self.expects()) from None


def _declared(backend: Any) -> dict[str, Option]:
    return {option.name: option for option in getattr(backend, "options", ())}


def _label(backend: Any) -> str:
    return f"backend {getattr(backend, 'name', getattr(backend, '__name__', backend))!r}"


def check_options(backend: Any, values: Mapping[str, Any], *, flag: str = "option") -> dict[str, Any]:
    """``values`` checked against the options ``backend`` (a class or an instance) declares, each typed.

    An unknown key is refused naming the closest spelling and every option the backend takes; a value
    of the wrong type naming the type it must be (``flag`` is how the user set it)."""
    declared = _declared(backend)
    typed: dict[str, Any] = {}
    for key, value in values.items():
        option = declared.get(key)
        if option is None:
            close = difflib.get_close_matches(key, list(declared), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(declared) or "none"
            raise OptionError(f"{_label(backend)} has no option {key!r}{hint} (its options: {known})")
        try:
            typed[key] = option.convert(value)
        except ValueError as exc:
            shown = value if isinstance(value, str) else repr(value)
            raise OptionError(f"{_label(backend)}: {flag} {key}={shown}: {key} must be {exc}") from None
    return typed


def parse_options(backend: Any, pairs: Iterable[str]) -> dict[str, Any]:
    """``--backend-option`` pairs (``KEY=VALUE``) checked against ``backend``'s options and typed."""
    return check_options(backend, parse_pairs(pairs, FLAG), flag=FLAG)


def options_env(backend: Any, values: Mapping[str, Any]) -> dict[str, str]:
    """Checked ``values`` as the environment variables they stand for (booleans as 1 and 0)."""
    declared = _declared(backend)
    return {
        declared[key].env: ("1" if value else "0") if isinstance(value, bool) else str(value)
        for key, value in values.items()
    }


def export_options(backend: Any, pairs: Iterable[str]) -> dict[str, Any]:
    """For a command line: ``--backend-option`` pairs checked, then set as their variables in this process,
    so the backend the command builds by name, and the processes it starts, see them. Returns them typed."""
    typed = parse_options(backend, pairs)
    os.environ.update(options_env(backend, typed))
    return typed


def resolve_options(backend: Any, given: Mapping[str, Any], names: Iterable[str] | None = None) -> dict[str, Any]:
    """Every option ``backend`` declares (or those ``names``): as ``given`` (checked already), else as its
    variable says, else its default. A variable of the wrong type is an error naming the variable and what
    it takes; one not asked for is not read."""
    declared = _declared(backend)
    resolved: dict[str, Any] = {}
    for name in declared if names is None else names:
        option = declared[name]
        if name in given:
            resolved[name] = given[name]
            continue
        text = os.environ.get(option.env)
        if not text:  # unset, or set to nothing: the default, as the backends read their variables before
            resolved[name] = option.default
            continue
        try:
            resolved[name] = option.convert(text)
        except ValueError as exc:
            raise OptionError(f"{option.env} must be {exc}, got {text!r}") from None
    return resolved
