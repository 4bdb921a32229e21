"""KEY=VALUE options typed by what they configure: one helper for every ``--*-option`` of every command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import click
import pytest

from cua_core.options import OptionError, parse_pairs, typed_options


@dataclass
class Config:
    lr: float = 1e-4
    steps: int = 10
    lora: bool = False
    targets: tuple[str, ...] = ()
    sizes: tuple[int, int] = (8, 16)
    limit: int | None = None
    norm: Literal["token", "sequence"] = "token"
    extra: dict[str, Any] = field(default_factory=dict)
    anything: Any = None


class Agent:
    def __init__(self, *, model: str, temperature: float = 0.0, history: str | None = None, seed=0) -> None:  # type: ignore[no-untyped-def]
        pass


def test_pairs_are_text_and_a_malformed_one_is_a_usage_error() -> None:
    assert parse_pairs(("lr=3e-4", "name=a=b", "empty="), "--trainer-option") == {
        "lr": "3e-4",
        "name": "a=b",
        "empty": "",
    }
    for bad in ("novalue", "=3"):
        with pytest.raises(click.BadParameter, match=f"'{bad}' is not KEY=VALUE"):
            parse_pairs((bad,), "--agent-option")


def test_text_becomes_the_annotated_type() -> None:
    raw = {
        "lr": "3e-4", "steps": "40", "lora": "true", "targets": "q_proj,v_proj", "sizes": "[4, 2]",
        "limit": "none", "norm": "sequence", "extra": '{"a": 1}', "anything": "[1, 2]",
    }  # fmt: skip
    assert typed_options(Config, raw) == {
        "lr": 3e-4, "steps": 40, "lora": True, "targets": ("q_proj", "v_proj"), "sizes": (4, 2),
        "limit": None, "norm": "sequence", "extra": {"a": 1}, "anything": [1, 2],
    }  # fmt: skip
    # values from a config file or a Python caller are checked, not re-read: 1 is a fine float
    assert typed_options(Config, {"lr": 1, "limit": 3, "targets": ["a"]}) == {"lr": 1.0, "limit": 3, "targets": ("a",)}
    assert typed_options(Agent, {"model": "123", "seed": "3"}) == {"model": "123", "seed": 3}  # text stays text


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"lr": "abc"}, "--x lr=abc: lr must be a number (float)"),
        ({"steps": "4.5"}, "--x steps=4.5: steps must be an integer (int)"),
        ({"steps": True}, "--x steps=True: steps must be an integer (int)"),
        ({"lora": "maybe"}, "lora must be true or false (bool)"),
        ({"limit": "lots"}, "limit must be an integer or none (int | None)"),
        ({"norm": "tokn"}, "norm must be one of 'token', 'sequence' (did you mean 'token'?)"),
        ({"sizes": "1,2,3"}, "sizes must be 2 values separated by commas, like 8,8"),
        ({"extra": "x"}, 'extra must be a JSON object, like {"key": 1}'),
        ({"stpes": "3"}, "config: unknown setting 'stpes'; did you mean 'steps'? (its settings: lr, steps,"),
        ({"zzz": "3"}, "config: unknown setting 'zzz' (its settings: lr, steps,"),
    ],
)
def test_a_wrong_key_or_value_is_named_with_what_is_expected(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError) as caught:
        typed_options(Config, raw, label="config", what="setting", flag="--x")
    assert message in str(caught.value)


def test_a_function_or_class_is_read_from_its_signature() -> None:
    with pytest.raises(OptionError, match=r"agent 'a': needs --agent-option model=\.\.\. \(its options: model,"):
        typed_options(Agent, {"temperature": "0.5"}, label="agent 'a'", flag="--agent-option")
    assert typed_options(Agent, {"temperature": "0.5"}, complete=False) == {"temperature": 0.5}
    with pytest.raises(OptionError, match="--agent-option temperature=hot: temperature must be a number"):
        typed_options(Agent, {"model": "m", "temperature": "hot"}, flag="--agent-option")

    def open_ended(size: int = 1, **rest: Any) -> None: ...

    assert typed_options(open_ended, {"size": "2", "other": "3", "name": "x"}) == {"size": 2, "other": 3, "name": "x"}
