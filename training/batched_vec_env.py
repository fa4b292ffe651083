"""``env.vec_env: batched``: the self-play games in the learner's process, their snapshot opponents batched.

With ``subproc`` each worker process plays one game, and a snapshot opponent (a frozen copy of the
learner, :class:`~cardwar.agents.ppo_agent.PPOAgent`) decides one observation at a time: one network
forward pass per opponent move (naval-v1's snapshots: one a step of the move), plus a pipe round trip
and the pickling of every observation per env step.

:class:`BatchedVecEnv` holds the ``n_envs`` games itself (an SB3 ``VecEnv``, a ``DummyVecEnv`` whose
``step_wait`` and ``reset`` are played out together). Each game runs :class:`SelfPlayEnv`'s own code,
as generators (:meth:`~cardwar.training.selfplay_env.SelfPlayEnv.step_moves`,
:meth:`~cardwar.training.selfplay_env.SelfPlayEnv.reset_moves`) that yield each opponent decision:

- a heuristic or random opponent answers at once, game by game;
- the games whose opponent is a snapshot wait, grouped by the snapshot file each drew; each group is
  answered by one forward pass (:func:`~cardwar.training.opponents.batched_ppo_actions`), and the
  games go on until every one is at the learner's turn (or over, and reset the same way).

So the learner sees exactly what :class:`SelfPlayEnv` gives it (its own seat's observation, every reward
it earns, a loss on the opponent's move included; a seat and an opponent drawn per episode;
``action_masks()``), and each game is the same game as in the per-env path for the same seeds: the games
share no random generator, and a batched forward pass picks what the one-at-a-time pass picks (the
same probabilities up to float rounding; each game's sampling draws from its own agent's generator).
The envs are the same ``ResumableEnv(Monitor(SelfPlayEnv))`` as in the other vec envs, so
``env_method("get_state")`` / ``set_state`` and exact resume work unchanged.

``env.workers: W`` (W > 0) splits the games over W worker processes (:class:`BatchedWorkersVecEnv`),
each a :class:`BatchedVecEnv` of its share: opponents that cannot be batched (the heuristic) then use
the cores in parallel, and a vector step is W pipe round trips, not ``n_envs``. The workers fail,
die and are ended as :class:`~cardwar.training.vec_env.WorkerVecEnv`'s do (it is their base class).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from multiprocessing.connection import Connection
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from cardwar.training.opponents import batch_key, batched_ppo_actions
from cardwar.training.selfplay_env import Request, SelfPlayEnv
from cardwar.training.vec_env import WorkerVecEnv
from cardwar.training.workers import describe, worker_setup


def play_out_together(games: list[tuple[SelfPlayEnv, Generator[Request, int, Any]]]) -> list[Any]:
    """Run every game's ``reset_moves`` / ``step_moves`` generator to its end; the return values, in order.

    Opponents without a batch key (heuristic, random, any agent) answer as they are asked; the pending
    decisions of snapshot opponents are answered a group (one snapshot file) at a time, one forward pass each."""
    results: list[Any] = [None] * len(games)
    waiting: dict[int, Request] = {}

    def advance(i: int, action: int | None) -> None:
        env, moves = games[i]
        try:
            request = next(moves) if action is None else moves.send(action)
            while batch_key(env.opponent) is None:
                request = moves.send(env.opponent_act(request))
            waiting[i] = request
        except StopIteration as done:
            results[i] = done.value

    for i in range(len(games)):
        advance(i, None)
    while waiting:
        groups: dict[Any, list[int]] = {}
        for i in waiting:
            groups.setdefault(batch_key(games[i][0].opponent), []).append(i)
        for rows in groups.values():
            requests = [waiting.pop(i) for i in rows]
            actions = batched_ppo_actions([games[i][0].opponent for i in rows], requests)
            for i, action in zip(rows, actions):
                advance(i, int(action))
    return results


class BatchedVecEnv(DummyVecEnv):
    """``n_envs`` self-play games in this process; snapshot opponents decide in one forward pass per snapshot.

    ``env_fns`` build the envs as for the other vec envs (gymnasium wrappers around a :class:`SelfPlayEnv`)."""

    def __init__(self, env_fns: list[Callable[[], gymnasium.Env]]) -> None:  # noqa: D107
        super().__init__(env_fns)
        for env in self.envs:
            if not isinstance(env.unwrapped, SelfPlayEnv):
                raise TypeError(f"BatchedVecEnv plays SelfPlayEnv games, not {type(env.unwrapped).__name__}")

    def _games(self) -> list[SelfPlayEnv]:
        # Looked up each time: ResumableEnv.set_state replaces the wrapped env.
        return [env.unwrapped for env in self.envs]  # type: ignore[misc]

    def step_wait(self) -> VecEnvStepReturn:
        """Every game's learner move and the opponents' replies (batched), then DummyVecEnv's bookkeeping."""
        games = self._games()
        results = play_out_together([(g, g.step_moves(int(a))) for g, a in zip(games, self.actions)])
        finished_obs: dict[int, Any] = {}
        for k, (game, result) in enumerate(zip(games, results)):
            game.hand_over("step", result)  # the wrappers (Monitor) see an ordinary step
            obs, self.buf_rews[k], terminated, truncated, self.buf_infos[k] = self.envs[k].step(self.actions[k])
            self.buf_dones[k] = terminated or truncated
            self.buf_infos[k]["TimeLimit.truncated"] = truncated and not terminated
            if self.buf_dones[k]:
                self.buf_infos[k]["terminal_observation"] = obs
                finished_obs[k] = obs
            else:
                self._save_obs(k, obs)
        if finished_obs:  # the finished games start again, their opening opponent moves batched too
            done = list(finished_obs)
            new = play_out_together([(games[k], games[k].reset_moves()) for k in done])
            for k, result in zip(done, new):
                games[k].hand_over("reset", result)
                obs, self.reset_infos[k] = self.envs[k].reset()
                self._save_obs(k, obs)
        from copy import deepcopy

        return self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones), deepcopy(self.buf_infos)

    def reset(self) -> VecEnvObs:
        """Every game reset (with the seeds and options given to ``seed`` / ``set_options``), batched."""
        games = self._games()
        kwargs = [{"seed": self._seeds[k], **({"options": self._options[k]} if self._options[k] else {})}
                  for k in range(self.num_envs)]
        results = play_out_together([(g, g.reset_moves(**kw)) for g, kw in zip(games, kwargs)])
        for k, (game, result) in enumerate(zip(games, results)):
            game.hand_over("reset", result)
            obs, self.reset_infos[k] = self.envs[k].reset(**kwargs[k])
            self._save_obs(k, obs)
        self._reset_seeds()
        self._reset_options()
        return self._obs_from_buf()


def _batch_worker(conn: Connection, errors: Connection, env_fns: CloudpickleWrapper, parent_pid: int,
                  inherited: list[Connection]) -> None:
    """A worker process: a :class:`BatchedVecEnv` of its share of the games, driven by the trainer's commands."""
    for other in inherited:  # the parent's ends of earlier workers' pipes
        other.close()
    worker_setup(parent_pid)
    code = 0
    try:
        venv = BatchedVecEnv(env_fns.var)
        while True:
            try:
                command, data = conn.recv()
            except EOFError:
                break
            if command == "step":
                venv.step_async(data)
                conn.send(venv.step_wait())
            elif command == "reset":
                venv._seeds, venv._options = data
                conn.send((venv.reset(), venv.reset_infos))
            elif command == "env_method":
                name, args, kwargs, indices = data
                conn.send(venv.env_method(name, *args, indices=indices, **kwargs))
            elif command == "get_attr":
                conn.send(venv.get_attr(*data))
            elif command == "set_attr":
                conn.send(venv.set_attr(*data))
            elif command == "is_wrapped":
                conn.send(venv.env_is_wrapped(*data))
            elif command == "has_attr":
                name, indices = data
                conn.send([venv.has_attr(name)] * len(indices))
            elif command == "get_spaces":
                conn.send((venv.observation_space, venv.action_space))
            elif command == "close":
                venv.close()
                break
            else:
                raise NotImplementedError(f"{command!r} is not a command of the batched env workers")
    except BaseException as err:  # noqa: BLE001 - reported to the trainer in one line, then exit
        code = 1
        try:
            errors.send(describe(err))
        except OSError:
            pass
    os._exit(code)


def _split(n: int, parts: int) -> list[range]:
    """``range(n)`` in ``parts`` contiguous runs, sizes differing by one at most."""
    bounds = [n * k // parts for k in range(parts + 1)]
    return [range(bounds[k], bounds[k + 1]) for k in range(parts)]


class BatchedWorkersVecEnv(WorkerVecEnv):
    """The games split over ``workers`` processes, each a :class:`BatchedVecEnv` of its share.

    Indices (``env_method(..., indices=...)``, the stacked observations) are the games' over all workers."""

    def __init__(self, env_fns: list[Callable[[], gymnasium.Env]], workers: int) -> None:  # noqa: D107
        self.shares = _split(len(env_fns), max(1, min(workers, len(env_fns))))

        def args(k: int, theirs: Connection, ours: Connection, err_write: Connection, parent: int,
                 inherited: list[Connection]) -> tuple:
            fns = CloudpickleWrapper([env_fns[i] for i in self.shares[k]])
            return theirs, err_write, fns, parent, inherited + [ours]  # the worker closes the trainer's end

        self._start_workers(_batch_worker, args, len(self.shares), len(env_fns), "batched-env")

    def failure(self, index: int) -> str:  # noqa: D102 - WorkerVecEnv's, named as a batched worker
        return super().failure(index).replace("env worker", "batched env worker", 1)

    def step_async(self, actions: np.ndarray) -> None:  # noqa: D102
        for remote, share in zip(self.remotes, self.shares):
            remote.send(("step", actions[share.start:share.stop]))
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:  # noqa: D102
        results = [remote.recv() for remote in self.remotes]
        self.waiting = False
        obs, rews, dones, infos = zip(*results)
        return (np.concatenate(obs), np.concatenate(rews), np.concatenate(dones),
                [info for part in infos for info in part])

    def reset(self) -> VecEnvObs:  # noqa: D102
        for remote, share in zip(self.remotes, self.shares):
            remote.send(("reset", ([self._seeds[i] for i in share], [self._options[i] for i in share])))
        results = [remote.recv() for remote in self.remotes]
        self.reset_infos = [info for _, part in results for info in part]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([obs for obs, _ in results])

    def _ask(self, command: str, make: Callable[[list[int]], Any], indices: VecEnvIndices) -> list[Any]:
        """``command`` to each worker holding one of ``indices`` (its local indices given to ``make``);
        the answers in the order of ``indices``."""
        wanted = list(self._get_indices(indices))
        asked = []
        for w, share in enumerate(self.shares):
            local = [i - share.start for i in wanted if i in share]
            if local:
                self.remotes[w].send((command, make(local)))
                asked.append((w, local))
        answers: dict[int, Any] = {}
        for w, local in asked:
            for i, value in zip(local, self.remotes[w].recv()):
                answers[self.shares[w].start + i] = value
        return [answers[i] for i in wanted]

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:  # noqa: D102
        return self._ask("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:  # noqa: D102
        return self._ask("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:  # noqa: D102
        self._ask("set_attr", lambda local: (attr_name, value, local), indices)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:  # noqa: D102
        return self._ask("is_wrapped", lambda local: (wrapper_class, local), indices)

    def has_attr(self, attr_name: str) -> bool:  # noqa: D102
        return all(self._ask("has_attr", lambda local: (attr_name, local), None))

    def get_images(self) -> list[Any]:  # noqa: D102
        raise NotImplementedError("the batched env workers do not render")

    def _get_target_remotes(self, indices: VecEnvIndices) -> list[Any]:
        raise NotImplementedError("BatchedWorkersVecEnv routes every call by game index (_ask)")
