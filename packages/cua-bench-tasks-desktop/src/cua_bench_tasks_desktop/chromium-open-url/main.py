"""chromium-open-url: open a given address on the local site by editing Chromium's address bar.

The port of the loopback site is only known once setup has started it, so the instruction names the
path and query; the address bar shows the site's home page to edit. The evaluator needs both
records (``_web``): Chromium reports a navigation to the path with exactly the query that the
address bar started (transition ``typed``, no page or script asked for it), and the site received
that request with no Referer.
Wrong ways: ``drops_the_query`` (the path alone), ``forged_request_log`` (a page saved over the
request log the evaluator once read: 1.0 then) and ``linked_from_a_data_page`` (a link to the
address on a ``data:`` page, followed: no Referer either, which the old evaluator took for typing).
"""

from __future__ import annotations

import html
import random
from urllib.parse import urlsplit

import cua_bench as cb
from cua_bench_tasks_desktop._common import NOUNS, WORDS, key, loaders
from cua_bench_tasks_desktop._web import (
    document,
    in_address_bar,
    save_over_the_old_log,
    send_from_a_data_page,
    site,
    start_chromium,
    start_web,
)
from cua_bench_tasks_desktop._webserver import fields
from cua_core import TypeText, Wait

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
    base = await start_web(task, {"/": document(PAGE, "<h1>Intranet</h1><p>Welcome.</p>")})
    await start_chromium(task, session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta, found = task.metadata, site(task)
    expected = {name: [value] for name, value in meta["query"].items()}

    def asked(url: str) -> bool:
        parts = urlsplit(url)
        return found.on_site(url) and parts.path == meta["path"] and fields(parts.query) == expected

    typed = [n for n in await found.navigations() if asked(n.url) and n.typed()]
    arrived = [r for r in found.requests() if r.path == meta["path"] and r.query == expected and r.referer is None]
    return [1.0 if typed and arrived and not found.tampering() else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await edit_address(task, session, task.metadata["url"])


async def edit_address(task: cb.Task, session: cb.Session, url: str) -> None:
    """Type the whole address over the selected one and press Enter (again if the site heard nothing)."""
    await in_address_bar(task, session, TypeText(site(task).base + url), Wait(0.2), key("enter"))


@cb.wrong_way
async def drops_the_query(task: cb.Task, session: cb.Session) -> None:
    """The page's path without its query."""
    await edit_address(task, session, task.metadata["path"])


@cb.wrong_way
async def forged_request_log(task: cb.Task, session: cb.Session) -> None:
    """The asked-for request (no Referer) written into the request log by saving a ``data:`` page over it."""
    meta = task.metadata
    query = {name: [value] for name, value in meta["query"].items()}
    entry = {"method": "GET", "path": meta["path"], "query": query, "referer": None, "answer": "received"}
    await save_over_the_old_log(session, [entry])


@cb.wrong_way
async def linked_from_a_data_page(task: cb.Task, session: cb.Session) -> None:
    """A ``data:`` page with a link to the address, followed with Enter: the page, not by the address bar."""
    link = html.escape(site(task).base + task.metadata["url"])
    await send_from_a_data_page(task, session, f"<a href='{link}' autofocus>the page</a>")
