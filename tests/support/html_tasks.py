"""A Cua Bench task with an HTML window, written as Cua writes its click-button example (our own)."""

# Cua's style: positional split, task_id, a computer block, an HTML window whose handle setup keeps,
# an oracle that clicks the element, an evaluator that asks the page and returns a reward list.
CLICK_SUBMIT = """
import cua_bench as cb

PAGE = '''
<div style="padding: 40px; font-family: sans-serif">
  <p id="prompt">Press the button to send the form.</p>
  <button id="submit" style="padding: 12px 30px; font-size: 18px"
          onclick="window.__submitted = true; this.textContent = 'Sent'">Submit</button>
</div>
'''

pid = None


@cb.tasks_config("train")
def load():
    return [cb.Task(description="Click the Submit button.", task_id="click-submit",
                    computer={"provider": "native", "setup_config": {"os_type": "linux", "width": 800, "height": 600}})]


@cb.setup_task("train")
async def start(task_cfg, session):
    global pid
    pid = await session.launch_window(html=PAGE, title="Send form", x=120, y=90, width=420, height=260)


@cb.evaluate_task("train")
async def evaluate(task_cfg, session):
    submitted = await session.execute_javascript(pid, "window.__submitted === true")
    return [1.0 if submitted else 0.0]


@cb.solve_task("train")
async def solve(task_cfg, session):
    await session.click_element(pid, "#submit")
"""
