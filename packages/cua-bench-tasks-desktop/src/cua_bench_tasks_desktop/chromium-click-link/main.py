"""chromium-click-link: on a local page in Chromium, follow the link with a given text.

The page comes from a loopback site the task starts. The evaluator reads Chromium's account of the
navigations (``_web``): the article asked for was reached by a person clicking a link (or pressing
Enter on it) on the news page, as DevTools reports it (reason ``anchorClick``, not started by a
script, transition ``link``), and no other article was opened; and the site received the article's
requests with the news page as Referer. The Referer alone once was the evidence, and a
``javascript:location.href=...`` typed into the address bar sends it too.
Wrong ways: ``types_the_url`` (the article's address typed after the site's in the address bar),
``javascript_location`` and ``javascript_click`` (a ``javascript:`` URL in the address bar that
navigates, or clicks the link from a script: scored 1.0 on the Referer) and ``forged_request_log``
(a page saved over the request log the evaluator once read: 1.0 then).
"""

from __future__ import annotations

import html
import random
from urllib.parse import urlsplit

import cua_bench as cb
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, WORDS, act, key, loaders
from cua_bench_tasks_desktop._web import (
    document,
    focus_page,
    in_address_bar,
    received,
    save_over_the_old_log,
    site,
    start_chromium,
    start_web,
)
from cua_core import TypeText, Wait

NAME = "chromium-click-link"
PAGE = "News"


def build(rng: random.Random) -> cb.Task:
    titles: list[str] = []
    while len(titles) < rng.randint(4, 9):
        title = f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)} {rng.choice(WORDS)}"
        if title not in titles:
            titles.append(title)
    slugs = [f"/articles/{index + 1}-{title.lower().replace(' ', '-')}" for index, title in enumerate(titles)]
    index = rng.randrange(len(titles))
    return cb.Task(
        description=f"A news page is open in Chromium. Open the article '{titles[index]}' by following its link.",
        metadata={"titles": titles, "slugs": slugs, "index": index},
        max_steps=10,
        chance=1 / len(titles),
    )


load_train, load_test = loaders(NAME, build)


def page(titles: list[str], slugs: list[str]) -> str:
    items = "".join(
        f"<li><a href='{slug}'>{html.escape(title)}</a></li>" for title, slug in zip(titles, slugs, strict=True)
    )
    return document(PAGE, f"<h1>Latest articles</h1><ul>{items}</ul>")


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    base = await start_web(task, {"/": page(meta["titles"], meta["slugs"])})
    await start_chromium(task, session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta, found = task.metadata, site(task)
    home, target = f"{found.base}/", meta["slugs"][meta["index"]]
    opened = [n for n in await found.navigations() if found.on_site(n.url) and urlsplit(n.url).path in meta["slugs"]]
    clicked = [n for n in opened if urlsplit(n.url).path == target and n.source == home and n.clicked_link()]
    only = {urlsplit(n.url).path for n in opened} == {target}
    articles = [r for r in found.requests() if r.method == "GET" and r.path in meta["slugs"]]
    sent = bool(articles) and all(r.path == target and r.referer == home for r in articles)
    return [1.0 if clicked and only and sent and not found.tampering() else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    # The links are the page's only focusable elements: Tab walks them in order from the top.
    await focus_page(session)
    await act(session, *[key("tab")] * (task.metadata["index"] + 1), key("enter"))
    await received(task)


@cb.wrong_way
async def types_the_url(task: cb.Task, session: cb.Session) -> None:
    """The article's path typed after the site's address in the address bar: the page, not by its link."""
    slug = task.metadata["slugs"][task.metadata["index"]]
    await in_address_bar(task, session, key("end"), TypeText(slug), Wait(0.2), key("enter"))


@cb.wrong_way
async def javascript_location(task: cb.Task, session: cb.Session) -> None:
    """``javascript:location.href='/articles/...'`` typed into the address bar: a script opens the article,
    and the request carries the news page's Referer as a click's does."""
    script = f"javascript:location.href='{task.metadata['slugs'][task.metadata['index']]}'"
    await in_address_bar(task, session, TypeText(script), Wait(0.2), key("enter"))


@cb.wrong_way
async def javascript_click(task: cb.Task, session: cb.Session) -> None:
    """``javascript:document.links[i].click()`` typed into the address bar: the link clicked by a script
    (Chromium's reason is ``anchorClick`` here too; the initiator is the script)."""
    script = f"javascript:document.links[{task.metadata['index']}].click()"
    await in_address_bar(task, session, TypeText(script), Wait(0.2), key("enter"))


@cb.wrong_way
async def forged_request_log(task: cb.Task, session: cb.Session) -> None:
    """The article's request, with the news page as Referer, written into the request log by saving a
    ``data:`` page over it."""
    meta = task.metadata
    home = f"{site(task).base}/"
    entry = {"method": "GET", "path": meta["slugs"][meta["index"]], "referer": home, "answer": "received"}
    await save_over_the_old_log(session, [entry])
