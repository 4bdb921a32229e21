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
