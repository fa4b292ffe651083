"""Self-play training of MaskablePPO agents (``cardwar train``).

- :mod:`cardwar.training.selfplay_env`: the single-agent gymnasium view of an AEC env;
- :mod:`cardwar.training.opponents`: the opponent pool (snapshots, heuristic, random);
- :mod:`cardwar.training.config`: checked YAML configs (``configs/training/*.yaml``);
- :mod:`cardwar.training.imitation`: the optional warm start from the heuristic's moves;
- :mod:`cardwar.training.trainer`, :mod:`cardwar.training.callbacks`: runs, checkpoints, resume;
- :mod:`cardwar.training.evaluate`: seat-swapped evaluation and the training curve;
- :mod:`cardwar.training.features`: the hex CNN.

Tournaments follow.
"""
