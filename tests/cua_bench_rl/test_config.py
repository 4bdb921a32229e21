from __future__ import annotations

import json
from pathlib import Path

import pytest

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.config import TrainConfig, full_task_name, load_config_file, parse_env
from cua_core.errors import CuaError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sim:click-button", ("sim", ["sim/click-button"])),
        ("sim:login, fill-form", ("sim", ["sim/login", "sim/fill-form"])),
        ("local:xterm-create-file", ("local", ["desktop/xterm-create-file"])),
        ("docker:desktop/xterm-create-file", ("docker", ["desktop/xterm-create-file"])),
    ],
)
def test_env_names_a_backend_and_its_tasks(text: str, expected: tuple[str, list[str]]) -> None:
    assert parse_env(text) == expected


@pytest.mark.parametrize("text", ["click-button", "sim:", ":click-button", "sim:,"])
def test_a_malformed_env_says_the_shape(text: str) -> None:
    with pytest.raises(CuaError, match="BACKEND:TASK"):
        parse_env(text)


def test_unknown_settings_are_named() -> None:
    with pytest.raises(CuaError, match="group_sise"):
        TrainConfig.from_dict({"group_sise": 8})


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("group_size", 1, "at least 2"),
        ("workers", 0, "at least 1"),
        ("minutes", 0, "positive"),
        ("max_staleness", -1, "0 or more"),
    ],
)
def test_bad_values_are_refused(field: str, value: int, match: str) -> None:
    with pytest.raises(CuaError, match=match):
        TrainConfig.from_dict({field: value})


def test_resume_differences_leave_out_budgets() -> None:
    stored = TrainConfig(group_size=8, steps=10)
    assert TrainConfig(group_size=8, steps=50, minutes=3).differences(stored) == []
    assert TrainConfig(group_size=4).differences(stored) == ["group_size: 8 -> 4"]


def test_a_typed_option_equals_what_config_json_recorded_of_it() -> None:
    # check_settings types lora_targets=q_proj as a tuple; config.json holds a list; resuming is no change
    typed = TrainConfig(trainer_options={"lora": True, "lora_targets": ("q_proj",)})
    recorded = TrainConfig.from_dict(json.loads(json.dumps(typed.to_dict())))
    assert recorded.trainer_options["lora_targets"] == ["q_proj"] and typed.differences(recorded) == []
    other = TrainConfig(trainer_options={"lora": True, "lora_targets": ("v_proj",)})
    assert other.differences(recorded) == [
        "trainer_options: {'lora': True, 'lora_targets': ['q_proj']} -> {'lora': True, 'lora_targets': ['v_proj']}"
    ]


def test_episodes_are_the_first_variants_of_a_split_from_benchs_resolver() -> None:
    config = TrainConfig(env="sim:click-button,login", max_steps=7)
    specs = config.episodes("test", 3)
    assert specs == [EpisodeSpec("sim/click-button", v, "test") for v in range(3)] + [
        EpisodeSpec("sim/login", v, "test") for v in range(3)
    ]
    assert {s.max_steps for s in specs} == {7} and [s.key for s in specs[:2]] == [
        "sim/click-button/test/0",
        "sim/click-button/test/1",
    ]
    assert len(config.episodes("train", None)) > 6
    with pytest.raises(CuaError, match=r"sim/click-button: .*no @tasks_config for split 'validation'"):
        config.episodes("validation", 3)


def test_a_task_folder_is_resolved_by_its_path(tmp_path: Path) -> None:
    from support.bench_tasks import make_taskset

    tasks = make_taskset(tmp_path / "tasks", {"press": ("plain", 3)})
    specs = TrainConfig(env=f"sim:{tasks / 'press'}").episodes("test", None)
    assert [(s.task, s.variant, s.split) for s in specs] == [
        (str((tasks / "press").resolve()), v, "test") for v in range(3)
    ]


def test_a_bare_task_name_is_its_installed_tasksets_and_never_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    from cua_bench import registry, taskset

    assert full_task_name("xterm-create-file") == "desktop/xterm-create-file"  # on any backend
    assert parse_env("docker:login") == ("docker", ["sim/login"])
    with pytest.raises(CuaError, match="no installed taskset has a task 'clik-button'; did you mean sim/click-button"):
        parse_env("sim:clik-button")
    real = registry.tasksets()
    twice = {**{n: real[n] for n in real.names()}, "copy": real["sim"]}

    class Twice:
        def names(self) -> list[str]:
            return list(twice)

        def __getitem__(self, name: str) -> object:
            return twice[name]

        def __contains__(self, name: object) -> bool:
            return name in twice

    monkeypatch.setattr(registry, "tasksets", Twice)
    monkeypatch.setattr(taskset, "tasksets", Twice)
    with pytest.raises(CuaError, match=r"task 'login' is in several tasksets \(sim, copy\): name it with its taskset"):
        parse_env("sim:login")
    assert parse_env("sim:copy/login") == ("sim", ["copy/login"])


def test_config_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("group_size: 4\ntrainer_options: {lr: 0.001}\n")
    assert load_config_file(tmp_path / "a.yaml") == {"group_size": 4, "trainer_options": {"lr": 0.001}}
    (tmp_path / "b.json").write_text('{"steps": 3}')
    assert load_config_file(tmp_path / "b.json") == {"steps": 3}
    (tmp_path / "c.yaml").write_text("- a list\n")
    with pytest.raises(CuaError, match="mapping"):
        load_config_file(tmp_path / "c.yaml")
    (tmp_path / "d.yaml").write_text("a: [unclosed\n")
    with pytest.raises(CuaError, match="not valid YAML"):
        load_config_file(tmp_path / "d.yaml")
    with pytest.raises(CuaError, match="cannot read"):
        load_config_file(tmp_path / "missing.yaml")


def test_settings_from_a_file_or_the_command_line_are_typed() -> None:
    config = TrainConfig.from_dict({"group_size": "4", "minutes": "1.5", "train_variants": "none"})
    assert (config.group_size, config.minutes, config.train_variants) == (4, 1.5, None)
    with pytest.raises(CuaError, match="setting group_size=four: group_size must be an integer"):
        TrainConfig.from_dict({"group_size": "four"})
    with pytest.raises(CuaError, match="unknown setting 'group_sise'; did you mean 'group_size'"):
        TrainConfig.from_dict({"group_sise": 8})


def test_an_unknown_backend_is_named_with_the_known_ones() -> None:
    config = TrainConfig.from_dict({"env": "nosuchbackend:click-button"})
    with pytest.raises(CuaError, match=r"unknown backend 'nosuchbackend' \(known backends: sim, local"):
        config.check_backend()
    with pytest.raises(CuaError, match="unknown backend 'smi'; did you mean 'sim'"):
        TrainConfig.from_dict({"env": "smi:click-button"}).check_backend()
    TrainConfig.from_dict({"env": "sim:click-button"}).check_backend()
