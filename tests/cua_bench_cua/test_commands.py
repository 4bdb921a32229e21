"""Our endpoint knows every command of the real packages: the server's handler table and what the
SDK sends, read from the installed PyPI sources (so a version that adds a command fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from cua_bench_cua.commands import UNSUPPORTED, Commands

SITE = Path(__file__).resolve().parents[2] / ".venv" / "cua-sdk" / "lib" / "python3.11" / "site-packages"
OURS = set(Commands(None, 1, 1).table) | set(UNSUPPORTED)  # type: ignore[arg-type]


def server_handlers() -> set[str]:
    tree = ast.parse((SITE / "computer_server" / "main.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "handlers" for t in node.targets):
            assert isinstance(node.value, ast.Dict)
            return {key.value for key in node.value.keys if isinstance(key, ast.Constant)}
    raise AssertionError("computer_server.main has no handlers table")


def sdk_commands() -> set[str]:
    text = "".join(path.read_text() for path in (SITE / "computer" / "interface").glob("*.py"))
    return set(re.findall(r'_send_command(?:_ws|_rest)?\(\s*"([a-z_]+)"', text))


def test_every_server_command_is_known(sdk: Any) -> None:
    handlers = server_handlers()
    assert len(handlers) >= 30  # the table was found whole
    assert handlers - OURS == set()


def test_every_command_the_sdk_sends_is_known(sdk: Any) -> None:
    sent = sdk_commands()
    assert {"screenshot", "left_click", "type_text", "drag_to", "get_active_window_bounds"} <= sent
    assert sent - OURS == set()


def test_unsupported_ones_are_few_and_say_why() -> None:
    assert set(UNSUPPORTED) == {"find_element", "diorama_cmd"}
    assert all(len(why) > 20 for why in UNSUPPORTED.values())
