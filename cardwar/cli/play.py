"""Games between two players (agents or a person) through the AEC envs, narrated move by move.

One loop (:func:`_narrated_game`) plays every game: it prints the board once a turn
(a person's own decisions show it again only when it has changed), the public
narration of every move, and collects the moves for the game record
(:mod:`cardwar.record`), which ``save`` writes when the game ends or a person quits.

What it asks of a game comes from the game registry (:mod:`cardwar.games`: the env, notation,
narration, renderers, explanations) and from the game's :class:`PlayStyle` (how a person
sees the board, the opening lines, the result in words, when a turn starts), which the
registry entry names as ``extra["play_style"]`` (``"cardwar.envs.mygame.play_style:style"``, next to the game);
a game without one gets :func:`generic_style`, built from the registry alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dataclasses import dataclass, field

from cardwar import games
from cardwar.arena.seeds import Dealer
from cardwar.cli.human import HumanPlayer, QuitGame, Screen, ask
from cardwar.record import GameRecord, Move, json_int, result_of

COMMON_VIEWERS: dict[str, Any] = {"spectator": None, "omniscient": "omniscient", "A": 0, "B": 1}
"""``--viewer`` names every game takes: A and B are the first and second seat."""


def _narrated_game(env: Any, players: dict[str, Any], board: Callable[[Any], str], narrate_fn: Callable,
                   new_turn: Callable[[Any], bool], screen: Screen, quiet: bool, to_str: Callable[[int], str],
                   moves: list[Move], move_line: Callable | None = None,
                   snapshot: Callable[[Any], Any] | None = None) -> str | None:
    """Drive ``env`` with ``players``, appending each move to ``moves``; print ``board(state)`` when
    ``new_turn(state)`` says so and the public narration of every move (``narrate_fn`` reads ``before`` as the
    game's ``snapshot`` hook takes it, default a clone). Returns the seat of a person who quit, or None when
    the game ended."""
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if not quiet and new_turn(env.game):
            screen.board(board(env.game))
        try:
            action = players[agent].act(obs, env.view(agent))
        except QuitGame as stop:
            screen.out(f"Game abandoned: {stop}")
            return agent
        before = env.game.clone() if move_line is not None or snapshot is None else None
        snap = snapshot(env.game) if snapshot is not None else before
        env.step(action)
        moves.append(Move(agent, to_str(action)))
        if not quiet:
            if move_line is not None:
                screen.out(move_line(len(moves), before, action))
            for line in narrate_fn(snap, action, env.game):
                screen.out("       " + line)
    return None


def fresh_turns(out: Callable[[str], None]) -> Callable[[Any], bool]:
    """Any game: a board the first time a turn number (``state.turn``) is seen."""
    seen: set[int] = set()

    def fresh(state: Any) -> bool:
        new = state.turn not in seen
        seen.add(state.turn)
        return new

    return fresh


def turn_starts(game: str, out: Callable[[str], None]) -> Callable[[Any], bool]:
    """``new_turn(state)``: True the first time a turn is seen, so the board is printed once a turn (play and
    replay alike); the game's own rule (its style's ``turn_starts``) where it has one."""
    return style_of(game).turn_starts(out)


def _seat_players(game: str, specs: tuple[str, str], seed: int, dealer: Dealer,
                  human: Callable[[int], HumanPlayer]) -> dict:
    """The player of each seat: a person for ``human``, else the agent the spec names (seeded by the dealer)."""
    from cardwar.players import make_player

    return {name: human(i) if spec == "human" else make_player(spec, game, seed=dealer.seat(seed, i))
            for i, (name, spec) in enumerate(zip(games.get(game).seats, specs))}


def _viewer(who: Any, specs: tuple[str, str]) -> Any:
    """Whose knowledge the printout shows: a lone person sees only their own seat's view,
    two people at one terminal see the spectator's board between their own decisions."""
    people = [i for i, spec in enumerate(specs) if spec == "human"]
    return who if not people else people[0] if len(people) == 1 else None


def _run(env: Any, game: str, specs: tuple[str, str], seed: int, players: dict, board: Callable, narrate_fn: Callable,
         new_turn: Callable, screen: Screen, quiet: bool, save: str | None, scenario: str | None = None,
         move_line: Callable | None = None) -> tuple[GameRecord, str | None]:
    """Play the game and build its record (saved to ``save`` even if the game is interrupted)."""
    g = games.get(game)
    moves: list[Move] = []
    quit_by: str | None = None

    def record() -> GameRecord:
        s = env.game
        data = g.hook("scenario_data")(s) if g.scenario_data is not None else None
        return GameRecord(game=game, seed=seed, players=dict(zip(g.seats, specs)), moves=tuple(moves),
                          rules=env.config.to_dict(), scenario=scenario, scenario_data=data,
                          finished=s.is_terminal(), result=result_of(s, g.seats) if s.is_terminal() else None,
                          quit_by=quit_by)
    try:
        quit_by = _narrated_game(env, players, board, narrate_fn, new_turn, screen, quiet, g.to_string, moves,
                                 move_line, g.snapshot)
    except KeyboardInterrupt:
        if save:
            record().save(save)
        raise
    rec = record()
    if save:
        rec.save(save)
        if not quiet:
            screen.out(f"Game record written to {save}")
    return rec, quit_by


def _seeds_said(out: Callable[[str], None], seed: int, dealer: Dealer) -> None:
    """Once the game is over (never before: a seat could rebuild the deal from them), how it was dealt."""
    if dealer.reproducible:
        out(f"Game seed {seed} (reproducible research seeds: --seed {seed} --reproducible-seeds deals it again)")
    else:
        out(f"Game seed {seed}, dealt with the secret {dealer.secret} (--seed {seed} --secret {dealer.secret} "
            "deals it again)")


def _summary(rec: GameRecord, names: tuple[str, str], state: Any, seed: int, dealer: Dealer,
             extra: dict | None = None) -> dict:
    """The result dict ``cardwar play --json`` prints once the game is over (the record, whose seed is the
    deal's, included)."""
    out: dict = {"seed": seed, "secret": dealer.secret, "deal_seed": json_int(rec.seed), **(extra or {})}
    if not rec.finished:
        return {**out, "winner": None, "moves": len(rec.moves), "abandoned": True, "record": rec.to_dict()}
    return {**out, "winner": None if state.winner is None else names[state.winner], "moves": len(rec.moves),
            "turns": state.turn, "result": state.result, "returns": state.returns(), "record": rec.to_dict()}


# ---------------------------------------------------------------- each game's presentation
@dataclass(frozen=True)
class PlayStyle:
    """How ``cardwar play`` and ``cardwar replay`` present one game (everything else comes from the registry).

    ``viewers`` maps the ``--viewer`` names the game takes to the renderers' viewer (0, 1, None, "omniscient");
    ``seat_names`` name the seats in move lines, ``winner_names`` in result lines, ``json_names`` in the
    ``--json`` winner. ``intro(env, specs)`` gives the opening lines, ``person_view(env)`` the function that
    draws a person's board from their view, ``describe(detail, winner, state)`` the result in words
    (``state``: any state of the game, for its names), ``turn_starts(out)`` the new-turn test, ``header(state,
    viewer_name, record)`` a replay's scenario lines.
    """

    seat_names: tuple[str, str]
    winner_names: tuple[str, str]
    json_names: tuple[str, str]
    viewers: dict[str, Any]
    intro: Callable[[Any, tuple[str, str]], list[str]]
    person_view: Callable[[Any], Callable[[Any], str]]
    describe: Callable[[dict | None, int | None, Any], str]
    turn_starts: Callable[[Callable[[str], None]], Callable[[Any], bool]] = fresh_turns
    header: Callable[[Any, str, Any], list[str]] = lambda state, viewer_name, record: []
    board: Callable[[Any, Any], str] | None = None
    """``board(state, viewer)`` for the printout and replays; None: the registry's ``render_text``."""
    omniscient_move_lines: bool = False
    """Print each move in notation (``  12. Captain A: deploy 7H A``) when the printout is omniscient."""
    extra_viewer_note: str = field(default="")


def generic_style(game: str) -> PlayStyle:
    """The presentation of a game that names no style: seat names from the registry, its own text render for
    a person (the renderer's seat view), the winner by seat name."""
    g = games.get(game)
    seats = tuple(g.seats)

    def intro(env: Any, specs: tuple[str, str]) -> list[str]:
        return [f"{g.title}: " + ", ".join(f"{s} = {spec}" for s, spec in zip(seats, specs))]

    def person_view(env: Any) -> Callable[[Any], str]:
        return lambda view: g.hook("render_text")(env.game, g.seat_of(view))

    def describe(detail: dict | None, winner: int | None, state: Any) -> str:
        return "a draw" if winner is None else f"{seats[winner]} wins"

    return PlayStyle(seats, seats, seats, {**COMMON_VIEWERS, seats[0]: 0, seats[1]: 1}, intro, person_view,
                     describe)


_STYLES: dict[int, tuple[Any, PlayStyle]] = {}


def style_of(game: str) -> PlayStyle:
    """The game's :class:`PlayStyle`: the registry's ``extra["play_style"]`` (a style, or a function that returns
    one or its fields as a dict, called once a process: ``"cardwar.envs.mygame.play_style:style"``; ``viewers``
    then names the game's own seats, :data:`COMMON_VIEWERS` are added), else :func:`generic_style`."""
    g = games.get(game)
    ref = g.extra.get("play_style")
    if ref is None:
        return generic_style(game)
    cached = _STYLES.get(id(g))
    if cached is None or cached[0] is not g:
        found = games.resolve(ref)
        if not isinstance(found, PlayStyle):
            found = found()
        if isinstance(found, dict):  # a game's fields: it need not import the cli
            found = PlayStyle(**{**found, "viewers": {**COMMON_VIEWERS, **found.get("viewers", {})}})
        cached = _STYLES[id(g)] = (g, found)
    return cached[1]


# ---------------------------------------------------------------- one game, any game
def told(game: str, viewer: Any) -> Callable[[Any, int, Any], list[str]]:
    """The game's public narration of a move, as far as ``viewer`` is told of the move at all: nothing for a
    move the game's ``seen_notation`` keeps from that seat (the skirmish's hidden declaration steps, RULES.md
    §9.1: even their number would tell how a side declared). A spectator is told what the seat not moving is."""
    g = games.get(game)
    narrate = g.hook("narrate")
    if viewer == "omniscient" or g.seen_notation is None:
        return narrate

    def lines(before: Any, action: int, after: Any) -> list[str]:
        mover = before.current_player
        seat = viewer if viewer in (0, 1) else 1 - mover
        return [] if g.seen(before, action, after, seat) is None else narrate(before, action, after)

    return lines


def play_any(game: str, *, seed: int, spec_a: str, spec_b: str, viewer: Any = None, scenario: str | None = None,
             rules: Any = None, quiet: bool = False, png: str | None = None, out: Callable[[str], None] = print,
             read: Callable[[str], str] = ask, save: str | None = None, dealer: Dealer | None = None) -> dict:
    """``cardwar play GAME``: :func:`play_game` with the viewer as the renderers take it (0, 1, None for a
    spectator, ``"omniscient"``) or a ``--viewer`` name."""
    return play_game(game, seed, spec_a, spec_b, viewer, scenario=scenario, rules=rules, quiet=quiet, png=png,
                     out=out, read=read, save=save, dealer=dealer)


def play_game(game: str, seed: int, spec_a: str, spec_b: str, viewer: Any = "spectator", *,
              scenario: str | None = None, rules: Any = None, quiet: bool = False, png: str | None = None,
              out: Callable[[str], None] = print, read: Callable[[str], str] = ask, save: str | None = None,
              dealer: Dealer | None = None) -> dict:
    """Play one seeded game of ``game``; print the board each turn and the public log of every move.

    The printout shows what ``viewer`` may know (a name of the game's style: ``spectator``,
    ``omniscient``, ``A``/``B`` or a seat name; or 0, 1, None, ``"omniscient"``); a person (spec
    ``human``) sees only their seat, and is asked their moves in the game's notation. ``scenario`` (games
    with scenarios; default the game's) and ``rules`` (a dict of options, or the game's rules object) set the
    game up. ``png`` writes the final
    picture (games with one), ``save`` the game record. ``dealer`` keys the deal and the bots' seeds
    (default: a fresh secret; ``Dealer(None)``: the research seeds); both are printed once the game is over.
    Returns what ``--json`` prints.
    """
    g = games.get(game)
    style = style_of(game)
    if isinstance(viewer, str) and viewer in style.viewers:
        viewer = style.viewers[viewer]
    elif viewer not in (0, 1, None, "omniscient") or isinstance(viewer, bool):
        raise ValueError(f"viewer {viewer!r} is not one of {', '.join(style.viewers)} for the {game} game")
    if png is not None and g.render_picture is None:
        raise ValueError(f"--png draws a picture of the map; the {game} game has no picture")
    specs = (spec_a, spec_b)
    who = _viewer(viewer, specs)
    if g.has_scenarios:
        scenario = scenario or g.default_scenario
        env = g.make_env(scenario=scenario, rules=rules)
    else:
        if scenario is not None:
            raise ValueError(f"the {game} game has no scenarios; leave --scenario out")
        env = g.make_env(rules=rules)
    dealer = dealer or Dealer.fresh()
    env.reset(seed=dealer.deal(seed))
    screen = Screen(out)
    picture = g.hook("render_picture") if g.render_picture is not None else None

    def picture_for(seat: int) -> Callable[[str], str]:
        def write(path: str) -> str:
            from PIL import Image

            Image.fromarray(picture(env.game, seat)).save(path)
            return path
        return write

    players = _seat_players(game, specs, seed, dealer, lambda i: HumanPlayer(
        game, i, show=style.person_view(env), read=read, out=out,
        picture=picture_for(i) if picture is not None else None, screen=screen))
    if not quiet:
        for line in style.intro(env, specs):
            out(line)
    new_turn = style.turn_starts(out)
    render = style.board or g.hook("render_text")

    def move_line(n: int, before: Any, action: int) -> str:
        return f"  {n:3d}. {style.seat_names[before.current_player]}: {g.to_string(action)}"

    rec, _ = _run(env, game, specs, dealer.deal(seed), players, lambda st: render(st, who), told(game, who),
                  new_turn, screen, quiet, save, scenario=scenario if g.has_scenarios else None,
                  move_line=move_line if who == "omniscient" and style.omniscient_move_lines else None)
    s = env.game
    if not quiet:
        _seeds_said(out, seed, dealer)
    if rec.finished:
        if not quiet:
            screen.board(render(s, who))
        out(f"Result: {style.describe(s.result, s.winner, s)}")
        if png:
            from PIL import Image

            Image.fromarray(picture(s, who)).save(png)
            out(f"Picture written to {png}")
    extra = {"scenario": s.scenario.name} if g.has_scenarios else {}
    return _summary(rec, style.json_names, s, seed, dealer, extra)
