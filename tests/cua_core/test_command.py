"""One error style for every command line: one line, the traceback only with --debug."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from cua_core.command import CONTEXT, CuaGroup
from cua_core.errors import CuaError


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(version="9.9", prog_name="tool")
def tool() -> None:
    """A tool."""


@tool.command()
@click.argument("what")
def fail(what: str) -> None:
    if what == "library":
        raise CuaError("the dataset at x is a hub export:\n  use `import-hub` first")
    if what == "file":
        raise FileNotFoundError(2, "No such file or directory", "/no/such")
    if what == "bug":
        raise KeyError("oops")
    if what == "interrupt":
        raise KeyboardInterrupt
    click.echo(f"ok {what}")


@pytest.mark.parametrize(
    ("what", "line", "code"),
    [
        ("library", "Error: the dataset at x is a hub export: use `import-hub` first\n", 1),
        ("file", "Error: FileNotFoundError: [Errno 2] No such file or directory: '/no/such'\n", 1),
        ("bug", "Error: unexpected KeyError: 'oops' (rerun with --debug for the traceback, and please report it)\n", 1),
        ("interrupt", "interrupted\n", 130),
    ],
)
def test_errors_are_one_line_without_a_traceback(what: str, line: str, code: int) -> None:
    result = CliRunner().invoke(tool, ["fail", what])
    assert (result.exit_code, result.output) == (code, line)


def test_debug_anywhere_shows_the_traceback_and_double_dash_ends_options() -> None:
    for args in (["--debug", "fail", "bug"], ["fail", "bug", "--debug"]):
        result = CliRunner().invoke(tool, args)
        assert isinstance(result.exception, KeyError), args
    result = CliRunner().invoke(tool, ["fail", "--", "--debug"])
    assert result.output == "ok --debug\n"
    result = CliRunner().invoke(tool, ["fail", "bug"], env={"CUA_DEBUG": "1"})
    assert isinstance(result.exception, KeyError)


def test_version_and_usage_errors_stay_clicks() -> None:
    assert CliRunner().invoke(tool, ["--version"]).output == "tool, version 9.9\n"
    result = CliRunner().invoke(tool, ["fial"])
    assert result.exit_code == 2 and "No such command 'fial'" in result.output
