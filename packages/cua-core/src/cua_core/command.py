"""One error style for every cua command line (``cua``, ``cua-bench``, ``cua-data``, ``cua-bus``).

A library error (:class:`~cua_core.errors.CuaError`) becomes one line on stderr that says what
is wrong and how to fix it, exit status 1; anything unexpected becomes one line naming the type,
with the hint to rerun with ``--debug``, which shows the traceback instead. ``--debug`` is taken
anywhere on the command line (or ``CUA_DEBUG=1``), because the wish to see a traceback comes
after the command was typed. Interrupts exit 130 without a traceback.

    @click.group(cls=CuaGroup, context_settings=CONTEXT)
    @click.version_option(package_name="cua-bench")
    def main() -> None: ...
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from cua_core.errors import CuaError

__all__ = ["CONTEXT", "CuaGroup", "error_line"]

CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def error_line(exc: BaseException) -> str:
    """The one line a user sees for ``exc``."""
    if isinstance(exc, CuaError | click.ClickException):
        text = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
        return " ".join(text.split()) or type(exc).__name__
    detail = " ".join(str(exc).split())
    if isinstance(exc, OSError):  # a file, a socket, a permission: the message names it
        return f"{type(exc).__name__}: {detail}"
    return f"unexpected {type(exc).__name__}: {detail} (rerun with --debug for the traceback, and please report it)"


class CuaGroup(click.Group):
    """A click group whose commands fail the cua way (see the module docstring)."""

    debug = False

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        # "--" ends options: anything after it is an argument, even "--debug".
        cut = argv.index("--") if "--" in argv else len(argv)
        CuaGroup.debug = "--debug" in argv[:cut] or os.environ.get("CUA_DEBUG", "") not in ("", "0")
        argv = [a for i, a in enumerate(argv) if not (i < cut and a == "--debug")]
        return super().main(argv, *rest, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise  # click's own: usage errors already print one line with the fix
        except KeyboardInterrupt:
            if CuaGroup.debug:
                raise
            click.echo("interrupted", err=True)
            sys.exit(130)
        except Exception as exc:
            if CuaGroup.debug:
                raise
            click.echo(f"Error: {error_line(exc)}", err=True)
            sys.exit(1)
