"""The backend conformance suite (Gymnasium's ``check_env`` for computers): every backend's tests run it.

problems = check_backend("sim")
assert problems == []
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from cua_bench.backends.base import Backend
from cua_bench.connect import client_for
from cua_bench.registry import backends
from cua_core import Click, CuaError, Done, Point, RpcError

__all__ = ["CONFORMANCE_TASK", "check_backend"]

CONFORMANCE_TASK = Path(__file__).parent / "conformance_task"
_NODE_KEYS = {"role", "name", "bounds", "states", "value", "children"}


def check_backend(backend: str | Backend, *, width: int = 1024, height: int = 768) -> list[str]:
    """Run the contract against a fresh computer of ``backend``; returns every broken promise."""
    impl = backends()[backend]() if isinstance(backend, str) else backend
    problems: list[str] = []

    def expect(ok: bool, what: str) -> None:
        if not ok:
            problems.append(what)

    computer = impl.provision(width=width, height=height)
    expect(impl.health(computer), "health() is False right after provision()")
    try:
        with client_for(computer, step_timeout=30) as env:
            obs, info = env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb,a11y"})
            expect(info["task"]["description"].startswith("Write"), "reset info lacks the task")
            shape = getattr(obs.get("screenshot"), "shape", None)
            expect(shape == (height, width, 3), f"rgb observation has shape {shape}, not {(height, width, 3)}")
            expect(isinstance(obs.get("a11y"), list), "observation lacks the a11y tree when asked for it")
            for node in obs.get("a11y") or []:
                missing = _NODE_KEYS - set(node)
                expect(not missing, f"a11y node lacks {sorted(missing)}: {node}")
                break
            png = env.session("screenshot")
            size = Image.open(io.BytesIO(bytes(png))).size
            expect(size == (width, height), f"session.screenshot is {size}, not {(width, height)}")
            expect(isinstance(env.session("windows"), list), "session.windows is not a list")
            obs, reward, terminated, truncated, info = env.step([Click(Point(500, 500))])
            expect(
                (reward, terminated, truncated) == (0.0, False, False),
                f"a plain step gave {(reward, terminated, truncated)}",
            )
            obs, _, terminated, _, info = env.step([{"kind": "click", "coordinate": [5000, 1]}])
            expect(bool(info.get("invalid")), "an invalid action was not reported in info['invalid']")
            expect(bool(obs.get("errors")), "an invalid action was not reported in the next observation")
            expect(not terminated, "an invalid action ended the episode")
            expect(env.evaluate() == 0.0, "evaluate() is not 0 before the task is done")
            env.session("write_file", path="conformance.txt", content="done")
            expect(
                bytes(env.session("read_bytes", path="conformance.txt")) == b"done",
                "read_bytes does not return what write_file wrote",
            )
            expect(env.session("read_file", path="conformance.txt") == "done", "read_file does not return the text")
            expect(env.session("file_exists", path="conformance.txt") is True, "file_exists misses a written file")
            env.session("write_file", path="/tmp/conformance.txt", content="tmp")
            expect(env.session("read_file", path="/tmp/conformance.txt") == "tmp", "/tmp is not the env's to use")
            obs, reward, terminated, truncated, info = env.step([Done()])
            expect(terminated and reward == 1.0, f"Done after the work gave terminated={terminated} reward={reward}")
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            results = [env.step([Click(Point(1, 1))]) for _ in range(3)]
            expect([r[3] for r in results] == [False, False, True], "max_steps=3 did not truncate at the third step")
            try:
                env.reset(options={"task": str(CONFORMANCE_TASK), "variant": 9})
                problems.append("reset to a variant that does not exist did not fail")
            except RpcError as exc:
                expect("variant 9 does not exist" in str(exc), f"bad variant error is unclear: {exc}")
    except (CuaError, KeyError, TypeError) as exc:
        problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        impl.teardown(computer)
    expect(not impl.health(computer, timeout=0.5), "the env server still answers after teardown()")
    return problems
