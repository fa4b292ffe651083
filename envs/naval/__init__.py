"""Hit the Deck! (naval): the pure rules engine (no gymnasium, pettingzoo or torch).

Quick use::

    from cardwar.envs.naval import NavalState, action_to_string
    s = NavalState.new_game(seed=7)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    print(s.returns())

Rules as implemented, and every reading of the seed: ``envs/naval/RULES.md``.
"""

from cardwar.envs.naval.actions import (
    NUM_ACTIONS, Action, ActionKind, AttackStyle, NotationError, action_to_string, decode_action,
    string_to_action,
)
from cardwar.envs.naval.cards import CardError, card_to_str, parse_card
from cardwar.envs.naval.config import ConfigError, NavalConfig
from cardwar.envs.naval.hands import HandCategory, best_hand, compare_hands, hand_category, hand_key, hand_strength
from cardwar.envs.naval.state import IllegalActionError, NavalState, Phase, max_game_steps
from cardwar.envs.naval.view import NavalView
from cardwar.envs.naval.serialize import state_from_json, state_to_json

__all__ = [
    "NUM_ACTIONS", "Action", "ActionKind", "AttackStyle", "CardError", "ConfigError", "HandCategory",
    "IllegalActionError", "NavalConfig", "NavalState", "NavalView", "NotationError", "Phase",
    "action_to_string", "best_hand", "card_to_str", "compare_hands", "decode_action", "hand_category",
    "hand_key", "hand_strength", "max_game_steps", "parse_card", "state_from_json", "state_to_json",
    "string_to_action",
]
