"""The learner's vectorized envs: SB3's SubprocVecEnv, made safe to fail and to interrupt.

:class:`WorkerVecEnv` runs SB3's own worker loop in each process, with three changes:

- each worker's pipe is made just before it is forked and no worker keeps another's pipe ends,
  so the trainer sees at once (end of file) that a worker died, instead of waiting forever;
- a worker that raises sends its error first, and every call that talks to a dead worker
  raises :class:`~cardwar.training.workers.WorkerError` with that one line;
- workers die with the trainer (:func:`~cardwar.training.workers.worker_setup`), and ``close``
  never waits on a worker that is busy or gone.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import gymnasium
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper
from stable_baselines3.common.vec_env.subproc_vec_env import _worker

from cardwar.training.config import TrainConfig
from cardwar.training.opponents import OpponentPool
from cardwar.training.selfplay_env import SelfPlayEnv
from cardwar.training.workers import WorkerError, describe, exit_reason, start, stop_processes, worker_setup


def _env_worker(remote: Connection, parent_remote: Connection, errors: Connection, env_fn: CloudpickleWrapper,
                parent_pid: int, inherited: list[Connection]) -> None:
    for conn in inherited:  # the parent's ends of earlier workers' pipes
        conn.close()
    worker_setup(parent_pid)
    code = 0
    try:
        _worker(remote, parent_remote, env_fn)
    except BaseException as err:  # noqa: BLE001 - reported to the trainer in one line, then exit
        code = 1
        try:
            errors.send(describe(err))
        except OSError:
            pass
    os._exit(code)


class _Remote:
    """The trainer's end of one worker's pipe: a dead worker is a :class:`WorkerError`, not EOF or a hang."""

    def __init__(self, venv: WorkerVecEnv, index: int, conn: Connection) -> None:
        self.venv, self.index, self.conn = venv, index, conn

    def send(self, obj: Any) -> None:
        try:
            self.conn.send(obj)
        except OSError:
            raise WorkerError(self.venv.failure(self.index)) from None

    def recv(self) -> Any:
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerError(self.venv.failure(self.index)) from None

    def close(self) -> None:
        self.conn.close()


class WorkerVecEnv(SubprocVecEnv):
    """SB3's SubprocVecEnv (fork start), whose workers fail loudly, die with the trainer and never hang it."""

    def __init__(self, env_fns: list[Callable[[], gymnasium.Env]]) -> None:  # noqa: D107 - not super's
        def args(k: int, theirs: Connection, ours: Connection, err_write: Connection, parent: int,
                 inherited: list[Connection]) -> tuple:
            return theirs, ours, err_write, CloudpickleWrapper(env_fns[k]), parent, inherited

        self._start_workers(_env_worker, args, len(env_fns), len(env_fns), "env")

    def _start_workers(self, target: Callable[..., None], args: Callable[..., tuple], workers: int, num_envs: int,
                       name: str) -> None:
        """Fork ``workers`` processes running ``target(*args(k, theirs, ours, err_write, parent, inherited))``,
        each with its pipe and error pipe, then read the spaces from the first; any failure ends them all."""
        self.waiting = False
        self.closed = False
        ctx = mp.get_context("fork")
        self.remotes: list[_Remote] = []  # type: ignore[assignment]
        self.processes = []
        self._errors: list[Connection] = []
        parent = os.getpid()
        try:
            for k in range(workers):
                ours, theirs = ctx.Pipe()
                err_read, err_write = ctx.Pipe(duplex=False)
                inherited = [r.conn for r in self.remotes] + self._errors + [err_read]
                self.processes.append(start(target, args(k, theirs, ours, err_write, parent, inherited), f"{name}-{k}"))
                theirs.close()
                err_write.close()
                self.remotes.append(_Remote(self, k, ours))
                self._errors.append(err_read)
            self.remotes[0].send(("get_spaces", None))
            observation_space, action_space = self.remotes[0].recv()
            VecEnv.__init__(self, num_envs, observation_space, action_space)
        except BaseException:
            self.waiting = True  # do not ask the workers anything: just end them
            self.close()
            raise

    def failure(self, index: int) -> str:
        """Why worker ``index`` stopped: its own error line, or how it ended."""
        message = None
        errors = self._errors[index]
        try:
            if errors.poll(2.0):
                message = errors.recv()
        except (EOFError, OSError):
            pass
        process = self.processes[index]
        process.join(2.0)
        return f"env worker {index} failed: {message}" if message else f"env worker {index} {exit_reason(process)}"

    def close(self) -> None:
        if self.closed:
            return
        if not self.waiting:  # idle workers stop on "close"; busy ones (an interrupted step) are ended
            for remote in self.remotes:
                try:
                    remote.conn.send(("close", None))
                except OSError:
                    pass
        stop_processes(self.processes, grace=0.0 if self.waiting else 5.0)
        for conn in [r.conn for r in self.remotes] + self._errors:
            conn.close()
        self.closed = True


def _blank(cls: type) -> Any:
    return cls.__new__(cls)


def _set_dict(obj: Any, state: dict) -> None:
    obj.__dict__.update(state)


def _delegates(cls: type) -> bool:
    """A class with ``__getattr__`` and no ``__setstate__`` of its own (naval-v1's ``StepState``): plain
    unpickling asks the blank object for ``__setstate__``, which recurses through ``__getattr__``."""
    return any("__getattr__" in vars(k) for k in cls.__mro__[:-1]) and not any(
        "__setstate__" in vars(k) for k in cls.__mro__[:-1])


def _reloaded(cls: type, path: str) -> Any:
    from cardwar.agents.ppo_agent import _read

    agent = cls.__new__(cls)
    agent.model = _read(path)
    return agent


def dumps_state(obj: Any) -> bytes:
    """``obj`` pickled as it is now. PettingZoo's envs pickle as their constructor's arguments
    (gymnasium's ``EzPickle``), which would start a new game: here they pickle their attributes.
    A PPO agent playing a model file (a snapshot in the pool) keeps its generator and the file's
    path; its network is read from the file again (it is never changed once written)."""
    import io
    from pathlib import Path

    import cloudpickle
    from gymnasium.utils.ezpickle import EzPickle

    from cardwar.agents.ppo_agent import PPOAgent

    class StatePickler(cloudpickle.CloudPickler):
        def reducer_override(self, o: Any) -> Any:
            if isinstance(o, type):
                return super().reducer_override(o)
            if isinstance(o, EzPickle) or (_delegates(type(o)) and hasattr(o, "__dict__")):
                return _blank, (type(o),), dict(o.__dict__), None, None, _set_dict
            if isinstance(o, PPOAgent) and Path(o.path).is_file():
                state = {k: v for k, v in o.__dict__.items() if k != "model"}
                return _reloaded, (type(o), o.path), state, None, None, _set_dict
            return super().reducer_override(o)

    buf = io.BytesIO()
    StatePickler(buf).dump(obj)
    return buf.getvalue()


class ResumableEnv(gymnasium.Wrapper):
    """The outermost wrapper of each training env: its whole state (the game under way, the env's and the
    opponents' generators, the loaded snapshots, the Monitor's counts) can be taken and put back, through
    ``env_method("get_state")`` and ``env_method("set_state", blob, indices=[i])``, so that a run resumed
    from a checkpoint goes on exactly where it was."""

    def get_state(self) -> bytes:
        """The wrapped env, pickled."""
        return dumps_state(self.env)

    def set_state(self, blob: bytes) -> None:
        """Replace the wrapped env by one :meth:`get_state` took."""
        import pickle

        self.env = pickle.loads(blob)


def _env_factory(game: str, scenario: str | None, rules: dict, mix: dict[str, float], heuristic: str,
                 actions: str = "moves") -> Any:
    """Build one env (a module-level function, so it pickles)."""
    from stable_baselines3.common.monitor import Monitor

    return ResumableEnv(Monitor(SelfPlayEnv(game, scenario=scenario, rules=rules, actions=actions,
                                            pool=OpponentPool(game, mix=mix, heuristic=heuristic))))


def make_vec_env(config: TrainConfig, in_process: bool = False) -> VecEnv:
    """``env.n_envs`` self-play envs: in worker processes (``vec_env: subproc``), or in this one (``dummy``, or
    ``in_process``), or with the snapshot opponents batched (``batched``: in this process,
    :class:`~cardwar.training.batched_vec_env.BatchedVecEnv`, or split over ``env.workers`` processes)."""
    c = config
    fns = [functools.partial(_env_factory, c.game, c.env.scenario, c.env.rules, c.mix_at(0), c.opponents.heuristic,
                             c.env.actions) for _ in range(c.env.n_envs)]
    if c.env.vec_env == "batched" and not in_process:
        from cardwar.training.batched_vec_env import BatchedVecEnv, BatchedWorkersVecEnv

        return BatchedWorkersVecEnv(fns, c.env.workers) if c.env.workers > 0 else BatchedVecEnv(fns)
    if in_process or c.env.vec_env != "subproc" or c.env.n_envs == 1:
        return DummyVecEnv(fns)
    return WorkerVecEnv(fns)


def close_vec_env(venv: Any) -> None:
    """Close the envs, whatever state an interrupt or a failure left them in."""
    if venv is None:
        return
    try:
        venv.close()
    except (WorkerError, EOFError, OSError):  # a worker already gone
        pass
