"""A slider in Cua Bench's style: the oracle finds the slider's screen position as Cua's do, from
``getBoundingClientRect()`` plus ``window.screenX``/``screenY``, and drags it with a DragAction."""

from pathlib import Path

import cua_bench as cb

PROVIDER, OS_TYPE = "native", "linux"


@cb.tasks_config(split="train")
def load():
    return [
        cb.Task(
            description=f"Set the {label} slider to {target}.",
            metadata={"label": label, "target": target},
            computer={"provider": PROVIDER, "setup_config": {"os_type": OS_TYPE, "width": 1024, "height": 768}},
        )
        for label, target in (("Volume", 20), ("Speed", 85))
    ]


pid = None


@cb.setup_task(split="train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    global pid
    html = (
        (Path(__file__).parent / "gui/index.html").read_text("utf-8").replace("{{LABEL}}", task_cfg.metadata["label"])
    )
    pid = await session.launch_window(html=html, title="Slider", width=480, height=260)


@cb.evaluate_task(split="train")
async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:
    value = await session.execute_javascript(pid, "window.__value")
    return [1.0] if value is not None and abs(value - task_cfg.metadata["target"]) <= 2 else [0.0]


@cb.solve_task(split="train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    box = await session.execute_javascript(
        pid,
        """(function() {
            const r = document.getElementById('slider').getBoundingClientRect();
            return {x: r.left + window.screenX, y: r.top + window.screenY, width: r.width, height: r.height};
        })()""",
    )
    thumb = 8  # Chromium's range thumb is 16 px wide: its centre travels width - 16
    x0 = box["x"] + thumb + (box["width"] - 2 * thumb) * 0.5
    x1 = box["x"] + thumb + (box["width"] - 2 * thumb) * task_cfg.metadata["target"] / 100
    y = box["y"] + box["height"] / 2
    await session.execute_action(cb.DragAction(from_x=x0, from_y=y, to_x=x1, to_y=y, duration=0.5))
