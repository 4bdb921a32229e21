"""A context menu in Cua Bench's style: the oracle right-clicks at a point it computes from
``window.screenX``/``screenY`` (RightClickAction, pixels), then clicks the menu item by selector."""

from pathlib import Path

import cua_bench as cb

PROVIDER, OS_TYPE = "native", "linux"


@cb.tasks_config(split="train")
def load():
    return [
        cb.Task(
            description=f"Right-click the box and choose {action.title()}.",
            metadata={"action": action},
            computer={"provider": PROVIDER, "setup_config": {"os_type": OS_TYPE, "width": 1024, "height": 768}},
        )
        for action in ("copy", "delete")
    ]


pid = None


@cb.setup_task(split="train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    global pid
    html = (Path(__file__).parent / "gui/index.html").read_text("utf-8")
    pid = await session.launch_window(html=html, title="Menu", width=420, height=300)


@cb.evaluate_task(split="train")
async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:
    chosen = await session.execute_javascript(pid, "window.__selectedAction")
    return [1.0] if chosen == task_cfg.metadata["action"] else [0.0]


@cb.solve_task(split="train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    point = await session.execute_javascript(
        pid,
        """(function() {
            const r = document.getElementById('area').getBoundingClientRect();
            return {x: r.left + window.screenX + r.width / 2, y: r.top + window.screenY + r.height / 2};
        })()""",
    )
    await session.execute_action(cb.RightClickAction(x=point["x"], y=point["y"]))
    await session.click_element(pid, f"#menu-{task_cfg.metadata['action']}")
