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


def test_server_urls_and_adapter_names() -> None:
    assert server_root("http://h:8000/v1") == server_root("http://h:8000/v1/") == "http://h:8000"
    assert server_root("http://h:30000") == "http://h:30000"
    assert lora_name(Path("/runs/a/policy/v3")) == "policy"
