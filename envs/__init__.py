"""cardwar environments: rules engines (``cardwar.envs.naval``) and PettingZoo AEC envs (``cardwar.envs.naval_v0``).

Importing this package registers ``cardwar/naval-v0``, ``cardwar/naval-v1`` (factored actions),
``cardwar/hexwar-v0``, ``cardwar/hexwar-v1`` (channels-last observation), ``cardwar/skirmish-v0`` and
``cardwar/tankattack-v0`` (the WW1 trench game) with PettingZoo, so that
``pettingzoo.make("aec", "cardwar/naval-v0")`` works. Each env's module docstring is its page
(``help(cardwar.envs.naval_v0)``), its tables built from the encoders. The engines themselves
import neither gymnasium nor pettingzoo; registration is skipped when pettingzoo is not installed.
"""

try:
    from pettingzoo import register as _register
except ImportError:  # engine-only installs
    _register = None

if _register is not None:
    from pettingzoo import aec_registry as _aec_registry

    for _id, _entry in (("cardwar/naval-v0", "cardwar.envs.naval_v0:env"),
                        ("cardwar/naval-v1", "cardwar.envs.naval_v1:env"),
                        ("cardwar/hexwar-v0", "cardwar.envs.hexwar_v0:env"),
                        ("cardwar/hexwar-v1", "cardwar.envs.hexwar_v1:env"),
                        ("cardwar/skirmish-v0", "cardwar.envs.skirmish_v0:env"),
                        ("cardwar/tankattack-v0", "cardwar.envs.tankattack_v0:env")):
        if _id not in _aec_registry:
            _register("aec", _id, entry_point=_entry)
    from pettingzoo import parallel_registry as _parallel_registry

    if "cardwar/skirmish-v0" not in _parallel_registry:  # one agent per figure
        _register("parallel", "cardwar/skirmish-v0", entry_point="cardwar.envs.skirmish_v0:parallel_env")


ACTION_SPACES = ("moves", "steps")
"""The action spaces the shipped envs come in: ``moves`` (one action a move, every game) and ``steps`` (a move made
in steps: naval-v1). A game's own are its registry entry's (``Game.action_spaces()``: ``moves`` and those its
``extra["action_spaces"]`` names)."""


def make_raw_env(game: str, scenario: str | None = None, rules: dict | None = None, actions: str = "moves"):
    """The raw AEC env of ``game``, any game of the registry (:mod:`cardwar.games`), through its entry:
    ``scenario`` for a game that has scenarios (ignored by one without), ``actions`` one of the entry's action spaces
    (``Game.action_spaces()``: ``"steps"`` gives naval-v1 instead of naval-v0). An unknown game is
    ``UnknownGame`` (a ValueError naming the games)."""
    from cardwar import games

    entry = games.get(game)  # an action space it does not list: a ValueError naming those it has
    return entry.make_env(scenario if entry.has_scenarios else None, rules, actions)
