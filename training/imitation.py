"""Warm start by imitation: the PPO policy first learns to play like a teacher (the heuristic).

Before self-play, ``imitation.games`` games are played by the teacher against
a mix of ``random`` and itself; every teacher move gives one example (the
seat's observation, its legal-action mask, the move, and the game's final
result for that seat). The policy head is fitted to the moves (masked cross
entropy) and the value head to the results, so PPO starts from a sensible
player and critic instead of from uniform play (the "kickstarting" of
Schmitt et al. 2018, in its simplest form). Examples see only what the seat
may know: they are exactly what the agent is given in play.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardwar import agents
from cardwar.match import play_agents
from cardwar.envs import make_raw_env


@dataclass
class Demonstrations:
    """Teacher moves: observations (float16), packed masks, actions and final results."""

    obs: np.ndarray
    masks: np.ndarray  # np.packbits of the bool masks, one row per example
    actions: np.ndarray
    results: np.ndarray
    n_actions: int

    def __len__(self) -> int:
        return len(self.actions)

    def mask_rows(self, idx: np.ndarray) -> np.ndarray:
        return np.unpackbits(self.masks[idx], axis=1, count=self.n_actions).astype(bool)


def _play(args: tuple) -> tuple[list, list, list, list]:
    """Games ``seeds`` of the teacher against ``opponent`` (seats alternating); its examples."""
    game, scenario, rules, teacher_spec, opponent_spec, seeds = args
    env = make_raw_env(game, scenario, rules)
    obs, masks, acts, results = [], [], [], []
    for seed in seeds:
        teacher_seat = seed % 2
        teacher_name = env.possible_agents[teacher_seat]
        teacher = agents.make(teacher_spec, game, seed=seed)
        other = agents.make(opponent_spec, game, seed=seed + 1)
        start = len(acts)

        def record(agent: str, o: dict, a: int) -> None:
            if agent == teacher_name:
                obs.append(o["observation"].astype(np.float16))
                masks.append(np.packbits(o["action_mask"].astype(bool)))
                acts.append(a)

        players = (teacher, other) if teacher_seat == 0 else (other, teacher)
        returns = play_agents(env, *players, seed=seed, on_move=record)
        results += [returns[teacher_seat]] * (len(acts) - start)
    return obs, masks, acts, results


def collect(game: str, games: int, teacher: str = "heuristic", opponents: tuple[str, ...] = ("random", "heuristic"),
            scenario: str | None = None, rules: dict | None = None, seed: int = 0, workers: int = 2,
            progress: bool = True) -> Demonstrations:
    """Play ``games`` teacher games over ``workers`` processes and gather the examples."""
    from tqdm import tqdm

    chunk = 10
    jobs = [(game, scenario, rules, teacher, opponents[k % len(opponents)],
             list(range(seed + k * chunk, seed + min((k + 1) * chunk, games))))
            for k in range((games + chunk - 1) // chunk)]
    obs, masks, acts, results = [], [], [], []
    bar = tqdm(total=games, unit="game", desc=f"imitation: {teacher} games", disable=not progress, mininterval=1.0)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for o, m, a, r in pool.map(_play, jobs):
            obs += o
            masks += m
            acts += a
            results += r
            bar.update(chunk)
    bar.close()
    n_actions = make_raw_env(game, scenario, rules).NUM_ACTIONS
    return Demonstrations(np.stack(obs), np.stack(masks), np.array(acts, dtype=np.int64),
                          np.array(results, dtype=np.float32), n_actions)


def pretrain(policy: Any, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
             seed: int = 0, progress: bool = True) -> dict[str, float]:
    """Fit the policy to the teacher's moves and the value to the results; returns the final fit."""
    import torch
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    shuffled = rng.permutation(len(demos))
    held_out, train = shuffled[:len(demos) // 10], shuffled[len(demos) // 10:]  # 10% to measure generalisation
    n = len(train)
    stats: dict[str, float] = {}
    bar = tqdm(range(epochs), desc="imitation: fitting", unit="epoch", disable=not progress)
    policy.set_training_mode(True)
    for _ in bar:
        order = train[rng.permutation(n)]
        hits = total_nll = total_vl = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(demos.obs[idx], dtype=torch.float32)
            acts = torch.as_tensor(demos.actions[idx])
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
            dist = policy._get_action_dist_from_latent(latent_pi)
            dist.apply_masking(demos.mask_rows(idx))
            values = policy.value_net(latent_vf)
            target = torch.as_tensor(demos.results[idx])
            nll = -dist.log_prob(acts).mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), target)
            loss = nll + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            hits += (dist.distribution.probs.argmax(dim=1) == acts).sum().item()
            total_nll += nll.item() * len(idx)
            total_vl += value_loss.item() * len(idx)
        stats = {"examples": len(demos), "accuracy": hits / n, "nll": total_nll / n, "value_mse": total_vl / n,
                 "held_out_accuracy": _accuracy(policy, demos, held_out)}
        bar.set_postfix(accuracy=f"{stats['accuracy']:.3f}", held_out=f"{stats['held_out_accuracy']:.3f}")
    policy.set_training_mode(False)
    return stats


def _accuracy(policy: Any, demos: Demonstrations, idx: np.ndarray, batch_size: int = 1024) -> float:
    """Share of ``idx`` examples where the policy's most likely legal move is the teacher's."""
    import torch

    if len(idx) == 0:
        return float("nan")
    hits = 0
    with torch.no_grad():
        for start in range(0, len(idx), batch_size):
            part = idx[start:start + batch_size]
            obs = torch.as_tensor(demos.obs[part], dtype=torch.float32)
            dist = policy.get_distribution(obs, action_masks=demos.mask_rows(part))
            hits += (dist.distribution.probs.argmax(dim=1) == torch.as_tensor(demos.actions[part])).sum().item()
    return hits / len(idx)
