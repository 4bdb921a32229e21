"""The env server's side of the adversary: what setup left, what the oracle's evaluation read, and each mutation."""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any

from cua_core import CuaError

# The hands and the mutations are imported when an adversary is made: every env server imports this
# module (for its ``adversary.*`` methods) and only ``cua-bench check`` ever makes one.
if TYPE_CHECKING:
    from cua_bench.adversary.mutations import State

__all__ = ["Adversary"]

_KEEP_BYTES = 1 << 20  # setup's files up to this size are kept, so a deleted one can come back hidden


class Adversary:
    """The env server's side: one per episode that ``begin`` starts."""

    def __init__(self, session: Any) -> None:
        from cua_bench.adversary.hands import hands_for

        self.hands = hands_for(session)
        self.state: State | None = None
        self.reads: dict[str, bytes] = {}  # what this episode's evaluation read
        self.titles_read = False  # whether it read the windows' titles
        self.recording = False
        self.planned: State | None = None  # the oracle's end state, kept across the mutations' episodes
        self.ended: dict[str, bytes] = {}  # the small files the oracle made, as it left them (for ``restore``)

    async def begin(self) -> None:
        from cua_bench.adversary.mutations import State

        before = await self.hands.snapshot()
        kept = {}
        for path, state in before.items():
            if state.kind == "file" and state.size <= _KEEP_BYTES:
                try:
                    kept[path] = await self.hands.read(path)
                except (OSError, CuaError):
                    continue
        hands = self.hands
        self.state = State(before, kept, texts=hands.texts(), inputs=hands.inputs(), windows=hands.windows())
        self.state.titles = await hands.titles()
        self.reads, self.titles_read, self.recording = {}, False, True

    def read(self, path: str, data: bytes) -> None:
        """The evaluator read ``path`` (relative to home) and found ``data``."""
        if self.recording:
            self.reads[path] = data

    def read_titles(self) -> None:
        """The evaluator read the windows' titles."""
        if self.recording:
            self.titles_read = True

    async def plan(self, task: Any = None) -> list[str]:
        """The mutations that apply to the oracle's end state (call after the oracle's evaluation of ``task``)."""
        from cua_bench.adversary.channels import channels
        from cua_bench.adversary.mutations import MUTATIONS

        state = self._state()
        state.after, state.reads = await self.hands.snapshot(), dict(self.reads)
        state.recorded = {key: channel.recorded() for key, channel in channels(task).items()}
        state.titles_read = self.titles_read
        self.planned = state
        self.ended = {}
        for path in state.made():
            if state.after[path].size <= _KEEP_BYTES:
                try:
                    self.ended[path] = await self.hands.read(path)
                except (OSError, CuaError):
                    continue
        planned = []
        for name, mutation in MUTATIONS.items():
            applies = mutation.applies(self.hands, state)
            if await applies if inspect.isawaitable(applies) else applies:
                planned.append(name)
        return planned

    async def mutate(self, name: str, task: Any = None) -> list[str]:
        """Apply mutation ``name`` to the current end state of ``task``'s episode; what it did ([] when nothing
        applied)."""
        from cua_bench.adversary.channels import channels
        from cua_bench.adversary.hands import NotApplicable
        from cua_bench.adversary.mutations import MUTATIONS

        if name not in MUTATIONS:
            raise CuaError(f"no mutation {name!r}; known: {', '.join(MUTATIONS)}")
        planned = self.planned
        if planned is None:
            raise CuaError("mutate before plan: run the oracle and plan() on this variant first")
        state = self._state()
        mutation = MUTATIONS[name]
        current = dataclasses.replace(
            state,
            after=await self.hands.snapshot(),
            reads=planned.reads,
            titles_read=planned.titles_read,
            recorded=planned.recorded,
            channels=channels(task),
        )
        self.recording = False  # the mutated state's evaluation is not the oracle's
        try:
            return await mutation.apply(self.hands, current)
        except NotApplicable:
            return []

    async def restore(self) -> bool:
        """The files back as the oracle's episode left them, after a mutation that changed only files
        (``Mutation.on_files``), so the next mutation starts from the oracle's end state without playing
        the oracle again; whether they are (when not, the caller plays it again). The env server, the
        app's windows and the reward channels are as the oracle left them: only files were changed."""
        from cua_bench.adversary.mutations import not_the_work

        planned = self.planned
        if planned is None:
            raise CuaError("restore before plan: run the oracle and plan() on this variant first")
        contents = {p: data for p, data in self.state.kept.items() if p in planned.after} if self.state else {}
        contents.update(self.ended)
        identities = setup_files(planned)
        return await self.hands.restore(
            planned.after,
            contents,
            kept=not_the_work,
            identities=identities,
        )

    def _state(self) -> State:
        if self.state is None:
            raise CuaError("the adversary has not begun: call adversary.begin right after reset")
        return self.state


def setup_files(state: State) -> set[int]:
    """The inodes of the files setup made that the oracle's end state still holds: where setup left them,
    or elsewhere with their content (moved). A file the oracle made may reuse the inode of one it deleted:
    that one is new, and ``restore`` may make it anew."""
    at_end = {(s.inode, s.sha256) for s in state.after.values() if s.kind == "file"}
    return {
        s.inode
        for path, s in state.before.items()
        if s.kind == "file"
        and (getattr(state.after.get(path), "inode", None) == s.inode or (s.inode, s.sha256) in at_end)
    }
