"""Warm start by imitation: the PPO policy first learns to play like a teacher (the heuristic).

Before self-play, ``imitation.games`` games are played by the teacher against
a mix of ``random`` and itself; every teacher move gives one example (the
seat's observation, its legal-action mask, the move, and the game's final
result for that seat). The policy head is fitted to the moves (masked cross
entropy) and the value head to the results, so PPO starts from a sensible
player and critic instead of from uniform play (the "kickstarting" of
Schmitt et al. 2018, in its simplest form). Examples see only what the seat
may know: they are exactly what the agent is given in play.

**Expert iteration** (``imitation.targets: visits``, Anthony et al. 2017; AlphaZero's policy
target): with a search as the teacher (``mcts``, or ``mcts:model=PATH`` guided by the previous
learner), each example also keeps the search's visit counts at the root (its :data:`TOP_K`
most visited moves), and the policy is fitted to that distribution - what the search
thought of every move - instead of only the move it played. Run again with the new model
as the guide, and the learner and its search improve each other.

Both steps can be interrupted and resumed: :func:`collect` saves each finished job's
games to a folder and skips those already there; :func:`pretrain` saves the fit after
every epoch and goes on from the last one.
"""

from __future__ import annotations

import functools
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardwar.arena import play_agents
from cardwar import agents
from cardwar.training.scenario_mix import make_env as make_raw_env


TOP_K = 8
"""Moves of a search's visit distribution kept per example (the rest of its mass is small)."""


@dataclass
class Demonstrations:
    """Teacher moves: observations (float16, or uint8: :func:`store_obs`), packed masks, actions, final results, and the teacher's
    policy target: its ``TOP_K`` likeliest moves and their shares (a search's visit counts; else the move)."""

    obs: np.ndarray
    masks: np.ndarray  # np.packbits of the bool masks, one row per example
    actions: np.ndarray
    results: np.ndarray
    target_idx: np.ndarray  # (N, TOP_K) int32 action ids (padding repeats the move with share 0)
    target_p: np.ndarray  # (N, TOP_K) float32 shares, each row summing to 1
    n_actions: int

    def __len__(self) -> int:
        return len(self.actions)

    def mask_rows(self, idx: np.ndarray) -> np.ndarray:
        return np.unpackbits(self.masks[idx], axis=1, count=self.n_actions).astype(bool)


SKIP_FORCED = frozenset({"skirmish", "tankattack"})
"""Games whose forced steps (one legal action) are not recorded: they teach the policy nothing, and a
skirmish observation is 16 x 24 x 221 values (a sixth of its steps are forced), Tank Attack's 24 x 16 x 148."""
QUANTIZED = frozenset({"skirmish", "tankattack"})
"""Games whose observations (all in [0, 1]) are kept as uint8 steps of 1/255 (half of float16's memory:
a skirmish example is 85 kB so, 100k examples 8.5 GB); :func:`obs_tensor` scales them back."""


def store_obs(observation: np.ndarray, game: str) -> np.ndarray:
    """One observation as kept in :class:`Demonstrations`: float16, or uint8 in 1/255 steps (:data:`QUANTIZED`)."""
    if game in QUANTIZED:
        return np.rint(np.clip(observation, 0.0, 1.0) * 255.0).astype(np.uint8)
    return observation.astype(np.float16)


def obs_tensor(demos: "Demonstrations", idx: np.ndarray, device: Any) -> Any:
    """The float32 observations of examples ``idx`` on ``device``."""
    import torch

    obs = torch.as_tensor(demos.obs[idx], device=device)
    if obs.dtype == torch.uint8:
        return obs.to(torch.float32) / 255.0
    return obs.to(torch.float32)


class LabelledLearner:
    """DAgger's player (Ross et al. 2011): the learner moves, and at each of its positions the teacher is
    asked what it would have played (:attr:`label`, the example's target)."""

    def __init__(self, learner: Any, teacher: Any) -> None:
        self.learner, self.teacher, self.label = learner, teacher, -1

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        self.label = int(self.teacher.act(observation, view))
        return int(self.learner.act(observation, view))

    @property
    def last_visits(self) -> dict[int, int] | None:
        return getattr(self.teacher, "last_visits", None)


def _play(args: tuple, learner: Any = None) -> tuple[np.ndarray, ...]:
    """The games ``[(seed, opponent spec), ...]`` of the teacher (seat ``seed % 2``); their examples as arrays.

    With a ``learner`` (a model), the learner plays that seat instead and the examples are its positions
    labelled with the teacher's moves (:class:`LabelledLearner`, DAgger). With a ``path``, the arrays are
    also written there (atomically), so that a resumed run keeps them.
    """
    game, scenario, rules, teacher_spec, games, path = args
    env = make_raw_env(game, scenario, rules)
    skip_forced = game in SKIP_FORCED
    obs, masks, acts, results, t_idx, t_p = [], [], [], [], [], []
    for seed, opponent_spec in games:
        teacher_seat = seed % 2
        teacher_name = env.possible_agents[teacher_seat]
        teacher = agents.make(teacher_spec, game, seed=seed)
        if learner is not None:
            from cardwar.agents.ppo_agent import PPOAgent

            teacher = LabelledLearner(PPOAgent.from_model(learner), teacher)
        other = agents.make(opponent_spec, game, seed=seed + 1)
        start = len(acts)

        def record(agent: str, o: dict, a: int) -> None:
            if agent == teacher_name and not (skip_forced and int(o["action_mask"].sum()) == 1):
                move = teacher.label if learner is not None else a
                obs.append(store_obs(o["observation"], game))
                masks.append(np.packbits(o["action_mask"].astype(bool)))
                acts.append(move)
                idx, p = policy_target(teacher, move)
                t_idx.append(idx)
                t_p.append(p)

        players = (teacher, other) if teacher_seat == 0 else (other, teacher)
        returns = play_agents(env, *players, seed=seed, on_move=record)
        results += [returns[teacher_seat]] * (len(acts) - start)
    space = env.observation_space(env.possible_agents[0])["observation"]
    arrays = (np.stack(obs) if obs else np.zeros((0, *space.shape), np.uint8 if game in QUANTIZED else np.float16),
              np.stack(masks) if masks else np.zeros((0, (env.NUM_ACTIONS + 7) // 8), np.uint8),
              np.array(acts, dtype=np.int64), np.array(results, dtype=np.float32),
              np.array(t_idx, dtype=np.int32).reshape(-1, TOP_K), np.array(t_p, dtype=np.float32).reshape(-1, TOP_K))
    if path is not None:
        tmp = Path(f"{path}.partial")
        with tmp.open("wb") as f:
            np.savez_compressed(f, obs=arrays[0], masks=arrays[1], actions=arrays[2], results=arrays[3],
                                target_idx=arrays[4], target_p=arrays[5])
        tmp.replace(path)
    return arrays


def join(parts: list[Demonstrations]) -> Demonstrations:
    """One set of examples of several (DAgger adds the learner's labelled games to the teacher's)."""
    fields = ("obs", "masks", "actions", "results", "target_idx", "target_p")
    return Demonstrations(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields),
                          n_actions=parts[0].n_actions)


def policy_target(teacher: Any, action: int) -> tuple[list[int], list[float]]:
    """The teacher's policy for the move it just chose: a search's root visit shares (its ``TOP_K``
    most visited moves, renormalised), or the move itself for a teacher that does not search."""
    visits = getattr(teacher, "last_visits", None)
    if visits:
        top = sorted(visits.items(), key=lambda kv: (-kv[1], kv[0] != action))[:TOP_K]  # the move first among ties
        total = float(sum(n for _, n in top))
        if total > 0:
            idx = [a for a, _ in top] + [action] * (TOP_K - len(top))
            return idx, [n / total for _, n in top] + [0.0] * (TOP_K - len(top))
    return [action] * TOP_K, [1.0] + [0.0] * (TOP_K - 1)


def game_jobs(games: int, seed: int, opponents: tuple[str, ...]) -> list[list[tuple[int, str]]]:
    """The games split into jobs: ``[(seed, opponent spec), ...]`` each, the same however many workers play them.

    Game ``g`` has seed ``seed + g`` (the teacher takes seat ``(seed + g) % 2``) and meets
    ``opponents[(g // 2) % len(opponents)]``, so each opponent is met from both seats.
    """
    size = max(1, min(10, games // 8))
    all_games = [(seed + g, opponents[(g // 2) % len(opponents)]) for g in range(games)]
    return [all_games[k:k + size] for k in range(0, games, size)]


def _chunk_path(folder: Path, first: int, count: int) -> Path:
    return folder / f"games_{first:06d}-{first + count - 1:06d}.npz"


def _load_chunk(path: Path) -> tuple[np.ndarray, ...] | None:
    """The arrays of a chunk written by :func:`_play`, or None if it is missing or unreadable."""
    if not path.is_file():
        return None
    try:
        with np.load(path) as data:
            return (data["obs"], data["masks"], data["actions"], data["results"], data["target_idx"],
                    data["target_p"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def games_kept(folder: Path) -> int:
    """Teacher games whose examples are saved in ``folder``."""
    count = 0
    for path in folder.glob("games_*.npz"):
        first, _, last = path.stem.removeprefix("games_").partition("-")
        count += int(last) - int(first) + 1
    return count


def collect(game: str, games: int, teacher: str = "heuristic", opponents: tuple[str, ...] = ("random", "heuristic"),
            scenario: str | None = None, rules: dict | None = None, seed: int = 0, workers: int = 2,
            progress: bool = True, folder: Path | None = None, learner: Any = None) -> Demonstrations:
    """Play ``games`` teacher games over ``workers`` processes and gather the examples.

    With a ``learner`` (a model), the learner plays and the teacher labels its positions (DAgger).
    With a ``folder``, each finished job's examples are saved there and jobs already saved are
    not played again (an interrupted collection goes on where it stopped).
    """
    from tqdm import tqdm

    from cardwar.training.workers import WorkerPool

    jobs = game_jobs(games, seed, tuple(opponents))
    paths = [None] * len(jobs)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for partial in folder.glob("games_*.partial"):  # a chunk a killed worker was writing
            partial.unlink(missing_ok=True)
        paths = [_chunk_path(folder, k * len(jobs[0]), len(job)) for k, job in enumerate(jobs)]
    parts: dict[int, tuple[np.ndarray, ...]] = {}
    for k, path in enumerate(paths):
        if path is not None and (chunk := _load_chunk(path)) is not None:
            parts[k] = chunk
    todo = [k for k in range(len(jobs)) if k not in parts]
    bar = tqdm(total=games, initial=games - sum(len(jobs[k]) for k in todo), unit="game",
               desc=f"imitation: {teacher} games" + (" (DAgger: the learner plays)" if learner is not None else ""), disable=not progress, mininterval=1.0)
    try:
        if todo:
            play = functools.partial(_play, learner=learner) if learner is not None else _play
            with WorkerPool(play, min(workers, len(todo)), "imitation") as pool:
                args = [(game, scenario, rules, teacher, jobs[k], paths[k]) for k in todo]
                for i, arrays in pool.imap_unordered(args):
                    parts[todo[i]] = arrays
                    bar.update(len(jobs[todo[i]]))
    finally:
        bar.close()
    ordered = [parts[k] for k in range(len(jobs))]  # job order: the same examples however they were played
    n_actions = make_raw_env(game, scenario, rules).NUM_ACTIONS
    return Demonstrations(*(np.concatenate([p[i] for p in ordered]) for i in range(6)), n_actions=n_actions)


def pretrain(policy: Any, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
             seed: int = 0, progress: bool = True, state_path: Path | None = None,
             targets: str = "moves", value_coef: float = 0.5,
             on_epoch: Callable[[int, dict[str, float]], None] | None = None) -> dict[str, float]:
    """Fit the policy to the teacher's moves (``targets="visits"``: to its search's visit shares) and the
    value to the results (weighted ``value_coef``); returns the final fit.

    With a ``state_path``, the policy, optimizer and shuffling state are saved there after each
    epoch, and a fit saved there before goes on from its last finished epoch. ``on_epoch(epoch, stats)``
    is called after each epoch (1-based), with the policy in evaluation mode.
    """
    import torch
    from tqdm import tqdm

    on_device = functools.partial(torch.as_tensor, device=policy.device)  # the batches go where the policy is
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    shuffled = rng.permutation(len(demos))
    held_out, train = shuffled[:len(demos) // 10], shuffled[len(demos) // 10:]  # 10% to measure generalisation
    n = len(train)
    stats: dict[str, float] = {}
    first = 0
    if state_path is not None and (saved := _load_fit(state_path, len(demos))) is not None:
        policy.load_state_dict(saved["policy"])
        optimizer.load_state_dict(saved["optimizer"])
        rng.bit_generator.state = json.loads(saved["rng"])
        first, stats = int(saved["epoch"]), json.loads(saved["stats"])
    bar = tqdm(range(first, epochs), initial=first, total=epochs, desc="imitation: fitting", unit="epoch",
               disable=not progress)
    policy.set_training_mode(True)
    for epoch in bar:
        order = train[rng.permutation(n)]
        hits = total_nll = total_vl = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            obs = obs_tensor(demos, idx, policy.device)
            acts = on_device(demos.actions[idx])
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
            dist = policy._get_action_dist_from_latent(latent_pi)
            dist.apply_masking(demos.mask_rows(idx))
            values = policy.value_net(latent_vf)
            target = on_device(demos.results[idx])
            if targets == "visits":  # cross entropy with the search's visit shares (expert iteration)
                logp = torch.log_softmax(dist.distribution.logits, dim=1)
                picked = logp.gather(1, on_device(demos.target_idx[idx], dtype=torch.int64))
                share = on_device(demos.target_p[idx])
                nll = -torch.where(share > 0, share * picked, torch.zeros_like(picked)).sum(dim=1).mean()
            else:
                nll = -dist.log_prob(acts).mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), target)
            loss = nll + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            hits += (dist.distribution.probs.argmax(dim=1) == acts).sum().item()
            total_nll += nll.item() * len(idx)
            total_vl += value_loss.item() * len(idx)
        stats = {"examples": len(demos), "accuracy": hits / max(n, 1), "nll": total_nll / max(n, 1),
                 "value_mse": total_vl / max(n, 1), "held_out_accuracy": _accuracy(policy, demos, held_out)}
        bar.set_postfix(accuracy=f"{stats['accuracy']:.3f}", held_out=f"{stats['held_out_accuracy']:.3f}")
        if state_path is not None:
            _save_fit(state_path, {"epoch": epoch + 1, "examples": len(demos), "policy": policy.state_dict(),
                                   "optimizer": optimizer.state_dict(), "rng": json.dumps(rng.bit_generator.state),
                                   "stats": json.dumps(stats)})
        if on_epoch is not None:
            policy.set_training_mode(False)
            on_epoch(epoch + 1, stats)
            policy.set_training_mode(True)
    policy.set_training_mode(False)
    return stats


def _save_fit(path: Path, state: dict) -> None:
    import torch

    tmp = Path(f"{path}.partial")
    torch.save(state, tmp)
    tmp.replace(path)


def _load_fit(path: Path, examples: int) -> dict | None:
    """A fit saved by :func:`pretrain` for these examples, or None."""
    import torch

    if not path.is_file():
        return None
    try:
        saved = torch.load(path, weights_only=True)
    except Exception:  # noqa: BLE001 - an unreadable file: the fit starts again
        return None
    return saved if saved.get("examples") == examples else None


def _accuracy(policy: Any, demos: Demonstrations, idx: np.ndarray, batch_size: int = 1024) -> float:
    """Share of ``idx`` examples where the policy's most likely legal move is the teacher's."""
    import torch

    if len(idx) == 0:
        return float("nan")
    on_device = functools.partial(torch.as_tensor, device=policy.device)
    hits = 0
    with torch.no_grad():
        for start in range(0, len(idx), batch_size):
            part = idx[start:start + batch_size]
            obs = obs_tensor(demos, part, policy.device)
            dist = policy.get_distribution(obs, action_masks=demos.mask_rows(part))
            hits += (dist.distribution.probs.argmax(dim=1) == on_device(demos.actions[part])).sum().item()
    return hits / len(idx)


def to_steps(demos: Demonstrations) -> Demonstrations:
    """Naval teacher moves as naval-v1 steps: each move gives one example per step (the observation with
    the steps taken, the legal next steps, the step); the teacher's policy over moves becomes, at each
    step, its shares summed over the moves that step begins (after the steps taken), renormalised."""
    from cardwar.agents.ppo_agent import step_choices
    from cardwar.envs.naval.actions import NUM_ACTIONS as NUM_MOVES
    from cardwar.envs.naval.steps import NUM_STEPS, STEPS_OF
    from cardwar.envs.naval_v1 import OBS_SIZE, PENDING_OFFSET, write_pending

    if demos.n_actions != NUM_MOVES:
        raise ValueError(f"to_steps: these examples are not naval moves ({demos.n_actions} actions)")
    obs, masks, acts, results, t_idx, t_p = [], [], [], [], [], []
    for i in range(len(demos)):
        legal = np.flatnonzero(demos.mask_rows(np.array([i]))[0])
        move_steps = STEPS_OF[int(demos.actions[i])]
        shares = {int(a): float(p) for a, p in zip(demos.target_idx[i], demos.target_p[i]) if p > 0}
        for n, step in enumerate(move_steps):
            pending = move_steps[:n]
            nexts, _ = step_choices(legal, pending)
            row = np.zeros(OBS_SIZE, dtype=np.float16)
            row[:PENDING_OFFSET] = demos.obs[i]
            write_pending(pending, row)
            mask = np.zeros(NUM_STEPS, dtype=bool)
            mask[nexts] = True
            by_step: dict[int, float] = {}
            for a, p in shares.items():
                if STEPS_OF[a][:n] == pending and len(STEPS_OF[a]) > n:
                    by_step[STEPS_OF[a][n]] = by_step.get(STEPS_OF[a][n], 0.0) + p
            top = sorted(by_step.items(), key=lambda kv: (-kv[1], kv[0] != step))[:TOP_K]
            total = sum(p for _, p in top)
            if total <= 0:
                top, total = [(step, 1.0)], 1.0
            obs.append(row)
            masks.append(np.packbits(mask))
            acts.append(step)
            results.append(demos.results[i])
            t_idx.append([s for s, _ in top] + [step] * (TOP_K - len(top)))
            t_p.append([p / total for _, p in top] + [0.0] * (TOP_K - len(top)))
    return Demonstrations(np.array(obs, dtype=np.float16).reshape(-1, OBS_SIZE),
                          np.array(masks, dtype=np.uint8).reshape(-1, (NUM_STEPS + 7) // 8),
                          np.array(acts, dtype=np.int64), np.array(results, dtype=np.float32),
                          np.array(t_idx, dtype=np.int32).reshape(-1, TOP_K),
                          np.array(t_p, dtype=np.float32).reshape(-1, TOP_K), n_actions=NUM_STEPS)
