"""A trained network guiding the search: priors for PUCT and values for the leaves (AlphaZero's use of a net).

``mcts:model=ppo`` (the shipped model of the game) or ``mcts:model=PATH`` (any model
``cardwar train`` saved): at each new node of the tree the policy head gives a prior over
the legal moves, and the value head values the position for the player to move, in
place of a play-out. The network reads the observation of the *determinized* state's
player, built from that player's information view only - as when it plays alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.agents.ppo_agent import load_model, pretrained_path


def model_path(game: str, model: str) -> str:
    """``ppo`` names the shipped model of ``game``; anything else is a model file."""
    return str(pretrained_path(game)) if model == "ppo" else model


class NetworkGuide:
    """``guide(state, legal) -> (priors over legal, value for the player to move in [-1, 1])``."""

    def __init__(self, game: str, model: str) -> None:
        self.game = game
        self.model = load_model(model_path(game, model), game)
        self.n_actions = int(self.model.action_space.n)
        if game == "naval":
            from cardwar.envs.naval.observation import encode_observation

            self._encode = lambda s, seat: encode_observation(s.information_view(seat))
        else:
            from cardwar.envs.hexwar.observation import encode_observation as encode_hex

            self._encode = lambda s, seat: encode_hex(s.information_view(seat), s.scenario)
        self.calls = 0

    def __call__(self, state: Any, legal: list[int]) -> tuple[np.ndarray, float]:
        import torch

        self.calls += 1
        obs = torch.as_tensor(self._encode(state, state.current_player), dtype=torch.float32).unsqueeze(0)
        mask = np.zeros((1, self.n_actions), dtype=bool)
        mask[0, legal] = True
        policy = self.model.policy
        with torch.no_grad():
            probs = policy.get_distribution(obs, action_masks=mask).distribution.probs[0].numpy()
            value = float(policy.predict_values(obs)[0, 0])
        priors = probs[legal].astype(np.float64)
        total = priors.sum()
        priors = priors / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        return priors, max(-1.0, min(1.0, value))
