"""The action encoding and its notation."""

from __future__ import annotations

import pytest

from cardwar.envs.naval import NUM_ACTIONS, ActionKind, AttackStyle, NotationError, action_to_string, decode_action
from cardwar.envs.naval import string_to_action
from cardwar.envs.naval.actions import ATTACK_BASE, DEFEND_BASE, KEEP, MULLIGAN, NODEFEND, PASS, SINK_BASE, attack_id
from cardwar.envs.naval.seemap import EDGES


def test_every_action_id_round_trips_through_its_notation():
    for a in range(NUM_ACTIONS):
        assert string_to_action(action_to_string(a)) == a


def test_notation_examples_from_the_issue():
    assert decode_action(string_to_action("deploy 7H D")) == decode_action(0)._replace(
        kind=ActionKind.DEPLOY, card=6 + 2 * 13, zone=3)
    a = decode_action(string_to_action("attack E>F broadside 4D"))
    assert (a.kind, a.src, a.dst, a.style, a.card) == (ActionKind.ATTACK, 4, 5, AttackStyle.BROADSIDE, 3 + 13)
    assert string_to_action("defend 9S") == DEFEND_BASE + 8 + 3 * 13
    assert string_to_action("nodefend") == NODEFEND == string_to_action("no defend")
    assert string_to_action("pass") == PASS
    assert (string_to_action("keep"), string_to_action("mulligan")) == (KEEP, MULLIGAN)
    assert string_to_action("sink E") == SINK_BASE + 4


def test_notation_is_forgiving_about_case_and_ten():
    assert string_to_action("Deploy th d") == string_to_action("deploy 10H D")
    assert string_to_action("attack e-f broadside 4d") == string_to_action("attack E>F broadside 4D")
    assert string_to_action("attack E>D 4D") == string_to_action("attack E>D normal 4D")


@pytest.mark.parametrize("bad, hint", [
    ("", "empty move"), ("deploy 7X D", "not a card"), ("deploy 7H J", "not a Seazone"),
    ("attack A>E normal 4D", "not orthogonally adjacent"), ("attack E>F ram 4D", "same Sealane"),
    ("attack D>G broadside 4D", "same Row"), ("attack E>F sneaky 4D", "unknown attack"), ("fire!", "cannot read"),
])
def test_bad_notation_gets_a_clear_error(bad: str, hint: str):
    with pytest.raises(NotationError, match=hint):
        string_to_action(bad)


def test_action_space_layout():
    assert len(EDGES) == 24 and NUM_ACTIONS == 3029
    assert ATTACK_BASE == 468 and DEFEND_BASE == 2964
    # The special style of a line follows its geometry.
    assert decode_action(attack_id(4, 5, AttackStyle.BROADSIDE, 0)).style == AttackStyle.BROADSIDE
    assert decode_action(attack_id(3, 6, AttackStyle.RAM, 0)).style == AttackStyle.RAM
    with pytest.raises(ValueError):
        decode_action(NUM_ACTIONS)
