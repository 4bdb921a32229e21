from __future__ import annotations

import pytest

from cua_bench_rl import events


def _step(**changes: object) -> dict[str, object]:
    body: dict[str, object] = dict.fromkeys(events.StepDone._fields, 0)
    body.update(run="rl-1", reward_mean=0.5, **changes)
    return body


def test_a_matching_payload_passes() -> None:
    assert events.check(events.STEP_DONE, _step())["reward_mean"] == 0.5


def test_a_missing_or_unknown_field_is_named() -> None:
    body = _step(extra=1)
    del body["loss"]
    with pytest.raises(ValueError, match=r"missing \['loss'\].*unknown \['extra'\]"):
        events.check(events.STEP_DONE, body)


def test_a_wrong_type_is_named() -> None:
    with pytest.raises(ValueError, match=r"rl\.step\.done\.step"):
        events.check(events.STEP_DONE, _step(step="3"))
    with pytest.raises(ValueError, match="policy_version"):
        events.check(events.STEP_DONE, _step(policy_version=True))


def test_unknown_topics_are_refused() -> None:
    with pytest.raises(ValueError, match="not a cua-bench-rl topic"):
        events.check("rl.nothing", {})


def test_every_topic_is_dotted_under_rl() -> None:
    assert all(topic.startswith("rl.") for topic in events.TOPICS)


def test_the_contract_module_has_named_typed_documented_topics() -> None:
    assert events.PACKAGE == "cua-bench-rl" and events.VERSION >= 1
    for topic, payload in events.TOPICS.items():
        assert issubclass(payload, tuple) and hasattr(payload, "_fields"), f"{topic}: not a NamedTuple"
        assert payload._fields[0] == "run"
        assert payload.__doc__ and not payload.__doc__.startswith(f"{payload.__name__}("), f"{topic}: no docstring"


def test_the_training_bus_also_checks_its_environments_topics() -> None:
    closed = {"run": "rl-1", "env": "w0"}
    assert events.check_bus("env.closed", closed) == closed
    assert events.check_bus(events.STEP_DONE, _step())["reward_mean"] == 0.5
    with pytest.raises(ValueError, match="not a cua-bench-rl topic"):
        events.check("env.closed", closed)  # rl.* only
    with pytest.raises(ValueError, match=r"env\.closed: missing \['env'\]"):
        events.check_bus("env.closed", {"run": "rl-1"})
