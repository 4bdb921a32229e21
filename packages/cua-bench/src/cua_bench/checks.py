"""``check_task``: every variant's oracle must score 1.0, doing nothing 0, and every declared wrong way 0."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cua_bench.client import EnvClient
from cua_bench.registry import backends
from cua_bench.tasks import load_task_module
from cua_core.errors import CuaError

__all__ = ["check_task"]


def check_task(
    path: Path | str,
    *,
    backend: str = "sim",
    split: str | None = None,
    variants: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[str]:
    """Reset -> oracle -> evaluate on every variant (and reset -> evaluate for doing nothing); the failures."""
    module = load_task_module(path)
    impl = backends()[backend]()
    problems: list[str] = []
    computer = impl.provision()
    try:
        with EnvClient(computer.address, step_timeout=120) as env:
            for chosen_split in [split] if split else module.splits():
                count = len(module.variants(chosen_split))
                for variant in range(count if variants is None else min(count, variants)):
                    where = f"{module.name} {chosen_split}/{variant}"
                    options = {"task": str(module.path), "variant": variant, "split": chosen_split, "obs": "none"}
                    try:
                        env.reset(options=options)
                        idle = env.evaluate()
                        if idle != 0.0:
                            problems.append(f"{where}: doing nothing scores {idle}, not 0")
                        _, info = env.reset(options=options)
                        solved = env.solve()
                        if solved["reward"] != 1.0:
                            problems.append(
                                f"{where}: the oracle scores {solved['reward']} after {len(solved['steps'])} steps"
                            )
                        for name in info.get("wrong_ways", []):
                            env.reset(options=options)
                            wrong = env.wrong(name)
                            if wrong["reward"] != 0.0:
                                problems.append(f"{where}: the wrong way {name!r} scores {wrong['reward']}, not 0")
                    except CuaError as exc:
                        problems.append(f"{where}: {exc}")
                    if progress is not None:
                        progress(where)
    finally:
        impl.teardown(computer)
    return problems
