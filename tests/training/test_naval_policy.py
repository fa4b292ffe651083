"""NavalCardPolicy: one scorer for all cards (and zones, lines), logits at the right step ids, a proper
masked distribution on real naval-v1 positions, and MaskablePPO training, saving and loading with it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from torch import nn

from cardwar.envs import naval_v1
from cardwar.envs.naval.cards import NUM_CARDS, make_card, parse_card
from cardwar.envs.naval.observation import CARD_PLANES, ZONE_FEATURES, ZONES_OFFSET
from cardwar.envs.naval.seemap import EDGES, NUM_ZONES, zone_letter
from cardwar.envs.naval.steps import (
    CARD_BASE, LINE_BASE, NUM_LINES, NUM_STEPS, ZONE_BASE, step_to_string, string_to_step,
)
from cardwar.envs.naval_v1 import OBS_SIZE
from cardwar.training.naval_policy import NavalCardPolicy, NavalHeads

OWN_HAND = CARD_PLANES.index("own_hand")
UNSEEN = CARD_PLANES.index("unseen")


def make_policy(**kwargs) -> NavalCardPolicy:
    torch.manual_seed(0)
    return NavalCardPolicy(spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_STEPS),
                           lambda _: 3e-4, **kwargs)


def card_plane(plane: int, card: int) -> int:
    return plane * NUM_CARDS + card


def random_positions(games: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the agent to act, along random legal games of naval-v1."""
    env, rng = naval_v1.raw_env(), np.random.default_rng(seed)
    obs, masks = [], []
    for game in range(games):
        env.reset(seed=seed + game)
        while not any(env.terminations.values()):
            seen = env.observe(env.agent_selection)
            obs.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return np.stack(obs), np.stack(masks)


@pytest.fixture(scope="module")
def positions() -> tuple[np.ndarray, np.ndarray]:
    return random_positions()


# ------------------------------------------------------------------ weight sharing
def test_cards_with_the_same_rank_suit_embedding_and_features_get_the_same_logit() -> None:
    policy = make_policy()
    heads = policy.mlp_extractor
    four_d, four_h, five_d = parse_card("4D"), parse_card("4H"), parse_card("5D")
    obs = torch.zeros(1, OBS_SIZE)
    for card in (four_d, four_h, five_d):
        obs[0, card_plane(OWN_HAND, card)] = 1.0
    with torch.no_grad():
        before = heads(obs)[0][0]
        assert before[CARD_BASE + four_d] != before[CARD_BASE + four_h]  # the suits' embeddings differ
        heads.suit_embedding.weight[1] = heads.suit_embedding.weight[2]  # diamonds := hearts
        after = heads(obs)[0][0]
    assert after[CARD_BASE + four_d] == after[CARD_BASE + four_h]
    assert after[CARD_BASE + four_d] != after[CARD_BASE + five_d]  # the rank still tells 4D from 5D


def test_a_card_vector_depends_on_that_card_only() -> None:
    heads = make_policy().mlp_extractor
    obs = torch.zeros(2, OBS_SIZE)
    seven_s = make_card(7, 3)
    obs[1, card_plane(UNSEEN, seven_s)] = 1.0
    # a ship: 7S in Seazone E (own ship, rank 7, suit spades) - the card's Seazone feature
    zone = ZONES_OFFSET + 4 * ZONE_FEATURES
    obs[1, [zone + 0, zone + 2 + 6, zone + 2 + 13 + 3]] = 1.0
    with torch.no_grad():
        vectors = heads.card_vectors(obs)
    changed = (vectors[0] != vectors[1]).any(dim=1)
    assert changed.nonzero().flatten().tolist() == [seven_s]


def test_no_parameter_is_sized_by_the_cards_or_the_steps() -> None:
    policy = make_policy()
    for name, p in policy.named_parameters():
        assert not {NUM_CARDS, NUM_LINES, NUM_STEPS} & set(p.shape), (name, tuple(p.shape))
    card_path = [policy.mlp_extractor.card_scorer, policy.mlp_extractor.rank_embedding,
                 policy.mlp_extractor.suit_embedding, policy.mlp_extractor.card_query]
    n_card_params = sum(p.numel() for m in card_path for p in m.parameters())
    assert n_card_params < 52 * 128  # less than one Linear from the context to 52 card logits


# ------------------------------------------------------------------ step ids
def test_each_kind_of_item_lands_at_its_step_ids() -> None:
    """Items' vectors forced to their index; each kind's logit must come out at that item's step id."""
    heads: NavalHeads = make_policy().mlp_extractor
    hidden = heads.card_query.out_features

    def mark(offset: float, n_items: int):
        def hook(_module, _inputs, output):
            marked = torch.zeros_like(output).flatten(1, -2)  # [B, items, H]
            marked[..., 0] = offset + torch.arange(n_items, dtype=output.dtype)
            return marked.reshape(output.shape)
        return hook

    with torch.no_grad():
        for query in (heads.card_query, heads.zone_query, heads.line_query):
            query.weight.zero_()
            query.bias.copy_(torch.eye(hidden)[0])  # the query reads the first unit
        heads.singles.weight.zero_()
        heads.singles.bias.copy_(torch.tensor([1000.0, 1001.0, 1002.0, 1003.0]))
    heads.card_scorer.register_forward_hook(mark(0.0, NUM_CARDS))
    heads.zone_scorer.register_forward_hook(mark(100.0, NUM_ZONES))
    heads.line_act.register_forward_hook(mark(200.0, NUM_LINES))
    with torch.no_grad():
        logits = heads.forward_actor(torch.zeros(1, OBS_SIZE))[0]
    assert logits.shape == (NUM_STEPS,)
    assert logits[string_to_step("card 4D")] == parse_card("4D")
    assert logits[string_to_step("zone E")] == 100 + 4
    assert [logits[CARD_BASE + c] for c in range(NUM_CARDS)] == list(range(NUM_CARDS))
    assert [logits[ZONE_BASE + z] for z in range(NUM_ZONES)] == [100 + z for z in range(NUM_ZONES)]
    assert [logits[LINE_BASE + i] for i in range(NUM_LINES)] == [200 + i for i in range(NUM_LINES)]
    for name, value in (("nodefend", 1000), ("pass", 1001), ("keep", 1002), ("mulligan", 1003)):
        assert logits[string_to_step(name)] == value


def test_a_lines_vector_reads_the_zones_at_its_two_ends() -> None:
    heads = make_policy().mlp_extractor
    hidden = heads.card_query.out_features
    zones = torch.randn(1, NUM_ZONES, hidden)
    with torch.no_grad():
        base = heads.line_vectors(zones)[0]
        for z in range(NUM_ZONES):
            moved = zones.clone()
            moved[0, z] += 1.0
            changed = (heads.line_vectors(moved)[0] != base).any(dim=1).nonzero().flatten().tolist()
            letter = zone_letter(z)
            touching = [i for i in range(NUM_LINES)
                        if letter in step_to_string(LINE_BASE + i).split()[1].split(">")]
            assert changed == touching, (letter, [step_to_string(LINE_BASE + i) for i in changed])
    assert len(EDGES) * 2 == NUM_LINES


# ------------------------------------------------------------------ real positions
def test_distribution_on_real_positions(positions) -> None:
    obs, masks = positions
    policy = make_policy()
    obs_t = torch.as_tensor(obs)
    with torch.no_grad():
        dist = policy.get_distribution(obs_t, action_masks=masks)
        probs = dist.distribution.probs.numpy()
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs_t))
        values = policy.value_net(latent_vf)
        unmasked = policy._get_action_dist_from_latent(latent_pi).distribution.probs
    assert probs.shape == (len(obs), NUM_STEPS)
    assert np.isfinite(probs).all()
    assert (probs[~masks] == 0).all()
    assert (probs[masks] > 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    # the logits start small, as SB3's action_net does: near-uniform over the legal steps
    assert latent_pi.shape == (len(obs), NUM_STEPS) and latent_pi.abs().max() < 1.0
    torch.testing.assert_close(unmasked, torch.softmax(latent_pi, dim=1))  # action_net adds nothing
    assert torch.equal(values, policy.predict_values(obs_t))
    actions = torch.as_tensor([np.random.default_rng(1).choice(np.flatnonzero(m)) for m in masks])
    v, log_prob, entropy = policy.evaluate_actions(obs_t, actions, action_masks=torch.as_tensor(masks))
    assert v.shape == (len(obs), 1) and torch.isfinite(log_prob).all() and torch.isfinite(entropy).all()
    (v.sum() + log_prob.sum()).backward()
    assert policy.mlp_extractor.rank_embedding.weight.grad.abs().sum() > 0
    assert policy.mlp_extractor.zone_embedding.weight.grad.abs().sum() > 0


def test_sb3_wiring() -> None:
    policy = make_policy()
    assert isinstance(policy.action_net, nn.Identity)
    assert policy.mlp_extractor.latent_dim_pi == NUM_STEPS
    assert policy.value_net.in_features == policy.mlp_extractor.latent_dim_vf
    optimised = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert optimised == {id(p) for p in policy.parameters()}
    with pytest.raises(ValueError, match="Discrete"):
        NavalCardPolicy(spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(3029), lambda _: 3e-4)


# ------------------------------------------------------------------ training
class BothSeats(gymnasium.Env):
    """naval-v1 as one gymnasium env whose learner plays both seats (as PettingZoo's SB3 tutorial does)."""

    def __init__(self) -> None:
        self.aec = naval_v1.raw_env()
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(NUM_STEPS)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**31)))
        return self.aec.observe(self.aec.agent_selection)["observation"], {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        mover = self.aec.agent_selection
        self.aec.step(int(action))
        done = self.aec.terminations[mover]
        return self.aec.observe(self.aec.agent_selection)["observation"], float(self.aec.rewards[mover]), done, \
            False, {}

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.aec.agent_selection)["action_mask"].astype(bool)


def test_maskable_ppo_learns_saves_and_loads(tmp_path, positions) -> None:
    obs, masks = positions
    obs_t, masks = torch.as_tensor(obs[:64]), masks[:64]
    model = MaskablePPO(NavalCardPolicy, BothSeats(), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"embed_dim": 8, "hidden": 32, "scorer_hidden": 16}, device="cpu")
    start = model.policy.mlp_extractor.rank_embedding.weight.detach().clone()
    model.learn(256)
    assert model.num_timesteps == 256
    assert not torch.equal(model.policy.mlp_extractor.rank_embedding.weight, start)  # the card embeddings learn

    with torch.no_grad():
        probs = model.policy.get_distribution(obs_t, action_masks=masks).distribution.probs
        values = model.policy.predict_values(obs_t)
    model.save(tmp_path / "naval_card")
    loaded = MaskablePPO.load(tmp_path / "naval_card", device="cpu")
    assert isinstance(loaded.policy, NavalCardPolicy) and loaded.policy.hidden == 32
    with torch.no_grad():
        assert torch.equal(loaded.policy.get_distribution(obs_t, action_masks=masks).distribution.probs, probs)
        assert torch.equal(loaded.policy.predict_values(obs_t), values)
    model.policy.save(tmp_path / "policy.pt")
    alone = NavalCardPolicy.load(tmp_path / "policy.pt", device="cpu")
    with torch.no_grad():
        assert torch.equal(alone.get_distribution(obs_t, action_masks=masks).distribution.probs, probs)

    # half() then float() keeps a working policy that still trains
    loaded.policy.half().float()
    with torch.no_grad():
        after = loaded.policy.get_distribution(obs_t, action_masks=masks).distribution.probs
    assert torch.isfinite(after).all() and (after[~torch.as_tensor(masks)] == 0).all()
    torch.testing.assert_close(after, probs, atol=2e-3, rtol=0)
    loaded.set_env(BothSeats())
    loaded.learn(64, reset_num_timesteps=False)
    assert loaded.num_timesteps == 256 + 64


def test_trains_on_the_selfplay_env_in_steps_if_it_has_them() -> None:
    from cardwar.training import SelfPlayEnv
    try:
        env = SelfPlayEnv("naval", opponent="random", actions="steps")
    except (TypeError, ValueError) as error:  # the ``actions`` argument is not there (yet)
        pytest.skip(f"SelfPlayEnv has no naval steps: {error}")
    model = MaskablePPO(NavalCardPolicy, env, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"embed_dim": 8, "hidden": 32, "scorer_hidden": 16}, device="cpu")
    model.learn(64)
    assert model.num_timesteps == 64
