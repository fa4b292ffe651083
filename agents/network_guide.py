"""A trained network guiding the search: priors for PUCT and values for the leaves (AlphaZero's use of a net).

``mcts:model=ppo`` (the shipped model of the game) or ``mcts:model=PATH`` (any model
``cardwar train`` saved): at each new node of the tree the policy head gives a prior over
the legal moves, and the value head values the position for the player to move, in
place of a play-out. The network reads the observation of the *determinized* state's
player, built from that player's information view only - as when it plays alone.

A naval-v1 model (trained on steps) gives a move's prior as the product of its steps'
probabilities: one batched call reads the first step's observation and, for each first
step that needs a second, the observation with that step pending.
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
        from cardwar.agents.ppo_agent import model_actions

        self.steps = model_actions(self.model, game) == "steps"
        from cardwar import games

        encode = games.get(game).hook("encode_observation")  # the env's observation of a seat's view
        self._encode = lambda s, seat: encode(s.information_view(seat))
        self.calls = 0

    def __call__(self, state: Any, legal: list[int]) -> tuple[np.ndarray, float]:
        from cardwar.training.fast_inference import one_thread

        self.calls += 1
        with one_thread():  # one small forward pass: torch's threads cost 10x (7.3 against 0.67 ms CPU a call)
            return self._in_steps(state, legal) if self.steps else self._whole_moves(state, legal)

    def _whole_moves(self, state: Any, legal: list[int]) -> tuple[np.ndarray, float]:
        """Priors over whole moves from a model whose action is a move."""
        import torch

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

    def _in_steps(self, state: Any, legal: list[int]) -> tuple[np.ndarray, float]:
        """Priors of whole moves from a steps model: P(first step) x P(second step | first)."""
        import torch

        from cardwar.envs.naval.steps import STEPS_OF
        from cardwar.envs.naval_v1 import OBS_SIZE, PENDING_OFFSET, write_pending

        base = self._encode(state, state.current_player)
        seconds = sorted({STEPS_OF[a][0] for a in legal if len(STEPS_OF[a]) == 2})
        obs = np.zeros((1 + len(seconds), OBS_SIZE), dtype=np.float32)
        obs[:, :PENDING_OFFSET] = base
        masks = np.zeros((1 + len(seconds), self.n_actions), dtype=bool)
        row_of = {first: 1 + i for i, first in enumerate(seconds)}
        write_pending((), obs[0])
        for first, row in row_of.items():
            write_pending((first,), obs[row])
        for a in legal:
            steps = STEPS_OF[a]
            masks[0, steps[0]] = True
            if len(steps) == 2:
                masks[row_of[steps[0]], steps[1]] = True
        policy = self.model.policy
        with torch.no_grad():
            tensor = torch.as_tensor(obs)
            probs = policy.get_distribution(tensor, action_masks=masks).distribution.probs.numpy()
            value = float(policy.predict_values(tensor[:1])[0, 0])
        priors = np.array([probs[0, STEPS_OF[a][0]] * (probs[row_of[STEPS_OF[a][0]], STEPS_OF[a][1]]
                                                        if len(STEPS_OF[a]) == 2 else 1.0) for a in legal],
                          dtype=np.float64)
        total = priors.sum()
        priors = priors / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        return priors, max(-1.0, min(1.0, value))
