"""OSWorld's getters of what the active Chrome tab shows: values read from its page
(``active_tab_html_parse``) and from its URL's path (``url_path_parse``).

They find the tab by the address bar's text (``chrome.active_url``) and read the page through Chrome's
DevTools on the computer (``on_computer``'s ``read_tab``), as ``chrome.py``'s getters do.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from cua_bench_osworld.chrome import _devtools, _unreachable, active_url
from cua_bench_osworld.loader import TaskSkipped

if TYPE_CHECKING:
    from cua_bench_osworld.config import Context

__all__ = ["PAGE_GETTERS", "html_queries", "html_values", "url_path_values"]


def url_path_values(url: str, parse_keys: list[str]) -> dict[str, Any]:
    """OSWorld's ``url_path_parse`` (its ``get_macys_product_url_parse``), of Macy's filter URLs such as
    ``/shop/mens-clothing/shirts/Men_regular_size_t,Price_discount_range/L,50_PERCENT_ off & more``:
    ``mens_clothing``, ``shirts`` and ``short_sleeve`` True when the path says so (else None), and each of
    ``parse_keys`` named in the first pair of comma lists (keys, then values), ``Price_discount_range``
    as ``50_PERCENT_ off & more`` when that is its only discount of 20, 30 or 50 % (else ``not_...``)."""
    path = unquote(urlparse(url).path)
    parts = path.strip("/").split("/")
    named: dict[str, Any] = {}
    shirts = "shirts" in path
    short_sleeve = "short-sleeve" in path
    for keys, values in itertools.pairwise(parts):
        if "," not in keys or "," not in values:
            continue
        pairs = zip([k.strip() for k in keys.split(",")], [v.strip() for v in values.split(",")], strict=False)
        for key, value in pairs:
            if key == "Price_discount_range":
                named[key] = [item.strip() for item in value.split("|")] if value else None
            else:
                named[key] = value or None
            shirts = shirts or (key == "Product_department" and value in ("shirts", "Shirts", "Shirt"))
            short_sleeve = short_sleeve or (key == "Sleeve_length" and value in ("short-sleeve", "Short Sleeve"))
        break  # the first pair only
    for key in ("Men_regular_size_t", "Price_discount_range"):
        named.setdefault(key, None)
    result: dict[str, Any] = {
        "mens_clothing": True if "mens-clothing" in path else None,
        "shirts": True if shirts else None,
        "short_sleeve": True if short_sleeve else None,
    }
    for key in parse_keys:
        if key not in named:
            continue
        if key == "Price_discount_range":
            ranges = named[key] or []
            lower = {"30_PERCENT_ off & more", "20_PERCENT_ off & more"}
            only_fifty = "50_PERCENT_ off & more" in ranges and not lower & set(ranges)
            result[key] = "50_PERCENT_ off & more" if only_fifty else "not_50_PERCENT_ off & more"
        else:
            result[key] = named[key]
    return result


async def url_path_parse(ctx: Context, config: dict[str, Any]) -> dict[str, Any] | None:
    """``url_path_values`` of the active tab's URL; None without an address bar."""
    url = await active_url(ctx, config)
    return None if url is None else url_path_values(url, list(config["parse_keys"]))


# -- active_tab_html_parse ------------------------------------------------------------------------

# What each category reads: the config's sections, each a kind of query ``on_computer.read_tab`` answers
# (text: each element's text; direct_text: the first element's own text nodes; h3: each element's
# first h3; li_span: the first span of each ``li.catAllProducts`` inside; xpath_*: the first element's).
_HTML_SECTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "class": (
        ("class_multiObject", "text"),
        ("class_multiObject_child", "direct_text"),
        ("class_multiObject_only_child", "h3"),
        ("class_multiObject_search_exist", "text"),
        ("class_singleObject", "text"),
    ),
    "class&url": (("class_multiObject", "text"), ("class_multiObject_li", "li_span")),
    "xpath": (("xpathObject", "xpath_text"),),
    "input": (("inputObject", "xpath_input"),),
}
_XPATH_KINDS = ("xpath_text", "xpath_input")


def _selector(kind: str, name: str) -> str:
    return name if kind in _XPATH_KINDS else f".{name}"  # OSWorld's sections name classes


def html_queries(config: dict[str, Any]) -> list[dict[str, str]]:
    """The page reads ``config``'s category needs, once each."""
    queries = [
        {"kind": kind, "selector": _selector(kind, name)}
        for section, kind in _HTML_SECTIONS.get(str(config["category"]), ())
        for name in config.get(section, {})
    ]
    return list({(q["kind"], q["selector"]): q for q in queries}.values())


class _Answers:
    """The page's answers to ``html_queries``, with OSWorld's fallbacks for a query that failed (an
    invalid selector, a field that is no input): ``[]`` for a list, ``""`` for one element's text."""

    def __init__(self, queries: list[dict[str, str]], answers: list[Any]) -> None:
        self._by_query = {(q["kind"], q["selector"]): a for q, a in zip(queries, answers, strict=False)}

    def _ok(self, kind: str, name: str) -> Any:
        answer = self._by_query.get((kind, _selector(kind, name)))
        return answer.get("ok") if isinstance(answer, dict) else None

    def texts(self, kind: str, name: str) -> list[str]:
        found = self._ok(kind, name)
        if not isinstance(found, list):
            return []
        # Playwright's text_content().strip(), in Python; the direct text nodes come trimmed by OSWorld's own JS.
        return [str(t) if kind == "direct_text" else str(t).strip() for t in found]

    def first(self, kind: str, name: str) -> str:
        found = self._ok(kind, name)
        return str(found).strip() if found else ""


def _mark_listed(values: dict[str, Any], wanted: list[str], found: list[str]) -> None:
    """``class&url``: True for each wanted text shown (its lower case the key); ``is_other_exist`` True when
    a shown text is in none of the wanted ones (a substring test, as OSWorld's), else False if unset."""
    for each in wanted:
        if any(each.lower() == text.lower() for text in found):
            values[each.lower()] = True
    if any(all(text.lower() not in item.lower() for item in wanted) for text in found):
        values["is_other_exist"] = True
    values.setdefault("is_other_exist", False)


def html_values(config: dict[str, Any], answers: _Answers, page_url: str) -> dict[str, Any]:
    """OSWorld's ``active_tab_html_parse`` result from the page's answers: its keys, its values, its
    ``""`` for an element that is not there and its ``{}`` for a category it does not know."""
    values: dict[str, Any] = {}
    category = config["category"]
    if category == "class":
        for kind, section in (("text", "class_multiObject"), ("direct_text", "class_multiObject_child"),
                              ("h3", "class_multiObject_only_child")):  # fmt: skip
            for name, keys in dict(config.get(section, {})).items():
                found = answers.texts(kind, name)
                for order, key in dict(keys).items():
                    index = int(order)
                    values[key] = found[index] if len(found) > index else ""
        for name, wanted in dict(config.get("class_multiObject_search_exist", {})).items():
            found = answers.texts("text", name)
            for each in wanted:
                if each != "is_other_exist":
                    values[each] = each in found
            if "is_other_exist" in wanted:
                if any(text not in wanted for text in found):
                    values["is_other_exist"] = True
                values.setdefault("is_other_exist", False)
        for name, key in dict(config.get("class_singleObject", {})).items():
            found = answers.texts("text", name)
            values[key] = found[0] if found else ""
    elif category == "xpath":
        for xpath, key in dict(config.get("xpathObject", {})).items():
            values[key] = answers.first("xpath_text", xpath)
    elif category == "input":
        for xpath, key in dict(config.get("inputObject", {})).items():
            values[key] = answers.first("xpath_input", xpath)
    elif category == "class&url":
        for name, wanted in dict(config.get("class_multiObject", {})).items():
            _mark_listed(values, list(wanted), answers.texts("text", name))
        for name, wanted in dict(config.get("class_multiObject_li", {})).items():
            _mark_listed(values, list(wanted), answers.texts("li_span", name))
        url = page_url.lower()
        for key in config.get("url_include_expected", []):
            values.setdefault(key.lower(), key.lower() in url)
        for key, value in dict(config.get("url_include_expected_multichoice", {})).items():
            values.setdefault(value.lower(), key.lower() in url)
    return values


async def active_tab_html_parse(ctx: Context, config: dict[str, Any]) -> dict[str, Any] | None:
    """Values read in the agent's own tab showing the active URL, by ``category`` (``class``, ``class&url``,
    ``xpath``, ``input``: see ``html_values``); None without an address bar, ``{}`` when no open tab shows
    its URL (OSWorld's fallbacks).

    Where OSWorld's differs: Chrome not answering on its DevTools port is an error, not a relaunch (the
    address bar shows Chrome runs, so ``google-chrome --remote-debugging-port`` would only hand a new window
    to it); the tab is read once its document has loaded, not once the network is idle; when several tabs
    show the URL, the most recently used is read (OSWorld: the first Playwright lists)."""
    if config["category"] == "label":  # Playwright's text= engine, which no task we have uses
        raise TaskSkipped("active_tab_html_parse: category 'label' is not implemented")
    url = await active_url(ctx, config)
    if url is None:
        return None
    queries = html_queries(config)
    answer = await _devtools(ctx, "read_tab", 0, url=url, queries=queries)
    if answer["port"] is None:
        raise _unreachable("active_tab_html_parse", 0)
    if not answer["found"]:
        return {}
    return html_values(config, _Answers(queries, list(answer["answers"])), str(answer["url"]))


PAGE_GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "active_tab_html_parse": active_tab_html_parse,
    "url_path_parse": url_path_parse,
}
