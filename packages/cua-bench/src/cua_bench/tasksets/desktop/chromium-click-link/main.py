"""chromium-click-link: on a local page in Chromium, follow the link with a given text.

The page comes from a loopback server the task starts; the evaluator reads which pages the browser
then requested from it: the one article asked for and no other, every request for it sent from the
news page (its Referer), as following a link sends it. An address typed into the address bar has no
Referer and scores 0.
Wrong way: ``types_the_url`` (the article's address typed after the site's in the address bar).
"""

from __future__ import annotations

import html
import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import ADJECTIVES, NOUNS, WORDS, act, key, loaders
from cua_bench.tasksets.desktop._web import document, focus_page, received, start_chromium, start_web, web_requests
from cua_core.actions import TypeText, Wait

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
    base = await start_web(session, {"/": page(meta["titles"], meta["slugs"])})
    task.scratch["home"] = f"{base}/"
    await start_chromium(session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    visited = [r for r in await web_requests(session) if r.get("method") == "GET"]
    articles = [r for r in visited if r.get("path") in meta["slugs"]]
    ok = bool(articles) and {r.get("path") for r in articles} == {meta["slugs"][meta["index"]]}
    ok = ok and all(r.get("referer") == task.scratch["home"] for r in articles)
    return [1.0 if ok else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    # The links are the page's only focusable elements: Tab walks them in order from the top.
    await focus_page(session)
    await act(session, *[key("tab")] * (task.metadata["index"] + 1), key("enter"))
    await received(session)


@cb.wrong_way
async def types_the_url(task: cb.Task, session: cb.Session) -> None:
    """The article's path typed after the site's address in the address bar: the page, not by its link."""
    await act(session, key("ctrl+l"))
    await act(session, key("end"))
    await act(session, TypeText(task.metadata["slugs"][task.metadata["index"]]), Wait(0.2), key("enter"))
    await received(session)
