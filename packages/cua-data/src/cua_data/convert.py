"""Running a converter: the plugin registry, the report of what could not be mapped, the pipeline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_core import Registry
from cua_data.errors import StoreError
from cua_data.markers import check_apart, layout_of, require_dataset
from cua_data.reader import DatasetReader, row_id
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


DUPLICATE = "id already in the dataset"


def run_conversion(
    name: str,
    src: Path,
    dst: Path,
    *,
    dataset: str | None = None,
    append: bool = False,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Convert ``src`` with converter ``name`` into the dataset folder ``dst``; returns the report.

    ``dst`` must be new, empty, or (with ``append``) a dataset: converting twice into one dataset
    would otherwise double every row. Appending skips a row whose id the dataset already holds (the
    report counts it under ``skipped``), so a rerun adds only what is new. Rows of one run that share
    an id are all written: dropping them would lose data, and ``cua-data validate`` reports them.
    """
    convert = converters()[name]
    check_apart(src, dst, "dataset")
    layout = layout_of(dst)
    if layout.kind == "hub":
        require_dataset(dst, "convert")
    if layout.kind == "other":
        raise StoreError(f"{dst} holds files but is not a dataset: convert into a new or empty folder")
    if layout.kind == "dataset" and not append:
        raise StoreError(
            f"{dst} is already a dataset: pass --append (append=True in Python) to add to it, skipping rows whose id "
            "it already holds, or convert into a new folder"
        )
    existing = _ids(dst) if layout.kind == "dataset" else set()
    created = layout.kind == "missing"
    report = ConversionReport()
    with DatasetWriter(dst, dataset=dataset) as writer:
        for item in convert(src, report):
            ident = item.sample.metadata.id
            if ident is not None and ident in existing:
                report.skip(DUPLICATE, ident)
            elif writer.add(item.sample, split=item.split, variant=item.variant):
                report.samples += 1
            if progress is not None:
                progress(1)
    if created and not writer.report.rows:
        _remove_if_empty(dst)  # a conversion that wrote nothing leaves nothing behind
    written = writer.report.to_dict()
    return {
        "converter": name,
        "source": str(src),
        "dataset": str(dst),
        **report.to_dict(),
        "written": written,
    }


def _ids(root: Path) -> set[str]:
    """Every row id in a dataset, read from the metadata column alone."""
    found: set[str] = set()
    for _, batch in DatasetReader(root).batches(columns=["metadata"]):
        for metadata in batch.column("metadata").to_pylist():
            ident = row_id(metadata)
            if ident is not None:
                found.add(ident)
    return found


def _remove_if_empty(root: Path) -> None:
    """Remove the folders a writer made under ``root`` if they hold no file (never a file)."""
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
    if root.is_dir() and not any(root.iterdir()):
        root.rmdir()
