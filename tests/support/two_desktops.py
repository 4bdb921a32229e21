"""A task both the sim and a real desktop host: type a word into the desktop's editor and save.

The sim's ``editor`` and Mousepad on ``local`` both save with ctrl+s, so the same oracle earns the
same reward on both, which is what a parity test between them can compare (not two zeros).
"""

from __future__ import annotations

from pathlib import Path

NOTE_TASK = '"""note: type a word into the desktop\'s text editor and save; one task both sim and local can host."""\n\nimport asyncio\n\nimport cua_bench as cb\nfrom cua_core.actions import KeyPress, TypeText\n\n@cb.tasks_config\ndef load():\n    words = ("alpha", "bravo")\n    return [cb.Task(description=f"Type {w} and save", metadata={"word": w}, max_steps=4) for w in words]\n\n\n@cb.setup_task\nasync def setup(task, session):\n    await session.write_file("note.txt", "")\n    if hasattr(session, "sim"):\n        await session.launch("editor", path="/home/user/note.txt")\n    else:\n        from cua_bench_tasks_desktop._common import start\n\n        await start(session, "mousepad", "note.txt", title=lambda title: "note.txt" in title)\n\n\nasync def _saved(session):\n    return (await session.read_file("note.txt")).strip()\n\n\n@cb.evaluate_task\nasync def evaluate(task, session):\n    return 1.0 if await _saved(session) == task.metadata["word"] else 0.0\n\n\n@cb.solve_task\nasync def solve(task, session):\n    await session.apply([TypeText(task.metadata["word"])])\n    await session.apply([KeyPress(("ctrl", "s"))])\n    for _ in range(50):  # an app writes its file a moment after the keys\n        if await _saved(session) == task.metadata["word"]:\n            return\n        await asyncio.sleep(0.1)\n'


def make_note_task(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(NOTE_TASK)
    return folder
