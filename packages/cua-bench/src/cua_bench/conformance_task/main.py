"""The task the backend conformance suite runs: it needs only files, so every backend can host it."""

from __future__ import annotations

import cua_bench as cb

MARK = "conformance.txt"


@cb.tasks_config
def load() -> list[cb.Task]:
    return [cb.Task(description="Write 'done' into conformance.txt", metadata={"text": "done"}, max_steps=3)]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await session.write_file(MARK, "")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await session.read_file(MARK) == task.metadata["text"] else 0.0]
