"""Running a converter: the plugin registry, the report of what could not be mapped, the pipeline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_core.plugins import Registry
from cua_data.schema import LiteSample
from cua_data.writer import DatasetWriter

__all__ = ["ConversionReport", "Converted", "Converter", "converters", "run_conversion"]


@dataclass
class Converted:
    sample: LiteSample
    split: str = "train"
    variant: str = "default"


@dataclass
class ConversionReport:
    """What a conversion read, made, and could not map — by reason and by action form."""

    records: int = 0
    samples: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # records not converted, by reason
    unmapped_actions: Counter[str] = field(default_factory=Counter)  # actions not mapped, by form
    examples: dict[str, str] = field(default_factory=dict)  # one example per reason or form

    def skip(self, reason: str, example: str = "") -> None:
        self.skipped[reason] += 1
        self.examples.setdefault(reason, example[:300])

    def unmapped(self, form: str, example: str = "") -> None:
        self.unmapped_actions[form] += 1
        self.examples.setdefault(form, example[:300])

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "samples": self.samples,
            "skipped": dict(self.skipped),
            "unmapped_actions": dict(self.unmapped_actions),
            "examples": self.examples,
        }


Converter = Callable[[Path, ConversionReport], Iterator[Converted]]


def converters() -> Registry[Converter]:
    """Every installed converter by name (built-ins and the ``cua_data`` entry points)."""
    from cua_data.registry import converters as registered

    return registered()


def run_conversion(
    name: str,
    src: Path,
    dst: Path,
    *,
    dataset: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Convert ``src`` with converter ``name`` into the dataset folder ``dst``; returns the report."""
    convert = converters()[name]
    report = ConversionReport()
    with DatasetWriter(dst, dataset=dataset) as writer:
        for item in convert(src, report):
            if writer.add(item.sample, split=item.split, variant=item.variant):
                report.samples += 1
            if progress is not None:
                progress(1)
    written = writer.report.to_dict()
    return {
        "converter": name,
        "source": str(src),
        "dataset": str(dst),
        **report.to_dict(),
        "written": written,
    }
