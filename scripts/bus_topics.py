"""Write docs/bus-topics.md, the table of every bus topic and its fields, from the packages' events modules.

Run it after changing a topic or a field: ``python scripts/bus_topics.py`` (tests/cua_core/test_topics.py
fails while the committed file differs from what this writes).
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "bus-topics.md"


def render() -> str:
    import cua_bench.events
    import cua_bench_rl.events
    import cua_pool.events
    from cua_core.topics import topics_markdown

    return topics_markdown([cua_pool.events, cua_bench.events, cua_bench_rl.events])


def main() -> None:
    DOCS.parent.mkdir(exist_ok=True)
    DOCS.write_text(render())
    print(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
