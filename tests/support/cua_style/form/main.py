"""A form in Cua Bench's style: its oracle clicks a drop-down open and then its option, an option of a
list box, a radio, a checkbox, and a submit button below the window's fold (Playwright scrolls to it;
a person would)."""

from pathlib import Path

import cua_bench as cb
from cua_bench.images import image as bench_image

PROVIDER, OS_TYPE = "native", "linux"  # tests rewrite these two for the simulated provider's themes


@cb.tasks_config(split="train")
def load():
    people = [
        {"name": "Ann Lee", "country": "Canada", "size": "L", "sub": True, "color": "blue"},
        {"name": "Bo Ng", "country": "UK", "size": "S", "sub": False, "color": "red"},
    ]
    return [
        cb.Task(
            description=f"Fill the form for {p['name']} and submit it.",
            metadata=p,
            computer={
                "provider": PROVIDER,
                "setup_config": {"os_type": OS_TYPE, "image": bench_image("BENCH_WEB"), "width": 1024, "height": 768},
            },
        )
        for p in people
    ]


pid = None


@cb.setup_task(split="train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    global pid
    html = (Path(__file__).parent / "gui/index.html").read_text("utf-8")
    pid = await session.launch_window(html=html, title="Form", width=500, height=400)


@cb.evaluate_task(split="train")
async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:
    data = await session.execute_javascript(pid, "window.__formData")
    if data is None:
        return [0.0]
    wanted = task_cfg.metadata
    same = all(data.get(key) == wanted[key] for key in ("name", "country", "size", "sub", "color"))
    return [1.0] if same else [0.0]


@cb.solve_task(split="train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    person = task_cfg.metadata
    await session.click_element(pid, "#name")
    await session.execute_action(cb.TypeAction(text=person["name"]))
    await session.click_element(pid, "#country")
    await session.click_element(pid, f'option[value="{person["country"]}"]')
    await session.click_element(pid, f'#size option[value="{person["size"]}"]')  # a list box: drawn in the page
    await session.click_element(pid, f'input[name="color"][value="{person["color"]}"]')
    if person["sub"]:
        await session.click_element(pid, "#subscribe")
    await session.click_element(pid, "#submit-btn")
