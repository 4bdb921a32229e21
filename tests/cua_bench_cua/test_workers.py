"""Cua's RL worker API (``cua_bench.workers``) on our env workers: a training loop written the way
Cua's examples use it runs against real sim env servers."""

from __future__ import annotations

import asyncio
import base64
import importlib
import io
import os
import re
import sys
from typing import Any

import pytest
from PIL import Image

from cua_bench.client import EnvClient
from cua_bench.nodes import center, find
from cua_bench.spec import EpisodeSpec
from cua_core.actions import action_to_dict
from cua_core.actions.coords import Point
from cua_core.errors import ActionError

BUTTON = "sim/click-button"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def _button_centres(address: str, variants: range) -> dict[int, Point]:
    """Where each variant's named button is (the test's oracle, read from the a11y tree)."""
    centres = {}
    with EnvClient(address) as env:
        for variant in variants:
            obs, info = env.reset(options={"task": BUTTON, "variant": variant, "split": "train", "observes": "a11y"})
            name = re.search(r'"(.+?)"', info["task"]["description"]).group(1)  # type: ignore[union-attr]
            centres[variant] = center(find(obs["a11y"], role="button", name=name))
    return centres


def test_a_cua_style_training_loop_runs_on_sim_env_servers() -> None:
    from cua_bench.workers import (
        MultiTurnDataloader,
        WorkerHandle,
        cleanup_workers,
        create_dataloader_from_urls,
        create_workers,
    )

    seen: dict[str, Any] = {"batches": 0, "turns": 0, "firsts": set(), "seconds": set()}
    centres: dict[int, Point] = {}

    def policy(prompts: list[str], metas: list[dict[str, Any]]) -> list[str]:
        """Clicks the named button of variants 0 and 1 (a fraction of the screen, as Cua writes it) and
        the screen's corner on variant 2, then says it is done (a stand-in for generate)."""
        out = []
        for prompt, meta in zip(prompts, metas, strict=True):
            assert prompt.startswith('<|instruction|>Click the "') and "<|instruction_end|>" in prompt
            images = prompt.count("<|vision_start|>")
            assert images == meta["step"] + 1  # one screenshot per turn so far
            (seen["firsts"] if meta["step"] == 0 else seen["seconds"]).add(meta["uid"])
            variant = EpisodeSpec.parse_key(meta["task"]).variant
            where = centres[variant] if variant < 2 else Point(0, 0)
            click = f"<|action_start|>click({where.x / 1000:.4f},{where.y / 1000:.4f})<|action_end|>"
            out.append(click if meta["step"] == 0 else "done()")
        return out

    async def train() -> tuple[list[int], MultiTurnDataloader, dict[str, Any]]:
        workers = await create_workers(n_workers=2, allowed_ips=["127.0.0.1"], backend="sim", width=640, height=400)
        assert all(isinstance(w, WorkerHandle) for w in workers)
        assert [w.worker_id for w in workers] == ["w0", "w1"]
        assert [await w.health_check() for w in workers] == [True, True]
        pids = [w.process.pid for w in workers if w.process is not None]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        centres.update(_button_centres(workers[0].api_url, range(2)))
        dataloader = create_dataloader_from_urls(
            [w.api_url for w in workers],
            task_configs=[{"env_path": BUTTON, "task_index": i, "split": "train"} for i in range(3)],
            tokenizer=None,
            batch_size=2,
            img_w=320,
            img_h=200,
            max_step=5,
        )
        try:
            for batch in dataloader:
                seen["batches"] += 1
                seen["turns"] += len(batch["obs"])
                assert 1 <= len(batch["obs"]) <= 2
                responses = policy(list(batch["obs"]), list(batch["meta_info"]))
                dataloader.async_step(
                    {"responses": responses, "worker_id": batch["worker_id"], "meta_info": batch["meta_info"]}
                )
                if len(dataloader.replay) >= 8:
                    break
            replay_batch = dataloader.sample_from_buffer(batch_size=64)
        finally:
            dataloader.close()
            await cleanup_workers(workers)
        assert not any(w.is_running for w in workers)
        return pids, dataloader, replay_batch

    pids, dataloader, replay_batch = asyncio.run(asyncio.wait_for(train(), 120))
    assert seen["batches"] >= 4 and seen["turns"] >= 8
    assert seen["seconds"] <= seen["firsts"] and len(seen["seconds"]) >= 4  # episodes went on past a turn
    # Episodes ended (each after its done()), and their steps are in the replay buffer with Cua's shape.
    assert dataloader.stats["episodes"] >= 4
    assert len(replay_batch["action"]) == len(dataloader.replay) >= 8
    # The buttons were hit: episodes of variants 0 and 1 score 1, the corner 0; a click's return is
    # its episode's reward discounted once (replay_reward_discount 0.9, Cua's default).
    returns = {}
    for action, reward, meta in zip(
        replay_batch["action"], replay_batch["reward"], replay_batch["meta_info"], strict=True
    ):
        variant = EpisodeSpec.parse_key(meta["task"]).variant
        kind = "done" if "done()" in action else "click"
        returns.setdefault((variant, kind), set()).add(round(float(reward), 4))
    for (variant, kind), found in returns.items():
        won = 1.0 if variant < 2 else 0.0
        assert found == {won if kind == "done" else round(0.9 * won, 4)}, (variant, kind, found)
    assert any(v < 2 for v, _ in returns) and dataloader.calculate_outcome_reward() > 0
    assert all(p.startswith("<|instruction|>") for p in replay_batch["prev_obs"])
    assert {m["uid"] for m in replay_batch["meta_info"]} <= seen["firsts"]
    # cleanup_workers stopped every env server this test started.
    assert not any(_alive(p) for p in pids), [p for p in pids if _alive(p)]


class _Chars:
    """A character tokenizer: enough of a Hugging Face tokenizer for Cua's tokenized path."""

    pad_token_id = 0
    eos_token_id = 0

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return "".join(chr(int(i)) for i in ids)


def test_cuas_env_config_dataloader_with_a_tokenizer_takes_and_decodes_token_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Cua's own example shape: env_configs carrying task_configs, a tokenizer, padded responses."""
    torch = pytest.importorskip("torch")
    from cua_bench.workers import CBEnvWorkerClient, MultiTurnDataloader, WorkerPool

    async def run() -> tuple[Any, Any, Any]:
        async with WorkerPool(n_workers=1, allowed_ips=["127.0.0.1"], backend="sim", width=640, height=400) as pool:
            assert len(pool.urls) == 1 and await pool.health_check_all() == {"w0": True}
            tokenizer = _Chars()
            task_configs = [{"env_path": BUTTON, "task_index": 0, "split": "train"}]
            env_configs = [{"server_url": url, "task_configs": task_configs, "max_step": 5, "max_hist": 10,
                            "timeout": 300, "img_w": 64, "img_h": 40} for url in pool.urls]  # fmt: skip
            dataloader = MultiTurnDataloader(
                env_class=CBEnvWorkerClient, env_configs=env_configs, tokenizer=tokenizer, processor=None,
                is_multi_modal=False, batch_size=1, replay_capacity=100, replay_reward_discount=0.9,
                max_prompt_length=64, max_response_length=48,
            )  # fmt: skip
            with dataloader:
                batches = []
                for text in ("<|action_start|>click(500,500)<|action_end|>", "<|action_start|>done()<|action_end|>"):
                    batch = next(dataloader)
                    batches.append(batch)
                    assert batch["input_ids"].shape == (1, 64) and batch["attention_mask"].dtype == torch.int64
                    assert batch["attention_mask"].sum() == 64  # the prompt is longer than 64: left-truncated
                    ids = tokenizer.encode(text)
                    responses = torch.tensor([ids + [tokenizer.pad_token_id] * (48 - len(ids))])
                    response_mask = (responses != tokenizer.pad_token_id).long()
                    dataloader.async_step(
                        {"prompts": batch["input_ids"], "responses": responses,
                         "attention_mask": torch.cat([batch["attention_mask"], response_mask], dim=1),
                         "worker_id": batch["worker_id"], "meta_info": batch["meta_info"]}
                    )  # fmt: skip
                batches.append(next(dataloader))  # the done() ended the episode: a new one starts
                sampled = dataloader.sample_from_buffer(batch_size=2)
                dataloader.print_stats_in_replay_buffer()
                return batches, sampled, dataloader.loader.stats

    batches, sampled, stats = asyncio.run(asyncio.wait_for(run(), 60))
    assert [b["meta_info"][0]["step"] for b in batches] == [0, 1, 0]
    assert batches[0]["meta_info"][0]["uid"] == batches[1]["meta_info"][0]["uid"] != batches[2]["meta_info"][0]["uid"]
    assert stats["episodes"] >= 1
    assert sampled["input_ids"].shape == (2, 64 + 48) and sampled["responses"].shape == (2, 48)
    assert "Replay buffer size: 2. Number of uids: 1. Histogram of item counts per uid in replay buffer (x-y): 2-1" in (
        capsys.readouterr().out
    )
    decoded = {_Chars().decode([int(i) for i in row if i]) for row in sampled["responses"]}
    assert decoded == {"<|action_start|>click(500,500)<|action_end|>", "<|action_start|>done()<|action_end|>"}


def test_the_client_has_cuas_reset_and_step_shapes() -> None:
    from cua_bench.workers import CBEnvWorkerClient, cleanup_workers, create_workers

    async def run() -> None:
        workers = await create_workers(1, ["127.0.0.1"], backend="sim", width=640, height=400)
        try:
            client = CBEnvWorkerClient(server_url=workers[0].api_url, img_w=160, img_h=100, max_step=3, max_hist=1)
            assert client.health_check()["status"] == "healthy"
            with pytest.raises(RuntimeError, match="reset"):
                client.step("done()")
            ret, meta = client.reset(BUTTON, task_index=1, split="train")
            assert set(ret) == {"obs", "done", "is_init"} and ret["is_init"] and not ret["done"]
            assert set(meta) == {"uid"}
            image = ret["obs"].split("<|vision_start|>", 1)[1].split("<|vision_end|>", 1)[0]
            assert Image.open(io.BytesIO(base64.b64decode(image))).size == (160, 100)
            ret, meta2 = client.step({"type": "ClickAction", "x": 0.5, "y": 0.5})
            assert meta2 == meta and not ret["done"] and ret["reward"] == 0.0
            assert set(ret) == {"prev_obs", "action", "obs", "reward", "done", "is_init"}
            ret, _ = client.step("key(escape)")
            ret, _ = client.step("<|action_start|>hotkey(ctrl+a)<|action_end|>")
            assert ret["done"] and client.done  # max_step=3 truncates
            assert ret["obs"].count("<|vision_start|>") == 1  # max_hist=1 keeps one action and screen
            with pytest.raises(RuntimeError, match="done"):
                client.step("done()")
            assert Image.open(io.BytesIO(client.get_screenshot())).size == (640, 400)
            client.shutdown()
            # Pixels of the screenshot (Cua's keyword form) land where they should: the button is hit.
            where = _button_centres(workers[0].api_url, range(1, 2))[1]
            client.reset(BUTTON, task_index=1, split="train")
            pixel = (int(where.x * 640 / 1000), int(where.y * 400 / 1000))
            client.step(f"click({pixel[0]},{pixel[1]})")
            assert client.step("done()")[0]["reward"] == 1.0
            # Cua's env_config form: one dict, reset() draws from its task_configs, thousandths.
            config = {"server_url": workers[0].api_url, "task_configs": [{"env_path": BUTTON, "task_index": 1}],
                      "max_step": 5, "max_hist": 10, "timeout": 300, "img_w": 64, "img_h": 40}  # fmt: skip
            client = CBEnvWorkerClient(config)
            ret, _ = client.reset()
            assert ret["is_init"] and "Click the" in ret["obs"]
            ret, _ = client.step(f"<|action_start|>click({round(where.x)},{round(where.y)})<|action_end|>")
            assert not ret["done"]
            ret, _ = client.step("<|action_start|>done()<|action_end|>")
            assert ret["done"] and ret["reward"] == 1.0
            with pytest.raises(ValueError, match="unknown env_config key"):
                CBEnvWorkerClient({"server_url": workers[0].api_url, "colour": "red"})
        finally:
            await cleanup_workers(workers)

    asyncio.run(asyncio.wait_for(run(), 60))


def test_an_address_from_create_workers_keeps_what_connecting_to_it_needs() -> None:
    """A server beyond this host needs its CURVE key (computer.info): given only the address, the
    dataloader and the client find the computer create_workers started."""
    from cua_bench.workers import cleanup_workers, create_workers
    from cua_bench_cua.workers.dataloader import _Given

    async def run() -> None:
        workers = await create_workers(1, backend="sim", width=640, height=400)
        address = workers[0].api_url
        try:
            computer = _Given([address]).provision()
            assert computer is workers[0].pool[0].computer and computer.info["pid"] == workers[0].process.pid
        finally:
            await cleanup_workers(workers)
        assert _Given([address]).provision().info == {}  # cleaned up: no longer known

    asyncio.run(asyncio.wait_for(run(), 60))


def test_cuas_http_worker_urls_are_refused_clearly() -> None:
    from cua_bench.workers import CBEnvWorkerClient, create_dataloader_from_urls

    with pytest.raises(ValueError, match="Cua's HTTP worker servers are not spoken here"):
        CBEnvWorkerClient("http://localhost:8001")
    with pytest.raises(ValueError, match="not an env server address"):
        create_dataloader_from_urls(["https://worker:8001"], [{"env_path": BUTTON}])


LEFT = {"button": "left", "clicks": 1}


@pytest.mark.parametrize(
    ("cua", "options", "ours"),
    [
        # Cua's keyword-form client: a float in [0, 1] is a fraction of the screen, an int a pixel.
        ("click(0.25,0.75)", {}, {"kind": "click", "coordinate": [250, 750], **LEFT}),
        ("click(500,250)", {"screen": (1000, 500)}, {"kind": "click", "coordinate": [500.5, 501], **LEFT}),
        ("<|action_start|>right_click(0.1,0.2)<|action_end|>", {},
         {"kind": "click", "coordinate": [100, 200], "button": "right", "clicks": 1}),
        ("double_click(0.1,0.2)", {}, {"kind": "click", "coordinate": [100, 200], "button": "left", "clicks": 2}),
        ("drag(0.1,0.2,0.3,0.4)", {}, {"kind": "drag", "start": [100, 200], "end": [300, 400], "button": "left"}),
        ("scroll(down,3)", {}, {"kind": "scroll", "direction": "down", "amount": 3, "coordinate": None}),
        ('type("hi, there")', {}, {"kind": "type", "text": "hi, there", "press_enter": False}),
        ("key(enter)", {}, {"kind": "key", "keys": ["enter"]}),
        ("hotkey(ctrl+c)", {}, {"kind": "key", "keys": ["ctrl", "c"]}),
        ("done()", {}, {"kind": "done", "answer": None}),
        ({"type": "DoubleClickAction", "x": 0.5, "y": 0.5}, {},
         {"kind": "click", "coordinate": [500, 500], "button": "left", "clicks": 2}),
        ({"type": "ClickAction", "x": 100, "y": 200}, {"screen": (200, 400)},
         {"kind": "click", "coordinate": [502.5, 501.25], **LEFT}),
        ({"type": "HotkeyAction", "keys": ["ctrl", "s"]}, {}, {"kind": "key", "keys": ["ctrl", "s"]}),
        # Cua's env_config-form client: integers in thousandths of the screen, and its own names.
        ("<|think_start|>go<|think_end|><|action_start|>click(500,500)<|action_end|>", {"thousandths": True},
         {"kind": "click", "coordinate": [500, 500], **LEFT}),
        ("left_double(100,200)", {"thousandths": True},
         {"kind": "click", "coordinate": [100, 200], "button": "left", "clicks": 2}),
        ("right_single(1,2)", {"thousandths": True},
         {"kind": "click", "coordinate": [1, 2], "button": "right", "clicks": 1}),
        ("scroll(500,400,up)", {"thousandths": True},
         {"kind": "scroll", "direction": "up", "amount": 1, "coordinate": [500, 400]}),
        ("hotkey(ctrl,a)", {"thousandths": True}, {"kind": "key", "keys": ["ctrl", "a"]}),
        ("call_user()", {"thousandths": True}, {"kind": "wait", "duration": 1.0}),
        # Our own action text goes through as it is.
        ('key("ctrl+shift+t")', {}, {"kind": "key", "keys": ["ctrl", "shift", "t"]}),
    ],
)  # fmt: skip
def test_cuas_action_forms_become_ours(cua: Any, options: dict[str, Any], ours: dict[str, Any]) -> None:
    from cua_bench_cua.workers import cua_actions

    assert [action_to_dict(a) for a in cua_actions(cua, **options)] == [ours]


def test_pixel_coordinates_without_a_screen_size_are_refused() -> None:
    from cua_bench_cua.workers import cua_actions

    with pytest.raises(ActionError, match="need the screen size"):
        cua_actions("click(500,250)")
    with pytest.raises(ActionError, match="unknown Cua action type"):
        cua_actions({"type": "TeleportAction"})


def test_cuas_replay_buffer_keeps_whole_episodes_with_discounted_returns() -> None:
    from cua_bench.workers import ReplayBuffer

    buffer = ReplayBuffer(capacity=2, gamma=0.5)
    for step, reward in enumerate([0.0, 0.0, 1.0]):
        buffer.add(3, {"prev_obs": "p", "action": f"a{step}", "reward": reward, "done": step == 2}, {"uid": "e1"})
        assert len(buffer) == (3 if step == 2 else 0)  # nothing until the episode is done
    returns = {ret["action"]: ret["reward"] for _, ret, _ in buffer.sample(10)}
    assert returns == {"a0": 0.25, "a1": 0.5, "a2": 1.0}
    assert all(w == 3 and m == {"uid": "e1"} for w, _, m in buffer.sample(10))
    assert buffer.get_balance_stats() == (0, 3)
    for uid in ("e2", "e3"):  # capacity 2 episodes: e1 is evicted
        buffer.add(0, {"action": uid, "reward": 0.0, "done": True}, {"uid": uid})
    assert sorted(ret["action"] for _, ret, _ in buffer.sample(10)) == ["e2", "e3"]
    outcome = ReplayBuffer(only_keep_outcome=True)
    for step in range(3):  # Cua's other form: one (worker_id, env_ret, meta_info) tuple
        outcome.add((0, {"action": f"a{step}", "reward": 1.0, "done": step == 2}, {"uid": "e"}))
    assert [ret["action"] for _, ret, _ in outcome.sample(5)] == ["a2"] and len(outcome) == 1
    buffer.clear()
    assert len(buffer) == 0 and buffer.sample(3) == []


def test_cua_bench_workers_names_resolve_from_cua_bench_cua() -> None:
    import cua_bench_cua.workers as home
    from cua_bench import workers

    for name in workers.__all__:
        assert getattr(workers, name) is getattr(home, name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        workers.nope


def test_without_cua_bench_rl_the_import_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cua_bench_rl", None)  # as if cua-bench-rl were not installed
    for loaded in [name for name in sys.modules if name.startswith("cua_bench_cua.workers")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.delitem(sys.modules, "cua_bench.workers", raising=False)
    workers = importlib.import_module("cua_bench.workers")  # importing it needs no cua-bench-rl
    with pytest.raises(ImportError, match=r"pip install \./packages/cua-bench-rl"):
        from cua_bench.workers import create_workers  # noqa: F401
    with pytest.raises(ImportError, match="cua-bench-rl is not installed"):
        workers.MultiTurnDataloader


def test_without_cua_bench_cua_the_import_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cua_bench_cua", None)
    monkeypatch.delitem(sys.modules, "cua_bench_cua.workers", raising=False)
    monkeypatch.delitem(sys.modules, "cua_bench.workers", raising=False)
    workers = importlib.import_module("cua_bench.workers")
    with pytest.raises(ImportError, match=r"cua-bench-cua is not installed: `pip install \./plugins/cua-bench-cua`"):
        workers.create_workers


def test_cua_bench_does_not_import_cua_bench_rl() -> None:
    code = "import sys, cua_bench, cua_bench.workers; print('cua_bench_rl' in sys.modules)"
    out = os.popen(f"{sys.executable} -c {code!r}").read().strip()
    assert out == "False"
