"""The Tank Attack heuristic's attack (issue 30 item 1) in worked positions, and the balance study's ``heuristic``
pair (item 3). Each position's expected choice is checked against the rules text or a count made here."""

from __future__ import annotations

import json

from cardwar.agents.tankattack_heuristic import TankHeuristic
from cardwar.envs.tankattack.actions import END
from cardwar.envs.tankattack.board import label, parse_label
from cardwar.envs.tankattack.elements import EType

from .conftest import position

OPEN = ["........"] * 11 + ["...K...."]  # the Bunker at D12


def _steps_to_bunker(cell: int, bunker: int) -> int:
    """Moves of one cell (8 neighbours) from ``cell`` to a cell touching the Bunker's edge, on open ground: the
    count made by hand, independent of the agent's own distance field."""
    best = 99
    for dc, dr in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        col, row = bunker % 16 + dc, bunker // 16 + dr
        if 0 <= col < 8 and 0 <= row < 12:
            best = min(best, max(abs(cell % 16 - col), abs(cell // 16 - row)) + 1)
    return best


def test_one_pip_moves_the_rifles_nearest_the_bunker():
    """One PIP (7.1: one move of one element) and two lone Rifles, each able to advance its full 300p (3.2):
    the heuristic spends it on the one nearer the Bunker, not the one far behind (the turn limit is the
    defender's, 17.3, and only troops that reach the Bunker can take it, 16.4)."""
    s = position(OPEN, defender=["A12 rifles"], attacker=["B1 rifles", "F5 rifles"], active=1, pips=1)
    bunker = s.board.bunker
    near, far = parse_label("F5"), parse_label("B1")
    assert _steps_to_bunker(near, bunker) == 7 and _steps_to_bunker(far, bunker) == 11
    a = TankHeuristic(seed=0).act({"action_mask": s.legal_action_mask()}, s.information_view(1))
    assert a == near, label(a)
    s.apply_action(a)
    dest = TankHeuristic(seed=0).act({"action_mask": s.legal_action_mask()}, s.information_view(1))
    assert _steps_to_bunker(dest, bunker) == 7 - 3  # its whole move, straight at the Bunker


def test_every_pip_goes_forward_while_elements_can_advance():
    """Three PIPs and three lone Rifles out of any enemy's reach: the heuristic moves three of them (every PIP
    spent, 7.1) before it ends its moves, each nearer the Bunker than it stood."""
    s = position(OPEN, defender=["A12 rifles"], attacker=["B1 rifles", "D3 rifles", "F5 rifles"], active=1,
                 pips=3)
    ag = TankHeuristic(seed=0)
    bunker = s.board.bunker
    moved = 0
    while s.stage.name != "MOVES" or s.pips > 0:
        a = ag.act({"action_mask": s.legal_action_mask()}, s.information_view(1))
        if s.stage.name == "MOVES":
            assert a != END, f"ended its moves with {s.pips} PIPs left"
            before = _steps_to_bunker(a, bunker)
            e = s.grid[a]
            s.apply_action(a)
            while s.stage.name != "MOVES":
                s.apply_action(ag.act({"action_mask": s.legal_action_mask()}, s.information_view(1)))
            assert _steps_to_bunker(s.cell[e], bunker) < before
            moved += 1
        else:
            s.apply_action(a)
        if s.current_player != 1:
            break
    assert moved == 3 and all(s.etype[e] is EType.RIFLES for e in range(len(s.cell)) if s.side[e] == 1
                              and s.moved[e] and not s.general[e])


def test_balance_cli_runs_the_heuristic_pair(capsys):
    """``python -m cardwar.cli.tankattack_balance --agents heuristic``: both seats the heuristic, a result each
    game by one of the rules' ends (17.3), the same figures on a rerun (its seeds are fixed by map and game)."""
    from cardwar.cli.tankattack_balance import main

    outs = []
    for _ in range(2):
        assert main(["--seeds", "3", "--games", "1", "--agents", "heuristic", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))
    assert outs[0] == outs[1]
    row = outs[0]["rows"][0]
    assert outs[0]["agents"] == "heuristic" and row["maps"] == 1 and row["defender"] in (0.0, 0.5, 1.0)
    assert set(row["ends"]) <= {"turn limit", "break point", "breakthrough"} and sum(row["ends"].values()) == 1


def test_a_loss_that_breaks_a_side_is_valued_as_the_game():
    """17.2: a side breaks when its Lost AP reach half its army's AP. Five defending Rifles (the General is
    one) are 10 AP, 2 each (3.5); with two already Lost (4 AP), Rifles destroyed by the Tank that drove into
    them (14.1: beaten Rifles die when a Tank initiated the contact) make 6 of 10, so the heuristic values
    that loss at BREAK_VALUE, not at the Rifles' 2 AP, and the same fight with none Lost at 2 AP."""
    from cardwar.agents.tankattack_heuristic import BREAK_VALUE
    from cardwar.envs.tankattack.outcomes import Result
    from cardwar.envs.tankattack.state import LOST

    s = position(defender=["D8 rifles", "A10 rifles", "B10 rifles", "C10 rifles"], attacker=["D7 tank"],
                 active=1, pips=6)
    ag = TankHeuristic(seed=0)
    rifles, tank = s.grid[parse_label("D8")], s.grid[parse_label("D7")]
    assert s.army_ap(0) == 10 and BREAK_VALUE > 2
    assert ag._loss(s, rifles, tank, True, Result.BEATEN, enemy_initiated=True) == 2.0
    for label_ in ("A10", "B10"):
        e = s.grid[parse_label(label_)]
        s.grid[s.cell[e]] = -1
        s.cell[e] = LOST
    s._memo = None
    assert s.lost_ap(0) == 4 and 2 * (4 + 2) >= 10
    assert ag._loss(s, rifles, tank, True, Result.BEATEN, enemy_initiated=True) == BREAK_VALUE
    assert ag._loss(s, rifles, tank, True, Result.BEATEN, enemy_initiated=False) < 2.0  # not initiated: a recoil
