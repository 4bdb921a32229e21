"""A small text policy over the accessibility tree: one discrete choice per turn, learned by GRPO.

Each turn offers ``done``, a click on each actionable node, and each quoted span of the instruction
typed into each editable node (click it, select all, type: replacing what a field held). The policy
scores every option with one small network over hashed words and a few read-off facts (a node's
role, name, states and value, the words around a span, whether a field already holds a span, what
earlier turns of the episode did), and samples one: the decision's single token is the option's
index. Nothing in it knows a task: which span goes where, when to tick a box, and when to stop are
learned from the reward alone.

Two parts score an option, as in a wide-and-deep model: the deep part (word embeddings and MLPs) and a
wide, per-kind linear score of the read-off facts. The wide part is what lets GRPO tell apart states
that differ in one fact: with the deep part alone, "stop now" (the form was submitted) and "press the
button first" (it was not) moved together, and their opposite rewards cancelled out.

Why options instead of (kind, node, span) tokens: the scorer sees the node and the span together,
so "this field already holds this span" can weigh the pair directly; a factorised choice would have
to carry it through the kind. The option list is rebuilt from the turn, so ``logprobs`` scores the
same list ``act`` sampled from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from cua_bench import Observes
from cua_bench_rl import Decision, Policy, Taken, Turn
from cua_trainer_grpo.policies import a11y_features as feat
from cua_trainer_grpo.policies.scoring import (
    choose,
    entropy_of,
    log_softmax_masked,
    pad_scores,
    picked,
    seed_or_drawn,
    with_floor,
)

__all__ = ["A11yPolicy"]

# The wide part's scores are this times its weights: Adam moves each weight by about lr a step, and one
# weight on one fact must be able to move a score by nats within tens of steps, as the deep part's
# hundreds of weights together do.
WIDE_SCALE = 50.0


class _Bags:
    """Word-id bags gathered for one ``nn.EmbeddingBag`` call."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.offsets: list[int] = []

    def add(self, ids: Sequence[int]) -> None:
        self.offsets.append(len(self.ids))
        self.ids.extend(ids)

    def embed(self, table: nn.EmbeddingBag, device: torch.device) -> torch.Tensor:
        ids = torch.tensor(self.ids, dtype=torch.long, device=device)
        offsets = torch.tensor(self.offsets, dtype=torch.long, device=device)
        return table(ids, offsets)  # type: ignore[no-any-return]


def _mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))


class A11yPolicy(nn.Module, Policy):
    """``A11yPolicy(hidden=64, embed=32, explore=0.0, seed=None)``: the option scorer; ~0.2 M parameters.

    ``explore``: the share of probability spread evenly over a turn's options (see ``with_floor``).
    ``seed``: the sampling's (None: drawn from torch's generator, which ``cua_bench_rl.train`` seeds
    with the run's seed, as it does the initial weights)."""

    observes = Observes(screenshot="none", a11y="nodes")

    def __init__(self, hidden: int = 64, embed: int = 32, explore: float = 0.0, seed: int | None = None) -> None:
        nn.Module.__init__(self)
        if hidden < 1 or embed < 1:
            raise ValueError(f"A11yPolicy: hidden and embed must be positive, got hidden={hidden}, embed={embed}")
        self.version = 0
        self.words = nn.EmbeddingBag(feat.BUCKETS, embed, mode="sum")
        # Small word vectors: a bag sums a dozen of them, and at std 1 they drowned the read-off facts
        # (which field holds what, where the focus is) that tell one state of a form from the next.
        nn.init.normal_(self.words.weight, std=0.1)
        self.node = _mlp(embed + feat.NODE_DENSE, hidden, hidden)
        self.span = _mlp(embed + len(feat.Span("", 0, (), ()).shape()), hidden, hidden)
        self.context = _mlp(embed + feat.GLOBAL_DENSE + 3 * hidden, hidden, hidden)
        self.score = _mlp(len(feat.KINDS) + 3 * hidden + feat.PAIR_DENSE, 2 * hidden, 1)
        self.pair = nn.Bilinear(hidden, hidden, 1)  # which span suits which field, as one learned form
        # The wide part: per kind of option, a linear score of the read-off facts (the turn's, the node's,
        # the pair's). It starts at zero and learns at once what the deep part reaches slowly: stopping
        # once the focus sits on a pressed button, typing into a field that does not hold the span yet.
        self.wide = nn.Linear(len(feat.KINDS) * (feat.GLOBAL_DENSE + feat.NODE_DENSE + feat.PAIR_DENSE), 1)
        nn.init.zeros_(self.wide.weight)
        nn.init.zeros_(self.wide.bias)
        nn.init.zeros_(self.pair.weight)
        nn.init.zeros_(self.pair.bias)
        self.hidden = hidden
        if not 0 <= explore < 1:
            raise ValueError(f"A11yPolicy: explore is a share of probability in [0, 1), got {explore}")
        self.explore = float(explore)
        self.generator = torch.Generator().manual_seed(seed_or_drawn(seed))

    # -- reading turns ------------------------------------------------------------------------

    @staticmethod
    def view(turn: Turn) -> feat.Turnview:
        history = [(t.turn.observation, t.decision.tokens[0]) for t in turn.history if t.decision.tokens]
        # The environment's step count, not the policy's own: after a curriculum's oracle steps the
        # policy's first turn is not the episode's first, and "step 0" must mean the true start (else
        # stopping at once, right after a whole oracle prefix, is learned as what to do at step 0).
        step = int(turn.observation.get("step", turn.step))
        return feat.read_turn(turn.instruction, turn.observation, step, turn.max_steps, history)

    def _scores(self, views: Sequence[feat.Turnview]) -> list[torch.Tensor]:
        """Each turn's option scores (a 1-D tensor per turn, with grad)."""
        device = self.words.weight.device
        node_bags, span_bags, turn_bags = _Bags(), _Bags(), _Bags()
        node_dense: list[list[float]] = []
        span_dense: list[list[float]] = []
        for view in views:
            for node in view.nodes:
                node_bags.add(
                    feat.word_ids([node.role], "role")
                    + feat.word_ids(feat.words_of(node.name), "name")
                    + feat.word_ids(node.mention, "mention")
                )
                node_dense.append(feat.node_dense(view, node))
            for span in view.spans:
                span_bags.add(feat.word_ids(span.before, "before") + feat.word_ids(span.after, "after"))
                span_dense.append(span.shape())
            turn_bags.add(feat.word_ids(feat.words_of(view.instruction), "instruction"))
        zeros = torch.zeros((1, self.hidden), device=device)
        nodes = torch.cat([self._encode(self.node, node_bags, node_dense, device), zeros])  # last row: no node
        spans = torch.cat([self._encode(self.span, span_bags, span_dense, device), zeros])  # last row: no span
        words = turn_bags.embed(self.words, device)
        pooled, kinds, node_rows, span_rows, pairs, owners, facts = [], [], [], [], [], [], []
        turns_facts = [feat.global_dense(v) for v in views]
        no_node = [0.0] * feat.NODE_DENSE
        node_at = span_at = 0
        for t, view in enumerate(views):
            turn_facts = turns_facts[t]
            mine = nodes[node_at : node_at + len(view.nodes)] if view.nodes else zeros
            focus = feat.focused(view)
            held = nodes[node_at + focus] if focus is not None else zeros[0]
            pooled.append(torch.cat([mine.max(dim=0).values, mine.mean(dim=0), held]))
            for option in view.options:
                kinds.append(feat.KINDS.index(option.kind))
                node_rows.append(node_at + option.node if option.node is not None else len(nodes) - 1)
                span_rows.append(span_at + option.span if option.span is not None else len(spans) - 1)
                pair = [0.0] * feat.PAIR_DENSE
                if option.node is not None and option.span is not None:
                    pair = feat.pair_dense(view.nodes[option.node], view.spans[option.span])
                pairs.append(pair)
                owners.append(t)
                node_facts = node_dense[node_at + option.node] if option.node is not None else no_node
                facts.append(turn_facts + node_facts + pair)
            node_at += len(view.nodes)
            span_at += len(view.spans)
        dense = torch.tensor(turns_facts, device=device)
        context = self.context(torch.cat([words, dense, torch.stack(pooled)], dim=1))

        def rows(values: list[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.long, device=device)

        x = torch.cat(
            [
                nn.functional.one_hot(rows(kinds), len(feat.KINDS)).to(context.dtype),
                nodes[rows(node_rows)],
                spans[rows(span_rows)],
                torch.tensor(pairs, device=device),
                context[rows(owners)],
            ],
            dim=1,
        )
        kind = nn.functional.one_hot(rows(kinds), len(feat.KINDS)).to(context.dtype)
        wide = WIDE_SCALE * self.wide((kind[:, :, None] * torch.tensor(facts, device=device)[:, None, :]).flatten(1))
        pair = self.pair(nodes[rows(node_rows)], spans[rows(span_rows)])
        typed = kind[:, feat.KINDS.index("type")]
        scores = self.score(x).squeeze(-1) + wide.squeeze(-1) + typed * pair.squeeze(-1)
        return list(scores.split([len(v.options) for v in views]))

    def _encode(self, mlp: nn.Module, bags: _Bags, dense: list[list[float]], device: torch.device) -> torch.Tensor:
        if not dense:
            return torch.zeros((0, self.hidden), device=device)
        x = torch.cat([bags.embed(self.words, device), torch.tensor(dense, device=device)], dim=1)
        return mlp(x)  # type: ignore[no-any-return]

    def _log_probs(self, views: Sequence[feat.Turnview]) -> torch.Tensor:
        scores, mask = pad_scores(self._scores(views))
        return with_floor(log_softmax_masked(scores, mask), self.explore)

    # -- the Policy contract ------------------------------------------------------------------

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        if not turns:
            return []
        views = [self.view(t) for t in turns]
        with torch.no_grad():
            logp = self._log_probs(views)
            index = choose(logp, greedy, self.generator)
            chosen = picked(logp, index)
        decisions = []
        for view, i, lp in zip(views, index.tolist(), chosen.tolist(), strict=True):
            option = view.options[i]
            decisions.append(Decision(option.actions(view), [i], [lp], text=option.describe(view)))
        return decisions

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        return self.logprobs_and_entropy(taken)[0]

    def logprobs_and_entropy(self, taken: Sequence[Taken]) -> tuple[list[Any], list[Any]]:
        if not taken:
            return [], []
        views = [self.view(t.turn) for t in taken]
        for t, view in zip(taken, views, strict=True):
            if len(t.decision.tokens) != 1 or not 0 <= t.decision.tokens[0] < len(view.options):
                raise ValueError(
                    f"A11yPolicy: turn {t.turn.step} of episode {t.turn.episode} has tokens {t.decision.tokens}, "
                    f"but its tree offers {len(view.options)} options: was it played by another policy?"
                )
        logp = self._log_probs(views)
        index = torch.tensor([t.decision.tokens[0] for t in taken], device=logp.device)
        chosen = picked(logp, index)
        entropy = entropy_of(logp)
        return [chosen[i : i + 1] for i in range(len(taken))], [entropy[i : i + 1] for i in range(len(taken))]
