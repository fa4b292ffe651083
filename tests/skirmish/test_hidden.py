"""What one side may not know (RULES.md §9.1, §9.2) is absent from its view and observation.

Each test changes, in a clone, something seat 1 must not know (seat 0's undeclared orders, its skills, its Kings,
its unseen figures, its mines, the order of the packs and of the activation deck) and checks that seat 1's
information view and observation tensor do not change. Last, an attack: a guesser fitted on what seat 1 sees
tries to predict the next card of seat 0's pack, and does no better than counting the cards seat 1 saw drawn.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from cardwar.envs.skirmish.actions import Step
from cardwar.envs.skirmish.cards import KING, make_card
from cardwar.envs.skirmish.figures import Skills
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.sight import sees, update_sight
from cardwar.envs.skirmish.state import SkirmishState, new_state
from cardwar.envs.skirmish.units import Soldier, Tank
from tests.skirmish.conftest import act, fig, scenario, start, stay
from tests.skirmish.test_invariants import sample_rules, scenario_for

try:
    from cardwar.envs.skirmish.observation import encode_observation
except ImportError:  # pragma: no cover - the observation lands with the env
    encode_observation = None
try:
    from cardwar.envs.skirmish.sight import seen_cells
except ImportError:  # pragma: no cover
    seen_cells = None


def view_diff(a, b) -> list[str]:
    out = []
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x != y:
            if f.name == "units":
                x = [u for u in x if u not in y]
                y = [u for u in getattr(b, f.name) if u not in getattr(a, f.name)]
            elif f.name == "events":
                x, y = [e for e in x if e not in y], [e for e in y if e not in getattr(a, f.name)]
            out.append(f"{f.name}: {x!r} != {y!r}")
    return out


def assert_same_knowledge(a: SkirmishState, b: SkirmishState, seat: int, where: str) -> None:
    va, vb = a.information_view(seat), b.information_view(seat)
    diff = view_diff(va, vb)
    assert not diff, f"{where}: seat {seat}'s view differs: " + "; ".join(diff)[:2000]
    if encode_observation is not None:
        oa, ob = encode_observation(va, a.scenario), encode_observation(vb, b.scenario)
        assert np.array_equal(oa, ob), f"{where}: seat {seat}'s observation differs in planes " \
                                       f"{sorted(set(np.argwhere(oa != ob)[:, 0].tolist()))}"
    if a.seat == seat and b.seat == seat:
        assert a.legal() == b.legal(), f"{where}: seat {seat}'s legal actions differ"


def random_positions(games: range, seed: int, *, every: float = 0.05, **fixed):
    """(state, where) at random positions of random games under sampled rules (both sequences)."""
    rng = np.random.default_rng(seed)
    for g in games:
        rules = sample_rules(rng, **fixed)
        s = new_state(scenario_for(g, fast=True), rules, seed=g)
        while not s.is_terminal():
            if rng.random() < every:
                yield s, f"game {g} ({s.scenario.name}, {rules.sequence}) move {s.moves_made} {s.stage}"
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])


# ============================================================================ §9.1 hidden declarations
def declare(s: SkirmishState, rng: np.random.Generator, stage: str, seat: int, watcher: SkirmishState | None = None,
            where: str = "") -> None:
    """Play ``seat``'s steps of this declaration at random."""
    while not s.is_terminal() and s.stage == stage and s.seat == seat:
        legal = s.legal()
        s.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("stage", ["declare_move", "declare_combat"])
def test_undeclared_orders_are_not_seen_by_the_other_side(stage):
    """RULES.md §9.1: "neither sees the other's declarations (nor whether it declared opportunity fire, nor which
    figures act) until both have declared and the engine reveals them all at once". Two clones: seat 0 declares
    differently in each; seat 1 then declares the same in both. Until the reveal, seat 1's view, observation and
    legal actions are the same in both, and so is seat 0's view while seat 1 declares."""
    rng = np.random.default_rng(11)
    checked = 0
    for g in range(60):
        rules = sample_rules(rng, sequence="phases")
        s = new_state(scenario_for(g, fast=True), rules, seed=g)
        while not s.is_terminal() and checked < 400:
            if s.stage == stage and s.seat == 0 and rng.random() < 0.3:
                a, b = s.clone(), s.clone()
                declare(a, np.random.default_rng(2 * g), stage, 0)
                declare(b, np.random.default_rng(2 * g + 1), stage, 0)
                where = f"game {g} turn {s.turn} {stage}"
                while a.stage == stage and b.stage == stage and a.seat == 1 and b.seat == 1:
                    assert_same_knowledge(a, b, 1, where)
                    checked += 1
                    move = a.legal()[int(rng.integers(len(a.legal())))]
                    a.apply(move)
                    b.apply(move)
                break
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 100


def test_the_first_seats_view_does_not_change_while_the_second_declares():
    rng = np.random.default_rng(12)
    checked = 0
    for g in range(25):
        s = new_state(scenario_for(g, fast=True), sample_rules(rng, sequence="phases"), seed=g)
        while not s.is_terminal():
            if s.stage in ("declare_move", "declare_combat") and s.seat == 1 and rng.random() < 0.3:
                a, b = s.clone(), s.clone()
                stage = s.stage
                ra, rb = np.random.default_rng(g), np.random.default_rng(g + 1000)
                while a.stage == stage and b.stage == stage and a.seat == 1 and b.seat == 1:
                    # stop one step before the reveal: the last answer reveals everything
                    la, lb = a.legal(), b.legal()
                    ca, cb = a.clone(), b.clone()
                    ca.apply(la[int(ra.integers(len(la)))])
                    cb.apply(lb[int(rb.integers(len(lb)))])
                    if ca.stage != stage or cb.stage != stage:
                        break
                    a, b = ca, cb
                    assert_same_knowledge(a, b, 0, f"game {g} turn {s.turn} {stage}")
                    checked += 1
                break
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 20


def hidden_scene():
    """Blue's Scout on B2 behind a line of woods (D1-D6) that hides it from Red; Blue's Lookout on H5 sees Red."""
    rows = "\n".join((" " if r % 2 else "") + " ".join("W" if c == 3 else "." for c in range(10)) for r in range(6))
    return scenario([fig("Scout", "B2"), fig("Lookout", "H5")], [fig("Red 1", "J6", skills=3)], map=rows)


def test_an_unseen_figures_declaration_is_not_revealed():
    """RULES.md §1.4, §9.2: a side never learns about unseen figures; their orders are shown only while seen (the
    view's own orders follow this). Blue's hidden Scout stays in one clone and searches (to a hex still hidden) in
    the other: Red's view must be the same after the reveal."""
    a, b = start(hidden_scene()), start(hidden_scene())
    scout = a.units[0]
    assert scout.uid not in a.seen[1] and a.units[1].uid in a.seen[1]
    act(a, "stay", "standing", "no_watch")
    act(b, "search", "A2", "standing")
    for s in (a, b):
        stay(s)  # Lookout
        stay(s)  # Red 1
    assert a.stage == b.stage == "declare_combat" and a.seat == b.seat == 0
    assert scout.uid not in b.seen[1]
    a2, b2 = a.information_view(1), b.information_view(1)
    assert [e for e in a2.events if "Scout" in e] == [] and [e for e in b2.events if "Scout" in e] == []
    assert_same_knowledge(a, b, 1, "after the reveal")


# ============================================================================ §9.2 skills, Kings, packs
def test_enemy_skills_are_not_in_the_view():
    """RULES.md §9.2: never "the enemy's skills until shown by a draw against them"."""
    n = 0
    for s, where in random_positions(range(15), seed=21):
        c = s.clone()
        rng = np.random.default_rng(n)
        for u in c.units:
            if u.side != 0:
                continue
            if isinstance(u, Soldier):
                u.fig.skills = Skills(*(int(x) for x in rng.integers(1, 10, size=4)))
            else:
                u.shoot = int(rng.integers(1, 10))
        assert all(v.skills is None for v in s.information_view(1).units if v.side == 0)
        assert_same_knowledge(s, c, 1, where)
        n += 1
    assert n > 50


def swap_kings(s: SkirmishState, side: int) -> bool:
    """Change which Kings ``side`` holds (same number) everywhere they are recorded."""
    held = list(s.kings[side])
    if not held:
        return False
    pack = s.packs[side]
    kings = [make_card(KING, suit) for suit in range(4)]
    free = [k for k in kings if k in pack.draw_pile or k in pack.discards]
    if not free:
        return False
    old, new = held[0], free[0]
    for pile in (pack.draw_pile, pack.discards):
        if new in pile:
            pile[pile.index(new)] = old
    pack.retained[pack.retained.index(old)] = new
    s.kings[side][0] = new
    return True


def test_enemy_kings_show_only_as_a_count():
    """RULES.md §3.4, §9.2: a kept King is "hidden from the enemy, who sees only how many Kings the side holds"."""
    n = 0
    for s, where in random_positions(range(25), seed=22, every=0.2, king_and_country=True):
        if not s.kings[0]:
            continue
        c = s.clone()
        if not swap_kings(c, 0):
            continue
        assert s.information_view(1).enemy_kings == c.information_view(1).enemy_kings >= 1
        assert_same_knowledge(s, c, 1, where)
        n += 1
    assert n > 20


def test_the_order_of_the_packs_and_of_the_activation_deck_is_not_in_any_view():
    """RULES.md §9.2: never "the order of any pack or the activation deck"."""
    n = 0
    for s, where in random_positions(range(15), seed=23):
        c = s.clone()
        rng = np.random.default_rng(n)
        for p in c.packs:
            rng.shuffle(p.draw_pile)
        rng.shuffle(c.deck)
        for seat in (0, 1):
            assert_same_knowledge(s, c, seat, where)
        n += 1
    assert n > 50


# ============================================================================ §1.4 unseen figures
def hide_elsewhere(s: SkirmishState, u: Soldier, rng: np.random.Generator) -> bool:
    """Move ``u`` (unseen by the other side) to another empty hex no enemy sees, with another stance."""
    eyes = [e.cell for e in s.units if e.side != u.side and e.active]
    board = s.scenario.board
    taken = {x.cell for x in s.units if getattr(x, "holds_hex", x.on_table)}
    mines = set(s.mines)
    if seen_cells is not None:
        watched = set().union(*(seen_cells(s, e) for e in eyes)) if eyes else set()
        cells = [c for c in range(len(board.ground)) if board.on_map(c) and c not in taken and c not in mines
                 and c not in watched]
    else:
        cells = [c for c in range(len(board.ground)) if board.on_map(c) and c not in taken and c not in mines
                 and not any(sees(s, e, c) for e in eyes)]
    if not cells:
        return False
    u.cell = cells[int(rng.integers(len(cells)))]
    u.fig.stance = type(u.fig.stance)((int(u.fig.stance) + 1) % 3)
    u.burning = 0 if u.burning else u.burning
    update_sight(s)
    return u.uid not in s.seen[1 - u.side]


def test_unseen_enemy_figures_are_not_in_the_view():
    """RULES.md §1.4: "an enemy figure ... is shown to a side only while some figure ... of that side has line of
    sight to it; otherwise the side sees only where it was last seen". An unseen figure moved elsewhere (still
    unseen) and in another stance changes nothing seat 1 knows; one never seen is not in the view at all."""
    n = 0
    for s, where in random_positions(range(25), seed=24, visibility="line_of_sight"):
        if s.stage == "moving":
            continue  # a mover's schedule would follow it: move only figures at rest
        unseen = [u for u in s.units if isinstance(u, Soldier) and u.side == 0 and u.uid not in s.seen[1]
                  and getattr(u, "holds_hex", u.on_table) and u.active and u.uid not in s.schedule]
        if not unseen:
            continue
        never = [u.uid for u in s.units if u.side == 0 and u.uid not in s.seen[1] and u.uid not in s.last_seen[1]]
        view = s.information_view(1)
        assert not {v.uid for v in view.units} & set(never), where
        base = s.clone()
        update_sight(base)  # sight as it is now (see test_sight_is_what_the_active_figures_see_now)
        c = base.clone()
        if not hide_elsewhere(c, c.units[unseen[0].uid], np.random.default_rng(n)):
            continue
        assert_same_knowledge(base, c, 1, where)
        n += 1
    assert n > 20


def test_sight_is_what_the_active_figures_see_now():
    """RULES.md §1.4: an enemy is shown "only while some figure or vehicle of that side has line of sight to it";
    an incapacitated figure "plays no further part". At every decision, what each side sees is what its active
    units see now."""
    stale = Counter()
    for s, where in random_positions(range(15), seed=26, every=0.3, visibility="line_of_sight"):
        fresh = s.clone()
        update_sight(fresh)
        if fresh.seen != s.seen:
            stale[s.events[-1].text if s.events else ""] += 1
            break
    assert not stale, f"stale sight after: {stale.most_common(4)}"


def test_a_never_seen_figures_name_is_not_in_the_events_seat_one_sees():
    """§9.2 "Never: ... unseen figures": the events in a view do not name an enemy the side has never seen. (The
    activation cards are the exception: the deck is turned face up, WW2 "the top card is drawn", and a figure's card
    names it.)"""
    bad = Counter()
    for s, where in random_positions(range(40), seed=25, every=0.1, visibility="line_of_sight"):
        view = s.information_view(1)
        for u in s.units:
            if u.side == 0 and u.uid not in s.last_seen[1] and u.uid not in s.seen[1]:
                for e in view.events:
                    if u.name in e and not e.startswith("activation card"):
                        bad[e.replace(u.name, "<unseen>")] += 1
    assert not bad, f"events naming never-seen enemies: {bad.most_common(5)}"


# ============================================================================ §1.2 mines
def mined_scene():
    return scenario([fig("Blue 1", "A3"), fig("Blue 2", "A5")], [fig("Red 1", "J3", skills=3), fig("Red 2", "J5")],
                    mines=[{"hex": "E3", "side": "Blue"}, {"hex": "F5", "side": "Blue"}, {"hex": "D2", "side": "Red"}],
                    turns=4)


def test_mines_laid_by_the_enemy_are_not_in_the_view():
    """RULES.md §1.2: mined hexes are "hidden from the enemy"; §9.2 never "unspotted mines"."""
    n = 0
    for g in range(8):
        for seq in ("phases", "deck"):
            s = start(mined_scene(), seed=g, sequence=seq)
            rng = np.random.default_rng(g)
            while not s.is_terminal():
                if rng.random() < 0.7:
                    s.apply(s.legal()[int(rng.integers(len(s.legal())))])
                    continue
                view = s.information_view(1)
                assert all(s.mines.get(c) == 1 for c in view.mines)
                c = s.clone()
                for cell in [k for k, side in c.mines.items() if side == 0]:
                    del c.mines[cell]
                c.mines[int(rng.choice([k for k in range(24 * 6) if k % 24 < 10 and c.unit_at(k) is None
                                        and k not in c.mines]))] = 0
                assert_same_knowledge(s, c, 1, f"game {g} {seq} move {s.moves_made}")
                n += 1
                s.apply(s.legal()[int(rng.integers(len(s.legal())))])
    assert n > 100


# ============================================================================ attack: guess seat 0's next card
def rank_counts(cards) -> np.ndarray:
    out = np.zeros(14)
    for c in cards:
        out[c % 13 + 1] += 1
    return out


def view_vector(v, scenario) -> np.ndarray:
    """Everything in seat 1's view as numbers: the observation's plane means and the view's counters."""
    parts = [rank_counts(v.drawn[0])[1:11], rank_counts(v.drawn[1])[1:11],
             np.array([*v.pack_sizes, *v.discard_sizes, v.turn, v.tick, v.enemy_kings, len(v.kings), v.deck_left,
                       len(v.events), -1 if v.step is None else int(v.step)], dtype=float)]
    if encode_observation is not None:
        parts.append(encode_observation(v, scenario).mean(axis=(0, 1)))  # per plane (channels-last)
    return np.concatenate(parts)


def collect(games: range, seed: int, vectors: bool = False) -> tuple[list[tuple], list[tuple]]:
    """Samples (features of seat 1's view, the card-counting prior over ranks, the true next rank, its parity as a
    leak[, the whole view as a vector]), one per card of seat 0's pack (at a random moment before it is drawn), so no
    two samples share an answer; the even games' samples to fit on, the odd games' to test on."""
    rng = np.random.default_rng(seed)
    halves: tuple[list, list] = ([], [])
    for g in games:
        s = new_state(scenario_for(g, fast=True), sample_rules(rng, knave_events=False, lady_luck=False,
                                                                king_and_country=False), seed=g)
        done = set()
        while not s.is_terminal():
            pack = s.packs[0]
            which = (pack.reshuffles, len(pack.draw_pile))
            if pack.draw_pile and which not in done and rng.random() < 0.5:
                done.add(which)
                v = s.information_view(1)
                last = v.drawn[0][-1] % 13 + 1 if v.drawn[0] else 0
                own_last = v.drawn[1][-1] % 13 + 1 if v.drawn[1] else 0
                features = (last, own_last, v.pack_sizes[0] // 5, v.tick // 4, v.stage, str(v.step))
                # what a perfect card counter on seat 1 knows: the pack less every card seen drawn since the shuffle
                prior = rank_counts(pack.draw_pile)  # = full pack - discards (all face up) - Kings held
                rank = pack.draw_pile[0] % 13 + 1
                halves[g % 2].append((features, prior / prior.sum(), rank, rank % 2)
                                     + ((view_vector(v, s.scenario),) if vectors else ()))
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])
    return halves


def fitted_log_likelihood(train, test, key) -> tuple[float, float]:
    """Mean log-likelihood on ``test`` of a guesser fitted on ``train``: per feature key, the counted ranks mixed
    with the card-counting prior (so it can only gain by finding something the prior misses); and the prior's own."""
    table: dict = {}
    for f, _, rank, leak in train:
        table.setdefault(key(f, leak), np.zeros(14))[rank] += 1
    model, base = 0.0, 0.0
    for f, prior, rank, leak in test:
        counts = table.get(key(f, leak), np.zeros(14))
        alpha = 20.0
        p = (counts + alpha * prior) / (counts.sum() + alpha)
        model += np.log(p[rank])
        base += np.log(prior[rank])
    return model / len(test), base / len(test)


GUESS_GAMES = 120
_SAMPLES: dict = {}


def samples(games: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    if (games, seed) not in _SAMPLES:
        _SAMPLES[(games, seed)] = collect(range(games), seed=seed, vectors=True)
    return _SAMPLES[(games, seed)]


def test_a_guesser_of_seat_zeros_next_card_does_no_better_than_counting_cards():
    """RULES.md §3.1, §9.2: seat 1 sees every card drawn and the pack sizes, never the order: the best it can do is
    count cards. A guesser fitted on the features of seat 1's view (the last cards drawn, pack size, the moment)
    gains nothing over that on held-out positions; given a real leak (the next card's parity) the same guesser
    gains at once, so the test can see one."""
    train, test = samples(GUESS_GAMES, seed=31)
    assert len(train) + len(test) > 5 * GUESS_GAMES
    train, test = [r[:4] for r in train], [r[:4] for r in test]
    model, base = fitted_log_likelihood(train, test, key=lambda f, leak: f)
    assert model <= base + 0.01, f"a guesser beats card counting: {model:.4f} vs {base:.4f} nats a card"
    for key in (lambda f, leak: f[0], lambda f, leak: f[:2], lambda f, leak: (f[2], f[4])):
        model, base = fitted_log_likelihood(train, test, key)
        assert model <= base + 0.01, f"a guesser beats card counting: {model:.4f} vs {base:.4f} nats a card"
    # the control: a feature that leaks the parity of the next card is found
    leaky, base = fitted_log_likelihood(train, test, key=lambda f, leak: leak)
    assert leaky > base + 0.2
    # and card counting itself beats a guesser that ignores the cards seen (uniform over the 40-card pack)
    uniform = np.mean([np.log(4 / 40) for _ in test])
    assert base > uniform


def softmax_guesser(train, test, leak: bool = False, steps: int = 200, components: int = 8) -> tuple[float, float]:
    """A multinomial logistic model over ranks 1-10 on the whole view as a vector, on top of the card-counting prior
    (its log is the offset): mean held-out log-likelihood of the model and of the prior alone."""
    def arrays(rows):
        x = np.stack([r[4] for r in rows])
        if leak:
            x = np.column_stack([x, [r[3] for r in rows]])
        offset = np.log(np.stack([r[1][1:11] for r in rows]) + 1e-12)
        y = np.array([r[2] - 1 for r in rows])
        return x, offset, y

    xtr, otr, ytr = arrays(train)
    xte, ote, yte = arrays(test)
    mu, sd = xtr.mean(0), xtr.std(0)
    keep = sd > 1e-6  # columns constant in training say nothing
    xtr, xte = (np.clip(((x - mu) / np.where(keep, sd, 1.0))[:, keep], -4, 4) for x in (xtr, xte))
    # the view's main directions of variation (a few hundred samples cannot fit a weight per plane)
    _, _, vt = np.linalg.svd(xtr[:, :-1] if leak else xtr, full_matrices=False)
    basis = vt[:components].T
    if leak:
        xtr = np.column_stack([xtr[:, :-1] @ basis, xtr[:, -1]])
        xte = np.column_stack([xte[:, :-1] @ basis, xte[:, -1]])
    else:
        xtr, xte = xtr @ basis, xte @ basis
    w, b = np.zeros((xtr.shape[1], 10)), np.zeros(10)
    m_w, v_w, m_b, v_b = (np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b))
    onehot = np.eye(10)[ytr]
    for k in range(1, steps + 1):  # Adam on the mean cross-entropy, a little L2
        z = otr + xtr @ w + b
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(ytr)
        gw, gb = xtr.T @ g + 1e-3 * w, g.sum(0)
        for param, grad, m, v in ((w, gw, m_w, v_w), (b, gb, m_b, v_b)):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad ** 2
            param -= 0.05 * (m / (1 - 0.9 ** k)) / (np.sqrt(v / (1 - 0.999 ** k)) + 1e-8)

    def loglik(x, o, y, w, b):
        z = o + x @ w + b
        z = z - z.max(1, keepdims=True)
        return float(np.mean(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(1))))

    return loglik(xte, ote, yte, w, b), loglik(xte, ote, yte, np.zeros_like(w), np.zeros_like(b))


def test_a_model_of_everything_seat_one_sees_does_not_predict_seat_zeros_next_card():
    """The same attack with a fitted softmax model on the whole view (observation planes, cards drawn, pack and
    discard sizes, Kings, the moment): held out, it is no better than card counting; with the leak column added it
    is much better, so the model could find one."""
    train, test = samples(GUESS_GAMES, seed=31)
    model, base = softmax_guesser(train, test)
    assert model <= base + 0.01, f"a model of the view beats card counting: {model:.4f} vs {base:.4f} nats a card"
    leaky, base = softmax_guesser(train, test, leak=True)
    assert leaky > base + 0.2


@pytest.mark.slow
def test_thousands_of_draws_give_no_edge_over_card_counting():
    train, test = collect(range(600), seed=34, vectors=True)
    model, base = softmax_guesser(train, test)
    assert model <= base + 0.005, f"{model:.4f} vs {base:.4f}"
    model, base = fitted_log_likelihood([r[:4] for r in train], [r[:4] for r in test], key=lambda f, leak: f)
    assert model <= base + 0.005, f"{model:.4f} vs {base:.4f}"


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["declare_move", "declare_combat"])
def test_undeclared_orders_stay_hidden_over_many_games(stage):
    rng = np.random.default_rng(41)
    checked = 0
    for g in range(400, 900):
        s = new_state(scenario_for(g), sample_rules(rng, sequence="phases"), seed=g)
        while not s.is_terminal():
            if s.stage == stage and s.seat == 0 and rng.random() < 0.2:
                a, b = s.clone(), s.clone()
                declare(a, np.random.default_rng(2 * g), stage, 0)
                declare(b, np.random.default_rng(2 * g + 1), stage, 0)
                while a.stage == stage and b.stage == stage and a.seat == 1 and b.seat == 1:
                    assert_same_knowledge(a, b, 1, f"game {g} turn {s.turn} {stage}")
                    checked += 1
                    move = a.legal()[int(rng.integers(len(a.legal())))]
                    a.apply(move)
                    b.apply(move)
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 2000


@pytest.mark.slow
def test_skills_kings_packs_and_unseen_figures_stay_hidden_over_many_games():
    n = 0
    for s, where in random_positions(range(300, 900), seed=42, every=0.02, king_and_country=True):
        c = s.clone()
        rng = np.random.default_rng(n)
        for u in c.units:
            if u.side == 0 and isinstance(u, Soldier):
                u.fig.skills = Skills(*(int(x) for x in rng.integers(1, 10, size=4)))
            elif u.side == 0:
                u.shoot = int(rng.integers(1, 10))
        swap_kings(c, 0)
        for p in c.packs:
            rng.shuffle(p.draw_pile)
        rng.shuffle(c.deck)
        for cell in [k for k, side in c.mines.items() if side == 0]:
            del c.mines[cell]
        assert_same_knowledge(s, c, 1, where)
        n += 1
    assert n > 1000


def test_drawn_cards_and_pack_sizes_are_public_to_both():
    """RULES.md §3.1: "Both sides see every card drawn in play" and "The number of cards left in each pack and each
    discard pile is public"."""
    for s, where in random_positions(range(10), seed=33):
        v0, v1 = s.information_view(0), s.information_view(1)
        assert v0.drawn == v1.drawn and v0.pack_sizes == v1.pack_sizes and v0.discard_sizes == v1.discard_sizes
        assert v0.pack_sizes == (len(s.packs[0].draw_pile), len(s.packs[1].draw_pile))
