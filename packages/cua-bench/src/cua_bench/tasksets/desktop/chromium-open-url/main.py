"""chromium-open-url: open a given address on the local site by editing Chromium's address bar.

The port of the loopback server is only known once setup has started it, so the instruction names the
path and query; the address bar shows the site's home page to edit. The evaluator reads the requests
the server received: a request for the path with exactly the query, with no Referer (typed into
the address bar, not reached from a page).
Wrong way: ``drops_the_query`` (the path alone).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import NOUNS, WORDS, act, key, loaders
from cua_bench.tasksets.desktop._web import document, received, start_chromium, start_web, web_requests
from cua_core.actions import TypeText, Wait

NAME = "chromium-open-url"
PAGE = "Intranet"


def build(rng: random.Random) -> cb.Task:
    path = f"/{rng.choice(WORDS)}/{rng.randint(2019, 2031)}"
    query = {rng.choice(["q", "id", "page", "tag"]): rng.choice(NOUNS)}
    if rng.random() < 0.5:
        query["view"] = rng.choice(["full", "print", "list"])
    url = path + "?" + "&".join(f"{name}={value}" for name, value in query.items())
    return cb.Task(
        description=f"Chromium shows the home page of a local site. Using the address bar, open the page {url} "
        "on the same site (same host and port).",
        metadata={"path": path, "query": query, "url": url},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    base = await start_web(session, {"/": document(PAGE, "<h1>Intranet</h1><p>Welcome.</p>")})
    await start_chromium(session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    expected = {name: [value] for name, value in meta["query"].items()}
    hits = [
        r
        for r in await web_requests(session)
        if r.get("path") == meta["path"] and r.get("query") == expected and r.get("referer") is None
    ]
    return [1.0 if hits else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    # ctrl+l selects the address (Chromium shows the home page as "127.0.0.1:PORT", without the
    # slash); End keeps it, and the path goes after it.
    # The address bar takes the focus asynchronously: each key waits for the last one's effect.
    await open_address(session, task.metadata["url"])


async def open_address(session: cb.Session, url: str) -> None:
    await act(session, key("ctrl+l"))
    await act(session, key("end"))
    await act(session, TypeText(url), Wait(0.2), key("enter"))
    await received(session)


@cb.wrong_way
async def drops_the_query(task: cb.Task, session: cb.Session) -> None:
    """The page's path without its query."""
    await open_address(session, task.metadata["path"])
