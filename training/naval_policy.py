"""A MaskablePPO policy for naval-v1 whose step choices are scored by shared, per-item scorers.

naval-v1 (:mod:`cardwar.envs.naval_v1`) chooses among 113 steps: 52 cards, 9 Seazones, 48 attack
lines (24 edges x 2 styles) and 4 single steps. A flat MLP head gives each card its own row of
weights, so what it learns about 4D says nothing about 4H. Here, as AlphaStar's pointer heads
(Vinyals et al. 2019) and card-game nets (DouZero's action encodings, Zha et al. 2021) score
actions by an encoding of the action rather than by an output slot, one scorer serves every card:

- card c's vector = one shared layer (Linear + activation, the same for all 52) of the card's
  embedding, ``rank_embedding[c % 13] + suit_embedding[c // 13]`` (4D and 4H share the "4"), and
  the card's own features gathered from the observation: its value in each of the 7 card planes and the
  Seazone its ship sits in (9, from the zones' rank and suit one-hots); its logit is the dot
  product of that vector with a query read from the context (an MLP of the whole observation,
  the pending step included);
- Seazone z likewise: a zone embedding and the zone's 19 features plus its three per-zone
  globals (attack from, attack to, sink candidate), through one shared layer, against a query;
- attack line (src > dst, style): one shared layer of (zone vector of src, zone vector of dst)
  plus a style embedding, against a query;
- nodefend / pass / keep / mulligan and the value: linear layers on the context.

No parameter has a dimension of 52, 48 or 113: the card path's size does not depend on the
number of cards.

SB3 wiring: ``self.mlp_extractor`` is :class:`NavalHeads`, returning ``(logits[B, 113],
context[B, hidden])`` (``latent_dim_pi=113``, ``latent_dim_vf=hidden``); ``action_net`` is
``nn.Identity()``, so ``forward``, ``evaluate_actions``, ``get_distribution``, ``predict_values``,
``_get_action_dist_from_latent`` and save/load work unchanged. The features extractor must leave
the observation as it is (the default ``FlattenExtractor``), as the heads read its layout.
``net_arch`` is not used.

Speed on CPU: forward + backward of ``evaluate_actions`` (values, log-probs, entropy), batch 512,
1 torch thread, median of 20 after 3 warm-ups, three runs on a shared 2-core machine (load ~2.5),
``.venv/bin/python -m cardwar.training.naval_policy``:

| policy (naval-v1 spaces, 690 -> 113)                               | params  | ms fwd+bwd     |
|--------------------------------------------------------------------|---------|----------------|
| NavalCardPolicy (embed_dim 32, hidden 128, scorer_hidden 32)       | 124,293 | 38.2 - 40.2    |
| MaskableActorCriticPolicy, ``net_arch=[256, 256]`` (pi and vf nets) | 514,674 | 40.6 - 47.1    |

The per-card work ([B, 52, scorer_hidden] element-wise ops) dominates: ``scorer_hidden=64``
took about 1.6x the MLP's time in the same runs.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from cardwar.envs.naval.cards import NUM_CARDS, NUM_RANKS, SUITS
from cardwar.envs.naval.observation import CARD_PLANES, GLOBAL_FEATURES, GLOBAL_OFFSET, ZONE_FEATURES, ZONES_OFFSET
from cardwar.envs.naval.seemap import EDGES, NUM_ZONES
from cardwar.envs.naval.steps import CARD_BASE, LINE_BASE, NUM_LINES, NUM_STEPS, STEP_NODEFEND, ZONE_BASE
from cardwar.envs.naval_v1 import OBS_SIZE

NUM_SUITS = len(SUITS)
NUM_STYLES = 2
NUM_SINGLES = NUM_STEPS - STEP_NODEFEND  # nodefend, pass, keep, mulligan
# Within one zone's 19 features: own ship, enemy ship, rank A..K, suit C D H S.
ZONE_RANK = 2
ZONE_SUIT = ZONE_RANK + NUM_RANKS
ZONE_GLOBALS = tuple(GLOBAL_OFFSET + GLOBAL_FEATURES.index(f"{name}_A")
                     for name in ("attack_from", "attack_to", "sink_candidate"))
CARD_FEATURES = len(CARD_PLANES) + NUM_ZONES  # the card planes, then the zone its ship sits in
ZONE_INPUTS = ZONE_FEATURES + len(ZONE_GLOBALS)

# The logits are concatenated in step order: cards, zones, lines, singles.
assert CARD_BASE == 0 and ZONE_BASE == NUM_CARDS and LINE_BASE == ZONE_BASE + NUM_ZONES
assert STEP_NODEFEND == LINE_BASE + NUM_LINES and NUM_LINES == len(EDGES) * NUM_STYLES
assert ZONE_SUIT + NUM_SUITS == ZONE_FEATURES


def card_features(obs: torch.Tensor, rank_of: torch.Tensor, suit_of: torch.Tensor) -> torch.Tensor:
    """[B, 52, CARD_FEATURES]: each card's value in the card planes, then the one-hot Seazone of its ship.

    ``rank_of`` / ``suit_of``: each card's rank index (c % 13) and suit (c // 13), as long tensors.
    """
    b = obs.shape[0]
    planes = obs[:, :ZONES_OFFSET].reshape(b, len(CARD_PLANES), NUM_CARDS).transpose(1, 2)
    zones = obs[:, ZONES_OFFSET:GLOBAL_OFFSET].reshape(b, NUM_ZONES, ZONE_FEATURES)
    ranks, suits = zones[:, :, ZONE_RANK:ZONE_SUIT], zones[:, :, ZONE_SUIT:]
    where = (ranks[:, :, rank_of] * suits[:, :, suit_of]).transpose(1, 2)  # [B, 52, 9]: ship of card c in z
    return torch.cat([planes, where], dim=2)


def zone_features(obs: torch.Tensor) -> torch.Tensor:
    """[B, 9, ZONE_INPUTS]: each Seazone's 19 features, then its per-zone globals (attack from/to, sink)."""
    b = obs.shape[0]
    zones = obs[:, ZONES_OFFSET:GLOBAL_OFFSET].reshape(b, NUM_ZONES, ZONE_FEATURES)
    extra = torch.stack([obs[:, g:g + NUM_ZONES] for g in ZONE_GLOBALS], dim=2)
    return torch.cat([zones, extra], dim=2)


class ItemScorer(nn.Module):
    """One layer shared by every item (card, zone): (item embedding, item features) -> item vector [hidden].

    ``act(W_e e_i + W_f f_bi + b)`` is a Linear on the concatenation ``[e_i, f_bi]``, split so that the
    embedding part is computed once per item, not once per item and batch row.
    """

    def __init__(self, embed_dim: int, n_features: int, hidden: int, activation_fn: type[nn.Module]) -> None:
        super().__init__()
        self.embed_in = nn.Linear(embed_dim, hidden)
        self.features_in = nn.Linear(n_features, hidden, bias=False)
        self.act = activation_fn()

    def forward(self, embeddings: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """``embeddings`` [N, E] (one per item), ``features`` [B, N, F] -> [B, N, hidden]."""
        return self.act(self.embed_in(embeddings).unsqueeze(0) + self.features_in(features))


def _mlp(sizes: list[int], activation_fn: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(n_in, n_out), activation_fn()]
    return nn.Sequential(*layers)


def _score(items: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """[B, N, H] . [B, H] -> [B, N]."""
    return (items * query.unsqueeze(1)).sum(dim=2)


class NavalHeads(nn.Module):
    """The policy's ``mlp_extractor``: observation -> (step logits [B, 113], value latent [B, hidden]).

    Each kind of item (card, zone, line) has one scorer shared by all its items, making a vector of
    ``scorer_hidden`` per item; an item's logit is that vector dotted with its kind's query, a linear
    map of the context. (A second layer on the item vector before the dot product would be a linear map
    too, so it is folded into the query.)
    """

    def __init__(self, embed_dim: int = 32, hidden: int = 128, scorer_hidden: int = 32,
                 activation_fn: type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        self.latent_dim_pi = NUM_STEPS
        self.latent_dim_vf = hidden
        cards = torch.arange(NUM_CARDS)
        self.register_buffer("rank_of", cards % NUM_RANKS, persistent=False)
        self.register_buffer("suit_of", cards // NUM_RANKS, persistent=False)
        self.register_buffer("edge_src", torch.tensor([s for s, _ in EDGES]), persistent=False)
        self.register_buffer("edge_dst", torch.tensor([d for _, d in EDGES]), persistent=False)
        self.context = _mlp([OBS_SIZE, hidden, hidden], activation_fn)
        # cards
        self.rank_embedding = nn.Embedding(NUM_RANKS, embed_dim)
        self.suit_embedding = nn.Embedding(NUM_SUITS, embed_dim)
        self.card_scorer = ItemScorer(embed_dim, CARD_FEATURES, scorer_hidden, activation_fn)
        self.card_query = nn.Linear(hidden, scorer_hidden)
        # zones
        self.zone_embedding = nn.Embedding(NUM_ZONES, embed_dim)
        self.zone_scorer = ItemScorer(embed_dim, ZONE_INPUTS, scorer_hidden, activation_fn)
        self.zone_query = nn.Linear(hidden, scorer_hidden)
        # attack lines: a Linear on (src zone vector, dst zone vector), split by end, plus the style's embedding
        self.line_src = nn.Linear(scorer_hidden, scorer_hidden)
        self.line_dst = nn.Linear(scorer_hidden, scorer_hidden, bias=False)
        self.style_embedding = nn.Embedding(NUM_STYLES, scorer_hidden)
        self.line_act = activation_fn()
        self.line_query = nn.Linear(hidden, scorer_hidden)
        # nodefend, pass, keep, mulligan
        self.singles = nn.Linear(hidden, NUM_SINGLES)

    def final_layers(self) -> list[nn.Linear]:
        """The layers that make the logits (initialised small, as SB3's ``action_net``)."""
        return [self.card_query, self.zone_query, self.line_query, self.singles]

    def card_embeddings(self) -> torch.Tensor:
        """[52, E]: rank embedding + suit embedding of every card."""
        return self.rank_embedding(self.rank_of) + self.suit_embedding(self.suit_of)

    def card_vectors(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, 52, H]: every card through the one shared card scorer."""
        return self.card_scorer(self.card_embeddings(), card_features(obs, self.rank_of, self.suit_of))

    def zone_vectors(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, 9, H]: every Seazone through the one shared zone scorer."""
        return self.zone_scorer(self.zone_embedding.weight, zone_features(obs))

    def line_vectors(self, zones: torch.Tensor) -> torch.Tensor:
        """[B, 48, H] in step order (edge * 2 + style), from the zone vectors of each line's ends."""
        ends = self.line_src(zones)[:, self.edge_src] + self.line_dst(zones)[:, self.edge_dst]  # [B, 24, H]
        return self.line_act(ends.unsqueeze(2) + self.style_embedding.weight).flatten(1, 2)

    def logits(self, obs: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """[B, 113]: each item's vector dotted with its kind's query, in step order."""
        zones = self.zone_vectors(obs)
        parts = [
            _score(self.card_vectors(obs), self.card_query(context)),
            _score(zones, self.zone_query(context)),
            _score(self.line_vectors(zones), self.line_query(context)),
            self.singles(context),
        ]
        return torch.cat(parts, dim=1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        context = self.context(features)
        return self.logits(features, context), context

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.logits(features, self.context(features))

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.context(features)


class NavalCardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy for naval-v1 with shared card / zone / line scorers (see the module docstring).

    ``embed_dim``: size of the rank, suit and zone embeddings; ``hidden``: width of the context MLP
    (and of the value latent); ``scorer_hidden``: size of the item vectors the shared scorers make
    (and of the queries they are dotted with). The rest
    are :class:`MaskableActorCriticPolicy`'s arguments (``net_arch`` is ignored).
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Schedule,
                 embed_dim: int = 32, hidden: int = 128, scorer_hidden: int = 32,
                 activation_fn: type[nn.Module] = nn.ReLU, **kwargs: Any) -> None:
        if getattr(observation_space, "shape", None) != (OBS_SIZE,):
            raise ValueError(f"NavalCardPolicy reads naval-v1 observations of shape ({OBS_SIZE},), "
                             f"not {getattr(observation_space, 'shape', observation_space)}")
        if not isinstance(action_space, spaces.Discrete) or action_space.n != NUM_STEPS:
            raise ValueError(f"NavalCardPolicy chooses naval-v1 steps, Discrete({NUM_STEPS}), not {action_space}")
        self.embed_dim, self.hidden, self.scorer_hidden = embed_dim, hidden, scorer_hidden
        super().__init__(observation_space, action_space, lr_schedule, activation_fn=activation_fn, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.features_dim != OBS_SIZE:
            raise ValueError(f"NavalCardPolicy needs the observation itself as features ({OBS_SIZE}), "
                             f"but the features extractor gives {self.features_dim}")
        self.mlp_extractor = NavalHeads(self.embed_dim, self.hidden, self.scorer_hidden, self.activation_fn)

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the heads make the logits
        if self.ortho_init:
            for layer in self.mlp_extractor.final_layers():
                self.init_weights(layer, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(embed_dim=self.embed_dim, hidden=self.hidden, scorer_hidden=self.scorer_hidden)
        return data


# ------------------------------------------------------------------ speed (python -m cardwar.training.naval_policy)
def _time_policy(policy: MaskableActorCriticPolicy, batch: int, repeats: int) -> float:
    """Median ms of forward + backward (evaluate_actions: values, log-probs, entropy) on random inputs."""
    obs = torch.rand(batch, OBS_SIZE).round()
    masks = torch.rand(batch, NUM_STEPS) < 0.3
    masks[:, 0] = True
    actions = torch.zeros(batch, dtype=torch.long)
    times = []
    for _ in range(repeats + 3):
        start = time.perf_counter()
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        (values.sum() + log_prob.sum() + entropy.sum()).backward()
        policy.zero_grad()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times[3:]))


def benchmark(batch: int = 512, repeats: int = 20, threads: int = 1) -> dict[str, tuple[int, float]]:
    """{policy: (parameters, ms)} for NavalCardPolicy and SB3's MLP [256, 256] on the naval-v1 spaces."""
    torch.set_num_threads(threads)
    obs_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
    act_space = spaces.Discrete(NUM_STEPS)
    policies = {
        "NavalCardPolicy": NavalCardPolicy(obs_space, act_space, lambda _: 3e-4),
        "MLP [256, 256]": MaskableActorCriticPolicy(obs_space, act_space, lambda _: 3e-4, net_arch=[256, 256]),
    }
    return {name: (sum(p.numel() for p in pol.parameters()), _time_policy(pol, batch, repeats))
            for name, pol in policies.items()}


if __name__ == "__main__":
    for name, (n_params, ms) in benchmark().items():
        print(f"{name:18s} {n_params:9,d} params  {ms:6.1f} ms fwd+bwd (batch 512, 1 thread)")
