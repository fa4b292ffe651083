"""The named scenarios against RULES.md 20.2, read from the page itself: each map is its code block, each
placed element's cell is in its side's list, each reserve is the listed one; every set-up limit of
RULES.md 4-5 holds (the checks of test_generator); random games on every scenario end."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cardwar.envs.tankattack import STATS, TankState, available_scenarios, load_scenario
from cardwar.envs.tankattack.board import label, parse_label
from cardwar.envs.tankattack.elements import NAMES
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER

from .test_generator import ap, centre_gap, check_limits

RULES = (Path(__file__).resolve().parents[2] / "envs" / "tankattack" / "RULES.md").read_text()
NAMED = ["cambrai", "kaiserschlacht", "villers_bretonneux", "trench_raid"]


def section(name: str) -> str:
    start = RULES.index(f"#### `{name}`")
    end = min(i for i in (RULES.find("\n#### ", start + 1), RULES.find("\n## ", start + 1)) if i > 0)
    return RULES[start:end]


def side_block(text: str, who: str) -> str:
    """The ``- **Defender ...`` bullet and its indented sub-bullets."""
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(f"- **{who}"))
    out = [lines[i]]
    for ln in lines[i + 1:]:
        if not ln.startswith("  "):
            break
        out.append(ln)
    return "\n".join(out)


def listed_cells(block: str) -> list[int]:
    """Every cell label written in backticks in a side's list (``E16``, ``C16 D16 F16``)."""
    cells = []
    for group in re.findall(r"`([^`]+)`", block):
        for word in group.split():
            if re.fullmatch(r"[A-P]\d{1,2}", word):
                cells.append(parse_label(word))
    return cells


def listed_reserve(block: str) -> Counter:
    m = re.search(r"reserve: ([^.]+)\.", " ".join(block.split()))
    out: Counter = Counter()
    for item in (m.group(1).split(", ") if m else []):
        n, _, rest = item.partition(" ")
        count, word = (int(n), rest) if n.isdigit() else (1, item)
        out[NAMES[word.lower().replace(" ", "_")]] += count
    return out


def test_every_named_scenario_is_shipped():
    assert set(NAMED) <= set(available_scenarios())


@pytest.mark.parametrize("name", NAMED)
def test_named_scenario_matches_rules_md(name):
    text = section(name)
    sc = load_scenario(name)
    block = re.search(r"```\n(.*?)```", text, re.S).group(1).splitlines()
    rows = [ln.split()[1] for ln in block[1:]]
    assert tuple(rows) == sc.map_rows
    full = len(rows) == 24
    assert sc.turn_limit == (20 if full else 10)
    for side, who in ((DEFENDER, "Defender"), (ATTACKER, "Attacker")):
        blk = side_block(text, who)
        placed = sorted(e.cell for e in sc.elements if e.side == side and e.cell is not None)
        listed = sorted(set(listed_cells(blk)) - {sc.board.bunker})
        assert placed == listed, (name, who, [label(c) for c in placed], [label(c) for c in listed])
        assert Counter(e.type for e in sc.elements if e.side == side and e.cell is None) == listed_reserve(blk)
        assert ap(sc, side) == (36 if full else 13)


@pytest.mark.parametrize("name", NAMED)
def test_named_scenario_keeps_the_set_up_limits(name):
    """5 step 4-8: high terrain, quarters, the Bunker's distance and access, zones, no start in enemy ZOC."""
    check_limits(load_scenario(name), core=name != "trench_raid")


def test_bunker_distances_stated_in_rules_md():
    """20.2: Cambrai's Bunker 100p from the edge centre, Villers-Bretonneux's 350p, the raid's at it."""
    for name, paces in (("cambrai", 100), ("villers_bretonneux", 350), ("trench_raid", 0)):
        b = load_scenario(name).board
        assert centre_gap(b.bunker, b.width, b.height) == paces


def test_whippets_are_armoured_cars():
    """20.2 ``villers_bretonneux``: two Whippets, played as Armoured Cars, beside two Mark IV Tanks."""
    sc = load_scenario("villers_bretonneux")
    kinds = Counter(STATS[e.type].name for e in sc.elements if e.side == DEFENDER)
    assert kinds["Armoured Car"] == 2 and kinds["Tank"] == 2


def _play(name: str, seed: int) -> TankState:
    s = TankState.new_game(load_scenario(name), seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal
        s.apply_action(int(rng.choice(legal)))
        steps += 1
        assert steps < 20_000
    assert s.result is not None and s.result["reason"]
    return s


@pytest.mark.parametrize("name,games", [("trench_raid", 5), ("cambrai", 1), ("kaiserschlacht", 1),
                                        ("villers_bretonneux", 1), ("random:test:3", 1)])
def test_random_games_end(name, games):
    for g in range(games):
        _play(name, g)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMED + [f"random:{s}" for s in range(10)])
def test_many_random_games_end(name):
    for g in range(20):
        _play(name, 100 + g)
