"""Typed bus topics: the payload check every publisher runs, and the generated docs table."""

from __future__ import annotations

import contextlib
import runpy
import types
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cua_core.codec import PROTOCOL_VERSION
from cua_core.topics import check_payload, topics_markdown, type_name

ROOT = Path(__file__).resolve().parents[2]


class Thing(NamedTuple):
    """Something happened."""

    name: str
    count: int
    score: float
    maybe: float | None
    tags: list[str]
    ok: bool


TOPICS = {"test.thing": Thing}


def _thing(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "a", "count": 1, "score": 0.5, "maybe": None, "tags": ["x"], "ok": True}
    body.update(changes)
    return body


def test_a_matching_payload_comes_back_as_a_dict() -> None:
    body = _thing()
    assert check_payload(TOPICS, "test.thing", body) == body
    assert check_payload(TOPICS, "test.thing", _thing(maybe=0.25, tags=[])) is not None


def test_a_missing_field_is_named_with_the_expected_fields() -> None:
    body = _thing()
    del body["count"]
    with pytest.raises(ValueError, match=r"test\.thing: missing \['count'\].*expected name: str, count: int"):
        check_payload(TOPICS, "test.thing", body)


def test_an_unknown_field_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown \['extra'\]"):
        check_payload(TOPICS, "test.thing", _thing(extra=1))


def test_a_wrong_type_names_topic_field_and_value() -> None:
    with pytest.raises(ValueError, match=r"test\.thing\.count: '3' is not int \(expected name: str"):
        check_payload(TOPICS, "test.thing", _thing(count="3"))
    with pytest.raises(ValueError, match=r"test\.thing\.name: None is not str"):
        check_payload(TOPICS, "test.thing", _thing(name=None))


def test_a_float_field_takes_an_int_but_never_a_bool() -> None:
    assert check_payload(TOPICS, "test.thing", _thing(score=1))["score"] == 1
    with pytest.raises(ValueError, match=r"test\.thing\.score: True is not float"):
        check_payload(TOPICS, "test.thing", _thing(score=True))
    with pytest.raises(ValueError, match=r"test\.thing\.count: False is not int"):
        check_payload(TOPICS, "test.thing", _thing(count=False))


def test_a_bool_field_takes_only_bools() -> None:
    with pytest.raises(ValueError, match=r"test\.thing\.ok: 1 is not bool"):
        check_payload(TOPICS, "test.thing", _thing(ok=1))


def test_an_optional_field_takes_none_or_its_type() -> None:
    assert check_payload(TOPICS, "test.thing", _thing(maybe=None))["maybe"] is None
    assert check_payload(TOPICS, "test.thing", _thing(maybe=3))["maybe"] == 3
    with pytest.raises(ValueError, match=r"test\.thing\.maybe: 'x' is not float \| None"):
        check_payload(TOPICS, "test.thing", _thing(maybe="x"))


def test_a_list_field_checks_the_list_and_its_elements() -> None:
    with pytest.raises(ValueError, match=r"test\.thing\.tags: 'x' is not list\[str\]"):
        check_payload(TOPICS, "test.thing", _thing(tags="x"))
    with pytest.raises(ValueError, match=r"test\.thing\.tags: \['x', 2\] is not list\[str\]"):
        check_payload(TOPICS, "test.thing", _thing(tags=["x", 2]))


def test_an_unknown_topic_or_a_body_that_is_no_mapping_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'test\.other' is not a cua-test topic; known: test\.thing"):
        check_payload(TOPICS, "test.other", _thing(), package="cua-test")
    with pytest.raises(ValueError, match=r"test\.thing: the payload must be a mapping"):
        check_payload(TOPICS, "test.thing", ["a", 1])


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5) | st.binary(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
_keys = st.sampled_from(Thing._fields) | st.text(max_size=6) | st.integers()


@given(st.dictionaries(_keys, _values, max_size=8) | _values)
def test_random_bodies_pass_or_raise_value_error_only(body: Any) -> None:
    with contextlib.suppress(ValueError):  # anything else (TypeError, KeyError...) fails the test
        assert check_payload(TOPICS, "test.thing", body) == body


def test_type_names_read_as_written() -> None:
    assert [type_name(t) for t in (int, float | None, list[str], bool, type(None))] == [
        "int",
        "float | None",
        "list[str]",
        "bool",
        "None",
    ]


def test_the_markdown_table_has_a_versioned_section_per_package() -> None:
    module = types.ModuleType("cua_test.events")
    module.PACKAGE, module.VERSION, module.TOPICS = "cua-test", 3, TOPICS  # type: ignore[attr-defined]
    module.FIELDS_DOC = {"name": "who", "test.thing:count": "how many"}  # type: ignore[attr-defined]
    text = topics_markdown([module])
    assert f"Bus protocol v{PROTOCOL_VERSION}" in text
    assert "## cua-test (contract v3)" in text
    assert "| topic | field | type | meaning |" in text
    assert "| `test.thing` | | | Something happened. |" in text
    assert "| | `name` | `str` | who |" in text
    assert "| | `count` | `int` | how many |" in text
    assert "| | `maybe` | `float \\| None` | |" in text


def test_the_committed_docs_are_what_the_script_writes() -> None:
    script = runpy.run_path(str(ROOT / "scripts" / "bus_topics.py"), run_name="bus_topics")
    expected = script["render"]()
    committed = ROOT / "docs" / "bus-topics.md"
    assert committed.exists() and committed.read_text() == expected, (
        "docs/bus-topics.md is out of date: run python scripts/bus_topics.py"
    )
