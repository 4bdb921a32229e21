"""The replay buffer: finished GRPO groups waiting for the trainer, bounded in size and staleness.

Groups live in memory (sampling never reads the disk); with a ``folder`` every group is also
persisted before ``add`` returns, so a resumed run gets back exactly the groups that were live:

    <folder>/desktop/use/train/<group id>.parquet   one partition per group: its episodes as LiteSample RL
                                                    rows (cua-data's DatasetWriter, atomic per file)
    <folder>/images/<aa>/<sha>.<ext>                cua-data's content-addressed image store
    <folder>/cua-dataset.json                       cua-data's marker: the folder is a dataset any tool reads
    <folder>/buffer.jsonl                           the index: which groups are live, and the counts

The index is an append-only JSON-lines log, each line fsynced: ``add`` (written after the group's
Parquet file is durable) and ``drop`` (evicted or used). A group is live exactly when its ``add`` is
in the log and no ``drop`` follows, so a kill -9 at any point leaves whole groups or nothing: a
group whose file was written but whose ``add`` never was is an orphan, deleted on load; a torn last
line is ignored. Dropped groups' files stay until the next compaction (every ``capacity // 4``
drops, and on load), which rewrites the log as the live groups, deletes the dropped groups' files
and their images no live group shares, and rewrites the marker.

Sampling. ``on_policy=True`` hands out the freshest groups (highest ``Group.version``; oldest added
first among equals), each at most once: a group used on-policy is *removed* (counted as ``used``),
since on-policy training never wants it again and a kept copy would only fill the capacity.
``on_policy=False`` draws uniformly at random (seeded), without replacement within one call and
with reuse across calls; the trainer's importance ratio corrects for the policy having moved on.
Both skip, and evict as ``evicted_stale``, groups older than ``max_staleness`` versions.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from cua_bench_rl.records import episode_to_sample, sample_to_episode
from cua_bench_rl.rollouts import Group, spec_of_key
from cua_data import (
    DATASET_MARKER,
    TMP_MARK,
    DatasetReader,
    DatasetWriter,
    ImageStore,
    LiteSample,
    Partition,
    SampleError,
    StoreError,
    layout_of,
    partition_path,
    write_marker,
)

__all__ = ["INDEX_FILE", "ReplayBuffer"]

log = logging.getLogger(__name__)

INDEX_FILE = "buffer.jsonl"
_PLATFORM, _TASK_TYPE, _SPLIT = "desktop", "use", "train"
_DROPS = ("used", "evicted_capacity", "evicted_stale", "evicted_ahead", "lost")
_NOT_TRAINED = ("aborted", "failed")
# Tests set it to make add() sleep between writing a group's rows (so a kill lands mid-group).
_SLOW_ENV = "CUA_BENCH_RL_BUFFER_SLOW_ADD"


@dataclass
class _Entry:
    gid: str
    seq: int
    group: Group
    images: list[str] = field(default_factory=list)
    episodes: int = 0  # as the index records it: what a whole group read back must hold

    def record(self, op: str) -> dict[str, Any]:
        return {
            "op": op,
            "group": self.gid,
            "seq": self.seq,
            "task": self.group.task.key,
            "version": self.group.version,
            "episodes": self.episodes,
            "images": self.images,
        }


class ReplayBuffer:
    """Groups by episode (``Group.task``, an ``EpisodeSpec``), bounded by ``capacity`` (in groups) and
    ``max_staleness`` (in policy versions; None: no bound). ``folder`` None keeps them in memory only.
    Not thread-safe: a rollout thread adding while a trainer samples holds one lock around both (as
    ``cua_bench_rl.train`` does)."""

    def __init__(
        self,
        capacity: int = 256,
        max_staleness: int | None = 2,
        folder: Path | str | None = None,
        seed: int = 0,
    ) -> None:
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"capacity must be a positive number of groups, got {capacity!r}")
        if max_staleness is not None and (not isinstance(max_staleness, int) or max_staleness < 0):
            raise ValueError(f"max_staleness must be None (no bound) or an integer >= 0, got {max_staleness!r}")
        self.capacity = capacity
        self.max_staleness = max_staleness
        self.folder = None if folder is None else Path(folder)
        self.rng = random.Random(seed)
        self.counts = {"added": 0, "used": 0, "evicted_capacity": 0, "evicted_stale": 0, "evicted_ahead": 0, "lost": 0}
        self._live: dict[str, _Entry] = {}  # insertion order = add order
        self._dead: list[_Entry] = []  # dropped, files not yet deleted
        self._seq = 0
        self._log: TextIO | None = None
        if self.folder is not None:
            if (self.folder / INDEX_FILE).exists():
                raise StoreError(
                    f"{self.folder} holds a replay buffer already: resume it with "
                    f"ReplayBuffer.load({str(self.folder)!r}, ...), or give a new folder"
                )
            self.folder.mkdir(parents=True, exist_ok=True)
            self._rewrite_index()

    # -- the public surface ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._live)

    @property
    def stats(self) -> dict[str, int]:
        """added, used (handed out on-policy, then removed), evicted_capacity, evicted_stale,
        evicted_ahead (see ``drop_ahead_of``), lost (in the index but unreadable on load: only if files
        were removed behind the buffer's back) and size; added = the sum of all the others."""
        return {**self.counts, "size": len(self._live)}

    def groups(self) -> list[Group]:
        """The live groups, oldest added first (for inspection; sampling is ``sample``)."""
        return [e.group for e in self._live.values()]

    def add(self, group: Group) -> None:
        """Keep ``group`` (persisted before this returns), evicting the oldest if over capacity."""
        self._check(group)
        self._seq += 1
        entry = _Entry(f"g{self._seq:08d}-{secrets.token_hex(3)}", self._seq, group, episodes=len(group.episodes))
        records = []
        if self.folder is not None:
            entry.images = self._write(entry)
            records.append(entry.record("add"))
        self._live[entry.gid] = entry
        self.counts["added"] += 1
        over = list(self._live.values())[: max(0, len(self._live) - self.capacity)]
        self._drop([(e, "evicted_capacity") for e in over], records)

    def sample(self, count: int, *, version: int, on_policy: bool = True) -> list[Group]:
        """Up to ``count`` groups usable at policy ``version`` (fewer if fewer are live); see the module docstring."""
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"count must be an integer >= 0, got {count!r}")
        stale = [
            (e, "evicted_stale")
            for e in self._live.values()
            if self.max_staleness is not None and version - e.group.version > self.max_staleness
        ]
        self._drop(stale, [])
        live = list(self._live.values())
        if on_policy:
            chosen = sorted(live, key=lambda e: (-e.group.version, e.seq))[:count]
            self._drop([(e, "used") for e in chosen], [])
        else:
            chosen = self.rng.sample(live, min(count, len(live)))
        return [e.group for e in chosen]

    def drop_ahead_of(self, version: int) -> int:
        """Evict the groups any turn of which a policy newer than ``version`` played; how many.

        A run resumed from the checkpoint at ``version`` lost the weights that played them (they
        lived only in the killed process): their log-probs belong to no policy that exists now, so
        neither on- nor off-policy training can use them honestly."""
        ahead = [
            (e, "evicted_ahead")
            for e in self._live.values()
            if max((v for episode in e.group.episodes for v in episode.versions), default=0) > version
        ]
        self._drop(ahead, [])
        return len(ahead)

    @classmethod
    def load(
        cls, folder: Path | str, *, capacity: int = 256, max_staleness: int | None = 2, seed: int = 0
    ) -> ReplayBuffer:
        """The buffer persisted in ``folder``: its live groups (whole ones only) and its counts.

        A smaller ``capacity`` than the groups kept evicts the oldest (counted). A folder without an
        index (a run killed before its buffer was made) gives an empty buffer there."""
        root = Path(folder)
        if not (root / INDEX_FILE).exists():
            if root.exists() and any(p.name != "images" for p in root.iterdir() if p.is_dir()):
                raise StoreError(f"{root} has partitions but no {INDEX_FILE}: it is not a replay buffer's folder")
            return cls(capacity, max_staleness, root, seed)
        buffer = cls(capacity, max_staleness, None, seed)
        buffer.folder = root
        buffer._replay(_read_index(root / INDEX_FILE))
        buffer._collect_garbage()
        buffer._read_groups()
        buffer._compact()
        over = list(buffer._live.values())[: max(0, len(buffer._live) - capacity)]
        buffer._drop([(e, "evicted_capacity") for e in over], [])
        return buffer

    def close(self) -> None:
        """Compact and close the index (the buffer stays usable; a later add reopens the index)."""
        if self.folder is not None:
            self._compact()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> ReplayBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- in memory ---------------------------------------------------------------------------------

    def _check(self, group: Group) -> None:
        if not isinstance(group, Group) or not group.episodes:
            raise ValueError(f"add takes a non-empty cua_bench_rl.rollouts.Group, got {group!r:.80}")
        for episode in group.episodes:
            if episode.task != group.task:  # as EpisodeSpecs compare: task, variant and split, not how observed
                raise ValueError(f"rollout {episode.id} plays {episode.task.key}, its group {group.task.key}")
            if episode.status in _NOT_TRAINED:
                raise ValueError(
                    f"episode {episode.id} is {episode.status}: aborted and failed episodes are not trained on; "
                    "leave them out of the group"
                )

    def _drop(self, dropped: list[tuple[_Entry, str]], records: list[dict[str, Any]]) -> None:
        """Drop entries, appending their drop records after ``records`` in one durable write."""
        for entry, why in dropped:
            del self._live[entry.gid]
            self.counts[why] += 1
            if self.folder is not None:
                records.append({"op": "drop", "group": entry.gid, "why": why})
                self._dead.append(entry)
        if records:
            self._append(records)
        self._maybe_compact()

    # -- on disk -----------------------------------------------------------------------------------

    def _write(self, entry: _Entry) -> list[str]:
        """The group's rows as one partition file (atomic: all of them or none); its image refs."""
        assert self.folder is not None
        slow = float(os.environ.get(_SLOW_ENV) or 0)
        refs: list[str] = []
        writer = DatasetWriter(self.folder)
        try:
            for episode in entry.group.episodes:
                sample = episode_to_sample(episode, entry.gid, platform=_PLATFORM)
                stored: list[str | bytes] = [
                    writer.images.put(image) if isinstance(image, bytes) else image for image in sample.images
                ]
                refs += [str(ref) for ref in stored]
                sample = LiteSample(sample.metadata, sample.messages, stored, sample.rl)
                if not writer.add(sample, split=_SPLIT, variant=entry.gid):
                    raise SampleError(f"episode {episode.id}: {'; '.join(sample.out_of_range())}")
                if slow:
                    time.sleep(slow)
        except BaseException:
            writer.abort()
            raise
        writer.close()
        return sorted(set(refs))

    def _append(self, records: list[dict[str, Any]]) -> None:
        assert self.folder is not None
        if self._log is None:
            self._log = (self.folder / INDEX_FILE).open("a", encoding="utf-8")
        self._log.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        self._log.flush()
        os.fsync(self._log.fileno())

    def _maybe_compact(self) -> None:
        if self.folder is not None and len(self._dead) >= max(1, self.capacity // 4):
            self._compact()

    def _compact(self) -> None:
        """Rewrite the index as the live groups, then delete what only dropped groups used."""
        assert self.folder is not None
        self._rewrite_index()
        kept = {ref for e in self._live.values() for ref in e.images}
        store = ImageStore(self.folder)
        for entry in self._dead:
            self._partition(entry.gid).unlink(missing_ok=True)
            for ref in set(entry.images) - kept:
                with contextlib.suppress(StoreError):
                    store.path(ref).unlink(missing_ok=True)
        self._write_marker()
        self._dead = []

    def _rewrite_index(self) -> None:
        assert self.folder is not None
        if self._log is not None:
            self._log.close()
            self._log = None
        path = self.folder / INDEX_FILE
        tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
        # "live" lines re-list groups whose "add" the counts line already counted.
        lines = [{"op": "counts", **self.counts, "seq": self._seq}] + [e.record("live") for e in self._live.values()]
        with tmp.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        _sync_dir(self.folder)

    def _write_marker(self) -> None:
        assert self.folder is not None
        counts = {str(self._partition_of(e.gid)): e.episodes for e in self._live.values()}
        write_marker(self.folder, DATASET_MARKER, layout_of(self.folder).dataset_name, counts)

    def _partition_of(self, gid: str) -> Partition:
        return Partition(_PLATFORM, _TASK_TYPE, _SPLIT, gid)

    def _partition(self, gid: str) -> Path:
        assert self.folder is not None
        return partition_path(self.folder, self._partition_of(gid))

    # -- loading -----------------------------------------------------------------------------------

    def _replay(self, records: Iterable[dict[str, Any]]) -> None:
        """Counts and the live set from the index; ``_read_groups`` fills the groups in."""
        pending: dict[str, dict[str, Any]] = {}
        for record in records:
            op = record.get("op")
            if op == "counts":
                for key in self.counts:
                    self.counts[key] = int(record.get(key, 0))
                self._seq = int(record.get("seq", 0))
            elif op in ("add", "live"):
                pending[str(record["group"])] = record
                self.counts["added"] += op == "add"
                self._seq = max(self._seq, int(record["seq"]))
            elif op == "drop" and record.get("group") in pending and record.get("why") in _DROPS:
                del pending[str(record["group"])]
                self.counts[str(record["why"])] += 1
        for gid, record in pending.items():
            group = Group(spec_of_key(str(record["task"])), [])  # a key of either form (spec_of_key)
            images = [str(r) for r in record["images"]]
            self._live[gid] = _Entry(gid, int(record["seq"]), group, images, int(record["episodes"]))

    def _read_groups(self) -> None:
        """The live groups' rows, every partition in one pass through cua-data's reader."""
        assert self.folder is not None
        reader = DatasetReader(self.folder, platform=_PLATFORM, task_type=_TASK_TYPE, split=_SPLIT)
        for partition, number, row in reader.rows():
            entry = self._live.get(partition.variant)
            if entry is None:
                continue
            try:
                sample = LiteSample.from_row(row)
                images = [reader.images.get(str(ref)) for ref in sample.images]
                entry.group.episodes.append(sample_to_episode(sample, images))
            except (SampleError, StoreError) as exc:
                raise StoreError(f"{reader.path(partition)} row {number}: {exc}") from exc
        for entry in list(self._live.values()):
            if len(entry.group.episodes) != entry.episodes:
                log.warning(
                    "%s: group %s is in the index with %d episodes, but %d were read back; dropped as lost",
                    self.folder,
                    entry.gid,
                    entry.episodes,
                    len(entry.group.episodes),
                )
                del self._live[entry.gid]
                self._dead.append(entry)
                self.counts["lost"] += 1

    def _collect_garbage(self) -> None:
        """Delete orphans: partitions of no live group, images no live group uses, partial files."""
        assert self.folder is not None
        live = set(self._live)
        folder = self.folder / _PLATFORM / _TASK_TYPE / _SPLIT
        if folder.is_dir():
            for path in folder.iterdir():
                if TMP_MARK in path.name or (path.suffix == ".parquet" and path.stem not in live):
                    path.unlink(missing_ok=True)
        kept = {ImageStore(self.folder).path(ref) for e in self._live.values() for ref in e.images}
        images = self.folder / "images"
        if images.is_dir():
            for shard in images.iterdir():
                for path in shard.iterdir() if shard.is_dir() else ():
                    if path not in kept:
                        path.unlink(missing_ok=True)
        for path in self.folder.iterdir():
            if TMP_MARK in path.name:
                path.unlink(missing_ok=True)


def _read_index(path: Path) -> list[dict[str, Any]]:
    """Every whole line of the index; a torn last line (a kill mid-write) is left out."""
    records = []
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if number < len(lines) - 1:
                raise StoreError(f"{path} line {number} is not JSON: the index is corrupt") from None
            log.warning("%s: its last line was cut short (a kill mid-write); ignored", path)
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
