"""Self-play training of MaskablePPO agents (``cardwar train``), and the env it trains on.

- :mod:`cardwar.training.selfplay_env`: :class:`SelfPlayEnv`, one seat of a game as a single-agent
  gymnasium env (registered as ``cardwar/NavalSelfPlay-v0``, ``cardwar/NavalStepsSelfPlay-v0``,
  ``cardwar/HexwarSelfPlay-v0`` and ``cardwar/SkirmishSelfPlay-v0`` when this package is imported; its module
  docstring is the page);
- :mod:`cardwar.training.opponents`: the opponent pool (snapshots, heuristic, random);
- :mod:`cardwar.training.config`: checked YAML configs (``configs/training/*.yaml``);
- :mod:`cardwar.training.imitation`: the optional warm start from a teacher's moves (or a search's visit counts),
  with DAgger rounds; :mod:`cardwar.training.imitation_check`: the imitation measured alone;
- :mod:`cardwar.training.trainer`, :mod:`cardwar.training.callbacks`: runs, phases, checkpoints, resume;
- :mod:`cardwar.training.vec_env`, :mod:`cardwar.training.workers`, :mod:`cardwar.training.interrupts`:
  worker processes that die with the trainer and fail in one line; Ctrl-C and kill save first;
- :mod:`cardwar.training.batched_vec_env`: every game in the learner's process (or a few workers), the
  snapshot opponents' moves of all of them in one forward pass;
- :mod:`cardwar.training.evaluate`: seat-swapped evaluation and the training curve;
- :mod:`cardwar.training.features`: the hex CNN; :mod:`cardwar.training.hex_policy`,
  :mod:`cardwar.training.naval_policy`, :mod:`cardwar.training.skirmish_policy`: policies shaped like each game;
- :mod:`cardwar.training.scenario_mix`: training on several scenarios at once.
"""

from __future__ import annotations

from cardwar.training.opponents import OpponentPool
from cardwar.training.selfplay_env import SelfPlayEnv, register, vector_env

register()

__all__ = ["OpponentPool", "SelfPlayEnv", "register", "vector_env"]
