"""LiteSample rows for tests: small real PNGs, a click trajectory per row, written in a few lines."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from cua_core.actions import Click, Point, TypeText
from cua_data import DatasetReader, DatasetWriter, LiteSample, Metadata
from cua_data.converters.build import Trajectory


def png(seed: int, size: tuple[int, int] = (32, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (seed % 256, seed // 256 % 256, 7)).save(out, "PNG")
    return out.getvalue()


def sample(n: int, *, platform: str = "desktop", source: str = "test", image_seed: int | None = None) -> LiteSample:
    t = Trajectory(platform, f"task {n}")
    t.add_screenshot(png(n if image_seed is None else image_seed))
    action = Click(Point(n % 1000, 300)) if platform != "mobile" else TypeText("x")
    t.act([action], description=f"step of {n}", result_image=png(10_000 + n % 3))
    t.finish()
    others = {"id": f"row-{n}", "source": source, "resolution": [32, 20]}
    return LiteSample(Metadata(platform, "use", others=others), t.messages, t.images)


def write(root: Path, ns: range, **kwargs: object) -> None:
    with DatasetWriter(root, row_group_size=64) as writer:
        for n in ns:
            writer.add(sample(n), **kwargs)  # type: ignore[arg-type]


def ids(root: Path, **filters: str) -> list[str]:
    return [s.metadata.id or "" for s in DatasetReader(root, **filters)]
