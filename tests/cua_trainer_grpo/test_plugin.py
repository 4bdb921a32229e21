"""The plugin as cua-bench-rl loads it: registered by entry point, and cheap to load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cua_bench_rl.registry import plugin_manager, policies, trainers
from cua_trainer_grpo.reload import lora_name, server_root


def test_the_entry_point_registers_the_trainer_the_policy_and_the_reload_hook() -> None:
    from cua_trainer_grpo.trainer import GRPOTrainer

    assert trainers()["grpo"] is GRPOTrainer
    assert "qwen-vl" in policies()
    owners = {impl.plugin_name for impl in plugin_manager().hook.cua_bench_rl_reload_weights.get_hookimpls()}
    assert "grpo" in owners


def test_loading_the_plugin_imports_neither_torch_nor_transformers() -> None:
    code = (
        "import sys, cua_trainer_grpo, cua_trainer_grpo.plugin\n"
        "heavy = [m for m in ('torch', 'transformers', 'peft') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_trainer_class_and_its_config_load_without_torch() -> None:
    """``cua-bench-rl train`` types ``--trainer-option`` by ``GRPOTrainer.Config`` before anything heavy loads."""
    code = (
        "import sys\n"
        "from cua_bench_rl.registry import trainers\n"
        "config = trainers()['grpo'].Config.from_dict({'lr': '3e-4', 'lora': 'true', 'lora_targets': 'q_proj,v_proj'})\n"
        "assert (config.lr, config.lora, config.lora_targets) == (3e-4, True, ('q_proj', 'v_proj')), config\n"
        "heavy = [m for m in ('torch', 'transformers', 'peft') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_configs_choices_are_the_maths_own() -> None:
    """GRPOConfig checks the choices without torch; cua_bench_rl.grpo (torch) is what runs them."""
    from cua_bench_rl import grpo
    from cua_trainer_grpo import config

    assert config.ADVANTAGE_SCALES == grpo.SCALES and config.LOSS_NORMS == grpo.NORMS
    assert config.BASELINES == grpo.BASELINES and config.IMPORTANCE == grpo.IMPORTANCE


def test_server_urls_and_adapter_names() -> None:
    assert server_root("http://h:8000/v1") == server_root("http://h:8000/v1/") == "http://h:8000"
    assert server_root("http://h:30000") == "http://h:30000"
    assert lora_name(Path("/runs/a/policy/v3")) == "policy"
