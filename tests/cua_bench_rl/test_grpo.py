"""GRPO's maths against values worked out by hand (the arithmetic is written beside each)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.grpo import flatten, group_advantages, pad, policy_loss
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn

LN = math.log

# -- advantages ---------------------------------------------------------------------------------


def test_group_scale_uses_the_sample_std() -> None:
    # mean 0.5; sample std sqrt((4 * 0.25) / 3) = 0.577350; 0.5 / 0.577350 = 0.866025
    advantages, dropped = group_advantages([[1, 0, 0, 1]], eps=0.0)
    assert dropped == 0
    assert advantages[0] == pytest.approx([0.866025, -0.866025, -0.866025, 0.866025], abs=1e-6)


def test_eps_is_added_to_the_std() -> None:
    # [1, 0]: sample std 0.707107; + eps 0.5 = 1.207107; 0.5 / 1.207107 = 0.414214
    advantages, _ = group_advantages([[1, 0]], eps=0.5)
    assert advantages[0] == pytest.approx([0.414214, -0.414214], abs=1e-6)
    # the default eps (1e-6) moves the third decimal place of nothing
    default, _ = group_advantages([[1, 0]])
    assert default[0] == pytest.approx([0.707106, -0.707106], abs=1e-5)


def test_batch_scale_uses_the_std_of_every_reward_dropped_groups_included() -> None:
    # all rewards [1, 0, .5, .5, .5]: mean .5, squares .25 + .25 = .5, / 4 = .125, std 0.353553
    # group [1, 0] (mean .5): +-0.5 / 0.353553 = +-1.414214; the flat group is dropped and counted
    advantages, dropped = group_advantages([[1, 0], [0.5, 0.5, 0.5]], scale="batch", eps=0.0)
    assert dropped == 1
    assert advantages[1] is None
    assert advantages[0] == pytest.approx([1.414214, -1.414214], abs=1e-6)
    # the same group under scale="group": its own std 0.707107 gives +-0.707107, not +-1.414
    grouped, _ = group_advantages([[1, 0], [0.5, 0.5, 0.5]], scale="group", eps=0.0)
    assert grouped[0] == pytest.approx([0.707107, -0.707107], abs=1e-6)


def test_none_scale_centres_only_and_ignores_eps() -> None:
    # [3, 1, 2]: mean 2 -> [1, -1, 0], eps not added
    advantages, dropped = group_advantages([[3, 1, 2]], scale="none", eps=0.5)
    assert (advantages, dropped) == ([[1.0, -1.0, 0.0]], 0)


def test_zero_spread_groups_are_dropped_and_counted() -> None:
    advantages, dropped = group_advantages([[0, 0, 0], [1, 0], [1, 1]])
    assert dropped == 2
    assert advantages[0] is None and advantages[2] is None
    assert advantages[1] is not None


@pytest.mark.parametrize(
    ("groups", "scale", "message"),
    [
        ([[1, 0]], "median", "scale must be one of group, batch, none"),
        ([[]], "group", "groups\\[0\\] is empty"),
        ([[1, 0], [1]], "group", "groups\\[1\\] is a group of 1"),
    ],
)
def test_bad_arguments_are_named(groups: list[list[float]], scale: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        group_advantages(groups, scale=scale)


@given(
    st.lists(
        st.lists(st.floats(min_value=-10, max_value=10, allow_nan=False), min_size=2, max_size=8),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["group", "batch", "none"]),
)
@settings(max_examples=200, deadline=None)
def test_kept_groups_advantages_sum_to_zero(groups: list[list[float]], scale: str) -> None:
    advantages, dropped = group_advantages(groups, scale=scale)
    assert dropped == sum(1 for g in groups if max(g) == min(g))
    for group, values in zip(groups, advantages, strict=True):
        if values is None:
            continue
        assert len(values) == len(group)
        assert abs(sum(values)) < 1e-6 * max(1.0, *(abs(v) for v in values)) * len(values)


# -- the loss -----------------------------------------------------------------------------------


def _batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two sequences, lengths 3 and 2, old log-probs 0, so ratio = exp(new).

    seq 0, A = +1: ratios 1, 1.5, 0.5 -> -min(r, clamp(r, .8, 1.2)) = -1, -1.2 (clipped), -0.5
    seq 1, A = -2: ratios 1.1, 0.5    -> -min(-2r, -2 clamp(r)) = 2.2, 1.6 (clipped: -2*.8 < -2*.5)
    The padded slot holds -inf: it must not reach the loss.
    """
    new = torch.tensor([[0.0, LN(1.5), LN(0.5)], [LN(1.1), LN(0.5), -math.inf]], requires_grad=True)
    old = torch.zeros(2, 3)
    advantages = torch.tensor([1.0, -2.0])
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    return new, old, advantages, mask


def test_token_norm_by_hand() -> None:
    new, old, advantages, mask = _batch()
    loss, metrics = policy_loss(new, old, advantages, mask, norm="token")
    # (-1 - 1.2 - 0.5 + 2.2 + 1.6) / 5 tokens = 1.1 / 5 = 0.22
    assert loss.item() == pytest.approx(0.22, abs=1e-6)
    assert metrics["pg_loss"] == pytest.approx(0.22, abs=1e-6)
    assert metrics["loss"] == pytest.approx(0.22, abs=1e-6)
    assert metrics["clip_fraction"] == pytest.approx(2 / 5)
    # ratios 1 + 1.5 + 0.5 + 1.1 + 0.5 = 4.6, / 5
    assert metrics["ratio_mean"] == pytest.approx(0.92, abs=1e-6)
    assert metrics["kl"] == 0.0


def test_sequence_norm_by_hand_differs_from_token_norm() -> None:
    new, old, advantages, mask = _batch()
    loss, _ = policy_loss(new, old, advantages, mask, norm="sequence")
    # seq 0: -2.7 / 3 = -0.9; seq 1: 3.8 / 2 = 1.9; mean 0.5 (token norm gave 0.22)
    assert loss.item() == pytest.approx(0.5, abs=1e-6)


def test_gradient_by_hand_and_only_to_the_new_logprobs() -> None:
    new, old, advantages, mask = _batch()
    old.requires_grad_(True)
    advantages.requires_grad_(True)
    ref = torch.zeros(2, 3, requires_grad=True)
    loss, _ = policy_loss(new, old, advantages, mask, ref_logprobs=ref, kl_coef=0.0)
    loss.backward()
    # d(-r A)/d logprob = -A r / 5 where the unclipped term is the minimum, 0 where clipping won:
    # seq 0: -1*1/5 = -0.2, clipped 0, -1*0.5/5 = -0.1; seq 1: 2*1.1/5 = 0.44, clipped 0; padding 0
    assert new.grad is not None
    expected = torch.tensor([[-0.2, 0.0, -0.1], [0.44, 0.0, 0.0]])
    assert torch.allclose(new.grad, expected, atol=1e-6)
    assert old.grad is None and advantages.grad is None and ref.grad is None


def test_k3_kl_by_hand() -> None:
    new, old, advantages, mask = _batch()
    # ref - new: seq 0 [0, ln 2, ln .5], seq 1 [ln 2, 0]; k3(d) = e^d - d - 1:
    # k3(0) = 0, k3(ln 2) = 2 - .693147 - 1 = .306853, k3(ln .5) = .5 + .693147 - 1 = .193147
    delta = torch.tensor([[0.0, LN(2), LN(0.5)], [LN(2), 0.0, 0.0]])
    ref = new.detach().clone()
    ref[:, :] = torch.where(mask.bool(), new.detach() + delta, torch.zeros(()))
    loss, metrics = policy_loss(new, old, advantages, mask, ref_logprobs=ref, kl_coef=0.1)
    # token: (0 + .306853 + .193147 + .306853 + 0) / 5 = .161371; loss .22 + .1 * .161371
    assert metrics["kl"] == pytest.approx(0.161371, abs=1e-6)
    assert loss.item() == pytest.approx(0.22 + 0.0161371, abs=1e-6)
    assert metrics["pg_loss"] == pytest.approx(0.22, abs=1e-6)
    _, by_sequence = policy_loss(new, old, advantages, mask, ref_logprobs=ref, kl_coef=0.1, norm="sequence")
    # sequence: (.5 / 3 + .306853 / 2) / 2 = (.166667 + .153426) / 2 = .160047
    assert by_sequence["kl"] == pytest.approx(0.160047, abs=1e-6)
    # kl_coef 0: reported, not added
    plain, reported = policy_loss(new, old, advantages, mask, ref_logprobs=ref, kl_coef=0.0)
    assert plain.item() == pytest.approx(0.22, abs=1e-6)
    assert reported["kl"] == pytest.approx(0.161371, abs=1e-6)


def test_a_token_the_policy_no_longer_samples_gives_a_finite_loss_and_gradient() -> None:
    # Top-p cut the sampled token from the updated policy's nucleus: its log-prob is -inf. By hand, with
    # the log-ratio clamped at -20: ratio e^-20, A = -1: -min(e^-20 * -1, 0.8 * -1) = 0.8 on that token;
    # the other token, ratio 1, A = -1: 1. Token mean 0.9. KL (ref 0): k3(20) = e^20 - 21.
    new = torch.tensor([[float("-inf"), 0.0]], requires_grad=True)
    old, advantages, mask = torch.zeros(1, 2), torch.tensor([-1.0]), torch.ones(1, 2)
    loss, metrics = policy_loss(new, old, advantages, mask, ref_logprobs=torch.zeros(1, 2), kl_coef=1e-9)
    assert metrics["pg_loss"] == pytest.approx(0.9, abs=1e-6)
    assert metrics["kl"] == pytest.approx((math.exp(20) - 21) / 2, rel=1e-5)
    loss.backward()
    assert new.grad is not None and torch.isfinite(new.grad).all()


def test_asymmetric_clip() -> None:
    # one token, A = 1, ratio 1.3: clip_high .2 caps it at 1.2; clip_high .28 (DAPO's) leaves 1.28
    new = torch.tensor([[LN(1.3)]])
    old, advantages, mask = torch.zeros(1, 1), torch.tensor([1.0]), torch.ones(1, 1)
    capped, m1 = policy_loss(new, old, advantages, mask, clip_low=0.2, clip_high=0.2)
    wider, m2 = policy_loss(new, old, advantages, mask, clip_low=0.2, clip_high=0.28)
    assert capped.item() == pytest.approx(-1.2) and m1["clip_fraction"] == 1.0
    assert wider.item() == pytest.approx(-1.28) and m2["clip_fraction"] == 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"old_logprobs": torch.zeros(2, 4)}, "old_logprobs has shape \\[2, 4\\]"),
        ({"mask": torch.ones(3, 3)}, "mask has shape \\[3, 3\\]"),
        ({"advantages": torch.zeros(3)}, "advantages must be \\[B\\] = \\[2\\]"),
        ({"logprobs": torch.zeros(6)}, "logprobs must be \\[B, T\\]"),
        ({"norm": "episode"}, "norm must be one of token, sequence"),
        ({"mask": torch.zeros(2, 3)}, "mask has no real tokens"),
        ({"ref_logprobs": torch.zeros(1, 3)}, "ref_logprobs has shape"),
    ],
)
def test_bad_loss_arguments_are_named(change: dict[str, object], message: str) -> None:
    new, old, advantages, mask = _batch()
    arguments: dict[str, object] = {"logprobs": new, "old_logprobs": old, "advantages": advantages, "mask": mask}
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        policy_loss(**arguments)  # type: ignore[arg-type]


@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=5), st.floats(min_value=-3, max_value=3, allow_nan=False)),
        min_size=1,
        max_size=6,
    ).filter(lambda rows: any(n for n, _ in rows)),
    st.sampled_from(["token", "sequence"]),
)
@settings(max_examples=100, deadline=None)
def test_ratio_one_gives_minus_mean_advantage(rows: list[tuple[int, float]], norm: str) -> None:
    lengths = [n for n, _ in rows]
    values = [a for _, a in rows]
    generator = torch.Generator().manual_seed(sum(lengths))
    sequences = [torch.randn(n, generator=generator, dtype=torch.float64) for n in lengths]
    logprobs, mask = pad(sequences)
    loss, metrics = policy_loss(logprobs, logprobs.clone(), torch.tensor(values, dtype=torch.float64), mask, norm=norm)
    if norm == "token":
        expected = -sum(a * n for n, a in rows) / sum(lengths)
    else:
        kept = [a for n, a in rows if n]
        expected = -sum(kept) / len(kept)
    assert loss.item() == pytest.approx(expected, abs=1e-9)
    assert metrics["ratio_mean"] == pytest.approx(1.0)
    assert metrics["clip_fraction"] == 0.0


# -- helpers ------------------------------------------------------------------------------------


def test_pad_right_pads_and_masks_and_keeps_the_gradient() -> None:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([4.0])
    padded, mask = pad([a, b], value=-1.0)
    assert padded.tolist() == [[1.0, 2.0, 3.0], [4.0, -1.0, -1.0]]
    assert mask.tolist() == [[True, True, True], [True, False, False]]
    (padded * mask).sum().backward()
    assert a.grad is not None and a.grad.tolist() == [1.0, 1.0, 1.0]
    empty, none = pad([torch.zeros(0)])
    assert empty.shape == (1, 1) and not none.any()
    with pytest.raises(ValueError, match="at least one"):
        pad([])
    with pytest.raises(ValueError, match="1-D"):
        pad([torch.zeros(2, 2)])
    with pytest.raises(ValueError, match="one dtype"):
        pad([torch.zeros(2), torch.zeros(2, dtype=torch.int64)])


def _episode(name: str, turns: int, reward: float, status: str = "completed") -> Rollout:
    task = EpisodeSpec("sim/click-button", 3, "train")
    episode = Rollout(name, task, "click it", reward=reward, status=status)
    for step in range(turns):
        turn = Turn(name, task, "click it", step, {"instruction": "click it", "step": step})
        episode.turns.append(Taken(turn, Decision([], [step], [-0.5])))
    return episode


def test_flatten_gives_every_turn_its_episodes_advantage_and_skips_dropped_groups() -> None:
    task = EpisodeSpec("sim/click-button", 3, "train")
    kept = Group(task, [_episode("a", 2, 1.0), _episode("b", 1, 0.0)])
    flat = Group(task, [_episode("c", 1, 1.0), _episode("d", 3, 1.0)])
    advantages, dropped = group_advantages([kept.rewards, flat.rewards], eps=0.0)
    samples = flatten([kept, flat], advantages)
    assert dropped == 1
    assert [(t.turn.episode, t.turn.step, round(a, 6)) for t, a in samples] == [
        ("a", 0, 0.707107),
        ("a", 1, 0.707107),
        ("b", 0, -0.707107),
    ]
    assert samples[0][0] is kept.episodes[0].turns[0]


def test_flatten_refuses_aborted_episodes_and_mismatched_lengths() -> None:
    task = EpisodeSpec("sim/click-button", 3, "train")
    group = Group(task, [_episode("a", 1, 1.0), _episode("b", 1, 0.0, status="aborted")])
    with pytest.raises(ValueError, match=r"episode b of groups\[0\] .* is aborted"):
        flatten([group], [[1.0, -1.0]])
    with pytest.raises(ValueError, match="2 episodes but 3 advantages"):
        flatten([Group(task, [_episode("a", 1, 1.0), _episode("b", 1, 0.0)])], [[1.0, 0.0, -1.0]])
    with pytest.raises(ValueError, match="1 groups but 0 advantage lists"):
        flatten([group], [])


def test_a_group_with_an_unscored_episode_is_an_error_not_a_zero() -> None:
    from cua_bench.spec import EpisodeSpec
    from cua_bench_rl.rollouts import Group, Rollout

    task = EpisodeSpec("sim/click-button", 0, "train")
    group = Group(task, [Rollout("a", task, "x", reward=1.0), Rollout("b", task, "x", reward=None)])
    with pytest.raises(ValueError, match=r"episodes \['b'\] have no reward"):
        _ = group.rewards


def test_rloo_leaves_each_episode_out_of_its_own_baseline() -> None:
    # [1, 0, 0]: episode 0's baseline is (0 + 0) / 2 = 0, so A = 1; episodes 1 and 2: (1 + 0) / 2 = .5, A = -.5.
    [advantages], dropped = group_advantages([[1.0, 0.0, 0.0]], scale="none", baseline="leave_one_out")
    assert advantages == pytest.approx([1.0, -0.5, -0.5]) and dropped == 0
    # n/(n-1) times GRPO's centring, whatever the rewards
    [grpo], _ = group_advantages([[0.2, 0.9, 0.4, 0.4]], scale="none")
    [rloo], _ = group_advantages([[0.2, 0.9, 0.4, 0.4]], scale="none", baseline="leave_one_out")
    assert rloo == pytest.approx([4 / 3 * a for a in grpo])
    with pytest.raises(ValueError, match="baseline must be one of"):
        group_advantages([[1.0, 0.0]], baseline="median")


def test_gspo_clips_one_ratio_per_sequence_by_hand() -> None:
    # seq 0: log-ratios [ln 1.5, 0] -> s = exp(ln 1.5 / 2) = 1.224745; A = +1, clip_high .2: min(1.2247, 1.2) = 1.2.
    # seq 1: [ln .5] -> s = .5; A = -1: -min(-.5, -.8) = .8. Loss: mean(-1.2, .8) = -.2; both clipped.
    new = torch.tensor([[LN(1.5), 0.0], [LN(0.5), 0.0]], requires_grad=True)
    old, mask = torch.zeros(2, 2), torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    loss, metrics = policy_loss(new, old, torch.tensor([1.0, -1.0]), mask, importance="sequence")
    assert loss.item() == pytest.approx(-0.2, abs=1e-6)
    assert metrics["clip_fraction"] == 1.0 and metrics["ratio_mean"] == pytest.approx((1.224745 + 0.5) / 2, abs=1e-6)
    # Inside the clip range the gradient of -s*A/B reaches every token of the sequence alike:
    # s = exp((ln 1.1 + 0) / 2) = 1.048809, A = 1, B = 1: d/dlogp_t = -s / 2 = -.524404 for both tokens.
    inside = torch.tensor([[LN(1.1), 0.0]], requires_grad=True)
    loss, _ = policy_loss(inside, torch.zeros(1, 2), torch.tensor([1.0]), torch.ones(1, 2), importance="sequence")
    loss.backward()
    assert inside.grad is not None
    assert inside.grad.tolist() == [pytest.approx([-0.524404, -0.524404], abs=1e-6)]
    with pytest.raises(ValueError, match="importance must be one of"):
        policy_loss(new, old, torch.tensor([1.0, -1.0]), mask, importance="turn")
