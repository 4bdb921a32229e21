"""Cua's RL worker API (``cua_bench.workers`` in trycua/cua) as a thin layer over cua-bench-rl.

A training script written for Cua imports ``create_workers``, ``cleanup_workers``, ``WorkerPool``,
``WorkerHandle``, ``CBEnvWorkerClient``, ``MultiTurnDataloader``, ``ReplayBuffer`` and
``create_dataloader_from_urls`` from ``cua_bench.workers``; that module resolves them here. Each is
an adapter with Cua's names, parameters and return shapes over our own pieces, never a second
implementation:

=========================== ====================================================================
Cua                         here
=========================== ====================================================================
``create_workers``          ``EnvWorkers(backend, n).start()``: one env server per worker
``cleanup_workers``         ``EnvWorkers.close()`` of every pool the handles belong to
``WorkerHandle``            one ``Worker`` of an ``EnvWorkers`` (``api_url`` = its env server address)
``WorkerPool``              ``EnvWorkers`` as Cua's async context manager
``CBEnvWorkerClient``       ``EnvClient`` with Cua's reset/step shapes and prompt strings
``MultiTurnDataloader``     ``RolloutLoader`` (group size 1) + ``ReplayBuffer``
``ReplayBuffer``            our ``ReplayBuffer`` (in memory) holding Cua's steps as episodes
``create_dataloader_from_urls`` ``MultiTurnDataloader`` over env server addresses
=========================== ====================================================================

Where Cua's semantics cannot be matched, the closest honest behaviour is taken and said:

* Cua starts FastAPI worker servers at ``http://`` URLs, each holding up to two envs behind an IP
  allowlist. We start env servers (one env each) at ``ipc://`` or ``tcp://`` addresses; access
  is the backend's (a private socket file, or CURVE keys beyond this host), so ``allowed_ips``
  and ``host`` are accepted and not applied. An ``http(s)://`` URL is refused with a clear error.
* The dataloader's batches hold the turns that are waiting, *up to* ``batch_size`` (Cua waits for
  exactly ``batch_size``); ``worker_id`` numbers a turn within its batch, and ``async_step``
  routes actions back by ``meta_info["uid"]``.
* Without a ``tokenizer`` a batch carries Cua's prompt strings (``obs``) and ``async_step`` takes
  the responses as strings; with one, ``input_ids``/``attention_mask``/``position_ids`` are made
  as Cua makes them (left padded to ``max_prompt_length``; tensors when torch is installed).
  ``processor``/``is_multi_modal`` are not applied (the images stay in the prompt strings).
* Cua's history has two client shapes, and both are taken: keywords (``server_url=..``,
  ``reset(env_path, task_index, split)``, a float in [0, 1] a fraction of the screen and an int a
  pixel) and one ``env_config`` dict (``reset()`` draws from its ``task_configs``, ints are
  thousandths of the screen as in ``click(500,500)``). The dataloader reads responses the way the
  client form of its ``env_configs`` does. Prompts always carry the instruction tags; invalid or
  unreadable text is taken as ``done()`` (the ``env_config`` client of Cua's took ``wait()``).
* ``ReplayBuffer`` capacity counts finished episodes, not steps; ``sample`` returns Cua's
  ``(worker_id, env_ret, meta_info)`` step tuples with discounted returns.
* ``sample_from_buffer`` returns what is there (up to ``batch_size``) rather than blocking: our
  envs wait for the policy's actions, so waiting for more inside the call could never end.
"""

from __future__ import annotations

from cua_bench_cua.workers.buffer import ReplayBuffer
from cua_bench_cua.workers.client import CBEnvWorkerClient
from cua_bench_cua.workers.dataloader import MultiTurnDataloader, create_dataloader_from_urls
from cua_bench_cua.workers.pool import WorkerHandle, WorkerPool, cleanup_workers, create_workers, wait_for_workers
from cua_bench_cua.workers.prompts import cua_actions

__all__ = [
    "CBEnvWorkerClient",
    "MultiTurnDataloader",
    "ReplayBuffer",
    "WorkerHandle",
    "WorkerPool",
    "cleanup_workers",
    "create_dataloader_from_urls",
    "create_workers",
    "cua_actions",
    "wait_for_workers",
]
