"""A small text policy over the accessibility tree: one discrete choice per turn, learned by GRPO.

Each turn offers ``done``, a click on each actionable node, and each quoted span of the instruction
typed into each editable node (click it, select all, type: replacing what a field held). The policy
scores every option with one small network over hashed words and a few read-off facts (a node's
role, name, states and value, the words around a span, whether a field already holds a span, what
earlier turns of the episode did), and samples one: the decision's single token is the option's
index. Nothing in it knows a task: which span goes where, when to tick a box, and when to stop are
learned from the reward alone.

Three parts score an option. Two are as in a wide-and-deep model: the deep part (word embeddings and
MLPs) and a wide, per-kind linear score of the read-off facts. The third reads words as a language model
reads tokens, one code per word wherever it is read: bilinear forms, learned from zero, between the
instruction's words, a node's name and the names the episode has acted on. Nothing in it compares two
words by hand; when the forms come to reward what the instruction and a node share, that carries over to
names no training variant held.

The wide part is what lets GRPO tell apart states that differ in one fact: with the deep part alone,
"stop now" (the form was submitted) and "press the button first" (it was not) moved together, and their
opposite rewards cancelled out. The acted-on names are what tell "the first of two switches is set" from
"the only one is".

Why options instead of (kind, node, span) tokens: the scorer sees the node and the span together,
so "this field already holds this span" can weigh the pair directly; a factorised choice would have
to carry it through the kind. The option list is rebuilt from the turn, so ``logprobs`` scores the
same list ``act`` sampled from.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from cua_bench import Observes
from cua_bench_rl import Decision, Policy, Taken, Turn
from cua_core import Action
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
MATCH = 64  # the width of the shared word codes (random codes of distinct words are near orthogonal)
# The shared forms' scores are this times the forms: as with WIDE_SCALE, so that they move scores by nats
# within tens of steps, ahead of the deep part's memorising of one word pair at a time.
SHARED_SCALE = 12.0
SOFT = 0.1  # the temperature of the soft maximum over a word's counterparts (see _attend)
UNREAD = 25  # with compare_names: the percentage of a screen's name words the deep part reads as no word
# With compare_names a form is one weight on the identity: as with WIDE_SCALE, scaled so that Adam's steps of
# about lr move it as a whole matrix's would.
FORM_SCALE = 8.0


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


class _Words:
    """Word-id lists gathered for one padded lookup of the shared codes: ``(rows, longest, MATCH)`` and a mask."""

    def __init__(self) -> None:
        self.lists: list[list[int]] = []

    def add(self, ids: Sequence[int]) -> None:
        self.lists.append(list(ids))

    def codes(self, table: nn.Embedding, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        lists = [*self.lists, []]  # the last row: none (a done option's node)
        longest = max(1, *(len(ids) for ids in lists))
        ids = torch.tensor([w + [0] * (longest - len(w)) for w in lists], dtype=torch.long, device=device)
        mask = torch.tensor([[True] * len(w) + [False] * (longest - len(w)) for w in lists], device=device)
        return table(ids), mask


def _attend(
    form: torch.Tensor, query: tuple[torch.Tensor, torch.Tensor], keys: tuple[torch.Tensor, torch.Tensor]
) -> torch.Tensor:
    """For each row: each query word's soft best score under ``form`` against the row's key words, averaged
    over the query words (0 where either side has none). A word with a counterpart among the keys adds what
    the form gives the pair; one without adds only chance pairings, which near-orthogonal codes keep small.

    The best is a soft maximum (``SOFT * logsumexp(score / SOFT)``, less its value when every score is 0), not
    ``max``: at the form's start every pair ties at 0, and ``max`` would send the whole gradient to whichever
    key came first; the soft one spreads it over the keys, so a word and its counterpart get their share."""
    (q, q_mask), (k, k_mask) = query, keys
    pairs = torch.einsum("rqd,de,rke->rqk", q, form, k).masked_fill(~k_mask[:, None, :], float("-inf"))
    count = k_mask.sum(dim=1).clamp(min=1).to(pairs.dtype)
    best = SOFT * (torch.logsumexp(pairs / SOFT, dim=2) - count.log()[:, None])
    best = best.masked_fill(~q_mask | ~k_mask.any(dim=1, keepdim=True), 0.0)
    return best.sum(dim=1) / q_mask.sum(dim=1).clamp(min=1)


def _mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))


class A11yPolicy(nn.Module, Policy):
    """``A11yPolicy(hidden=64, embed=32, explore=0.0, seed=None, compare_names=False)``: the option scorer;
    ~0.2 M parameters.

    ``explore``: the share of probability spread evenly over a turn's options (see ``with_floor``).
    ``seed``: the sampling's (None: drawn from torch's generator, which ``cua_bench_rl.train`` seeds
    with the run's seed, as it does the initial weights).
    ``compare_names``: the instruction's quoted words are read only by comparison. The deep part's bag of
    the instruction leaves them out, and the shared codes are drawn afresh for each episode from its id
    (as reading-comprehension models anonymise entities), so no form can learn a name: each form is one
    weight on the identity, learning how much a word the two sides share is worth, whatever the word,
    and a fourth form (``cover``) weighs how much of the instruction a node's name holds. The deep part's
    word vectors start at zero (a word never seen reads as none) and it reads only three quarters of each
    episode's name words, so a note whose title it cannot read may still be the one asked for. Off, a
    trained policy picks a note by the titles it was trained on, and on made-up titles it scores 0.2-0.3.
    On, a greedy play depends on the episode's id too (its codes), by a few points of success."""

    observes = Observes(screenshot="none", a11y="nodes")

    def __init__(
        self,
        hidden: int = 64,
        embed: int = 32,
        explore: float = 0.0,
        seed: int | None = None,
        compare_names: bool = False,
    ) -> None:
        nn.Module.__init__(self)
        self.compare_names = bool(compare_names)
        if hidden < 1 or embed < 1:
            raise ValueError(f"A11yPolicy: hidden and embed must be positive, got hidden={hidden}, embed={embed}")
        self.version = 0
        self.words = nn.EmbeddingBag(feat.BUCKETS, embed, mode="sum")
        # Small word vectors: a bag sums a dozen of them, and at std 1 they drowned the read-off facts
        # (which field holds what, where the focus is) that tell one state of a form from the next.
        nn.init.normal_(self.words.weight, std=0.1)
        if self.compare_names:
            # A word no training variant held keeps its first vector. At zero, that is "no word", which the
            # deep part learns to read: UNREAD percent of the names on each screen are left out of its bags
            # (drawn by the episode's id, so act and logprobs leave out the same ones).
            nn.init.zeros_(self.words.weight)
        self.node = _mlp(embed + feat.NODE_DENSE, hidden, hidden)
        self.span = _mlp(embed + len(feat.Span("", 0, (), ()).shape()), hidden, hidden)
        self.context = _mlp(2 * embed + feat.GLOBAL_DENSE + 3 * hidden, hidden, hidden)
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
        # Which node the instruction speaks of, as one learned form over word pairs: a fixed random code per
        # word (the same table for the instruction's words and a node's name, so a word is the same vector
        # wherever it is read, as a language model's tokens are; the codes are saved with the weights), and
        # a form, zero at the start, that scores each of a node's words against its best counterpart in the
        # instruction (_attend). The form is learned from the reward alone; once it rewards words the two
        # share, it does so for words no training variant held, which word ids learned one by one cannot.
        self.shared = nn.Embedding(feat.BUCKETS, MATCH)
        nn.init.normal_(self.shared.weight, std=MATCH**-0.5)
        self.shared.weight.requires_grad_(False)
        # With compare_names the codes are drawn afresh each episode, and a form over codes no two episodes
        # share can only carry over what is the same under any drawing: how strongly a word scores with
        # itself. So each form is then that one weight (times the identity), which learns at once what a
        # whole matrix would learn as the mean of many episodes' noise.
        form: tuple[int, ...] = () if self.compare_names else (MATCH, MATCH)
        self.match = nn.Parameter(torch.zeros(form))
        # What the episode has acted on so far, in the same code: against a node ("did I act on one like
        # it"), and against the instruction for stopping ("has what it names been acted on"). A policy
        # without it cannot tell "the first of two switches is set" from "the only one is".
        self.again = nn.Parameter(torch.zeros(form))
        self.finish = nn.Parameter(torch.zeros(form))
        if self.compare_names:
            # The instruction's words against a node's: "Ideas" holds every word of its name that the
            # instruction holds, as "Gift ideas" does, but it covers less of the instruction. Without this
            # form the two tie, and with names read only by comparison nothing else could tell them apart.
            self.cover = nn.Parameter(torch.zeros(form))
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
        view = feat.read_turn(turn.instruction, turn.observation, step, turn.max_steps, history)
        view.episode = turn.episode
        return view

    def token_for(self, turn: Turn, actions: Sequence[Action]) -> int | None:
        """The option that does what ``actions`` do on this turn's screen, or None when no option does:
        how a demonstration's step becomes this policy's decision (behaviour cloning)."""
        return feat.option_for(self.view(turn), actions)

    def _scores(self, views: Sequence[feat.Turnview]) -> list[torch.Tensor]:
        """Each turn's option scores (a 1-D tensor per turn, with grad)."""
        device = self.words.weight.device
        node_bags, span_bags, turn_bags = _Bags(), _Bags(), _Bags()
        said, named, done = _Words(), _Words(), _Words()  # the instruction, node names, acted-on names (shared code)
        acted = _Bags()  # the names acted on, as the deep part reads them
        node_dense: list[list[float]] = []
        span_dense: list[list[float]] = []
        for view in views:
            read, code = view.instruction, "word"
            if self.compare_names:  # one episode's codes say nothing of another's (its instruction may recur)
                read, code = feat.QUOTED.sub(" ", view.instruction), f"word{zlib.crc32(view.episode.encode())}"
            for node in view.nodes:
                deep = feat.words_of(node.name)
                if self.compare_names:  # a share of names read as no word, as one never seen is (see __init__)
                    deep = [w for w in deep if zlib.crc32(f"{view.episode}\0{w}".encode()) % 100 >= UNREAD]
                node_bags.add(feat.word_ids([node.role], "role") + feat.word_ids(deep, "name"))
                node_dense.append(feat.node_dense(view, node))
                named.add(feat.word_ids(feat.words_of(node.name), code))
            for span in view.spans:
                span_bags.add(feat.word_ids(span.before, "before") + feat.word_ids(span.after, "after"))
                span_dense.append(span.shape())
            turn_bags.add(feat.word_ids(feat.words_of(read), "instruction"))
            said.add(feat.word_ids(feat.words_of(view.instruction), code))
            names = [w for _, name in view.acted for w in feat.words_of(name)]
            done.add(feat.word_ids(names, code))
            acted.add(feat.word_ids(names, "acted"))
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
        context = self.context(torch.cat([words, acted.embed(self.words, device), dense, torch.stack(pooled)], dim=1))

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

        def at(words: _Words, index: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
            codes, mask = words.codes(self.shared, device)
            return codes[rows(index)], mask[rows(index)]

        # node_rows' "no node" row is the last, which _Words keeps empty: done options get no match or again
        option_node, option_said, option_done = at(named, node_rows), at(said, owners), at(done, owners)
        stop = kind[:, feat.KINDS.index("done")]
        shared = (
            _attend(self._form(self.match), option_node, option_said)
            + _attend(self._form(self.again), option_node, option_done)
            + stop * _attend(self._form(self.finish), option_said, option_done)
        )
        if self.compare_names:
            shared = shared + _attend(self._form(self.cover), option_said, option_node)
        scores = self.score(x).squeeze(-1) + wide.squeeze(-1) + typed * pair.squeeze(-1) + SHARED_SCALE * shared
        return list(scores.split([len(v.options) for v in views]))

    @staticmethod
    def _form(weight: torch.Tensor) -> torch.Tensor:
        """A form as ``_attend`` takes it: a learned matrix, or one learned weight on the identity."""
        if weight.dim() == 2:
            return weight
        return FORM_SCALE * weight * torch.eye(MATCH, device=weight.device)

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
