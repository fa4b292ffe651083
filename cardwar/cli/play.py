"""Games between two players (agents or a person) through the AEC envs, narrated move by move.

One loop (:func:`_narrated_game`) plays both games: it prints the board once a turn
(a person's own decisions show it again only when it has changed), the public
narration of every move, and collects the moves for the game record
(:mod:`cardwar.record`), which ``save`` writes when the game ends or a person quits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardwar.arena.seeds import Dealer
from cardwar.cli.human import HumanPlayer, QuitGame, Screen
from cardwar.record import SEATS, GameRecord, Move, result_of

_VIEWERS = {"spectator": None, "omniscient": "omniscient", "A": 0, "B": 1}


def _narrated_game(env: Any, players: dict[str, Any], board: Callable[[Any], str], narrate_fn: Callable,
                   new_turn: Callable[[Any], bool], screen: Screen, quiet: bool, to_str: Callable[[int], str],
                   moves: list[Move], move_line: Callable | None = None) -> str | None:
    """Drive ``env`` with ``players``, appending each move to ``moves``; print ``board(state)`` when
    ``new_turn(state)`` says so and the public narration of every move. Returns the seat of a
    person who quit, or None when the game ended."""
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if not quiet and new_turn(env.state):
            screen.board(board(env.state))
        try:
            action = players[agent].act(obs, env.view(agent))
        except QuitGame as stop:
            screen.out(f"Game abandoned: {stop}")
            return agent
        before = env.state.clone()
        env.step(action)
        moves.append(Move(agent, to_str(action)))
        if not quiet:
            if move_line is not None:
                screen.out(move_line(len(moves), before, action))
            for line in narrate_fn(before, action, env.state):
                screen.out("       " + line)
    return None


def turn_starts(game: str, out: Callable[[str], None]) -> Callable[[Any], bool]:
    """``new_turn(state)``: True the first time a turn is seen (naval: from its first action, saying who
    goes first on turn 1), so the board is printed once a turn (play and replay alike)."""
    seen: set[int] = set()

    def naval(state: Any) -> bool:  # as `cardwar play`: once a turn, from its first action
        if state.phase.name != "ACTION" or state.turn in seen:
            return False
        seen.add(state.turn)
        if state.turn == 1:
            out(f"Captain {'AB'[state.first_player]} goes first")
        return True

    def hexwar(state: Any) -> bool:
        fresh = state.turn not in seen
        seen.add(state.turn)
        return fresh

    return naval if game == "naval" else hexwar


def _seat_players(game: str, specs: tuple[str, str], seed: int, dealer: Dealer,
                  human: Callable[[int], HumanPlayer]) -> dict:
    """The player of each seat: a person for ``human``, else the agent the spec names (seeded by the dealer)."""
    from cardwar.players import make_player

    return {name: human(i) if spec == "human" else make_player(spec, game, seed=dealer.seat(seed, i))
            for i, (name, spec) in enumerate(zip(SEATS[game], specs))}


def _viewer(who: Any, specs: tuple[str, str]) -> Any:
    """Whose knowledge the printout shows: a lone person sees only their own seat's view,
    two people at one terminal see the spectator's board between their own decisions."""
    people = [i for i, spec in enumerate(specs) if spec == "human"]
    return who if not people else people[0] if len(people) == 1 else None


def _run(env: Any, game: str, specs: tuple[str, str], seed: int, players: dict, board: Callable, narrate_fn: Callable,
         new_turn: Callable, screen: Screen, quiet: bool, save: str | None, scenario: str | None = None,
         move_line: Callable | None = None) -> tuple[GameRecord, str | None]:
    """Play the game and build its record (saved to ``save`` even if the game is interrupted)."""
    if game == "naval":
        from cardwar.envs.naval import action_to_string
    else:
        from cardwar.envs.hexwar.actions import action_to_string  # type: ignore[assignment]
    moves: list[Move] = []
    quit_by: str | None = None

    def record() -> GameRecord:
        s = env.state
        return GameRecord(game=game, seed=seed, players=dict(zip(SEATS[game], specs)), moves=tuple(moves),
                          rules=env.config.to_dict(), scenario=scenario,
                          scenario_data=s.scenario.to_dict() if game == "hexwar" else None,
                          finished=s.is_terminal(), result=result_of(s, SEATS[game]) if s.is_terminal() else None,
                          quit_by=quit_by)
    try:
        quit_by = _narrated_game(env, players, board, narrate_fn, new_turn, screen, quiet, action_to_string, moves,
                                 move_line)
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
    out: dict = {"seed": seed, "secret": dealer.secret, "deal_seed": rec.seed, **(extra or {})}
    if not rec.finished:
        return {**out, "winner": None, "moves": len(rec.moves), "abandoned": True, "record": rec.to_dict()}
    return {**out, "winner": None if state.winner is None else names[state.winner], "moves": len(rec.moves),
            "turns": state.turn, "result": state.result, "returns": state.returns(), "record": rec.to_dict()}


def play_naval(config: Any, seed: int, spec_a: str, spec_b: str, viewer: str = "spectator",
               quiet: bool = False, out: Callable[[str], None] = print, read: Callable[[str], str] = input,
               save: str | None = None, dealer: Dealer | None = None) -> dict:
    """Play one seeded game; print the board each turn and a public log line per move.

    The printout shows what ``viewer`` may know: a spectator sees no hand, ``A``
    or ``B`` sees that captain's hand, ``omniscient`` sees everything and the
    face-down cards in the move list. A person (spec ``human``) sees only their seat.
    ``save`` writes the game record there. ``dealer`` keys the deal and the bots' seeds
    (default: a fresh secret; ``Dealer(None)``: the research seeds); both are printed once the game is over.
    """
    from cardwar.envs import naval_v0
    from cardwar.envs.naval import action_to_string
    from cardwar.envs.naval.render import narrate, render_state, render_view
    from cardwar.envs.naval.scoring import describe_result

    if viewer not in _VIEWERS:
        raise ValueError(f"viewer {viewer!r} is not one of {', '.join(_VIEWERS)} for the naval game")
    specs = (spec_a, spec_b)
    who = _viewer(_VIEWERS[viewer], specs)
    screen = Screen(out)
    dealer = dealer or Dealer.fresh()
    players = _seat_players("naval", specs, seed, dealer, lambda i: HumanPlayer(
        "naval", i, show=render_view, read=read, out=out, screen=screen))
    env = naval_v0.raw_env(rules=config)
    env.reset(seed=dealer.deal(seed))
    if not quiet:
        out(f"Hit the Deck!: Captain A = {spec_a}, Captain B = {spec_b}")
    new_turn = turn_starts("naval", out)

    def move_line(n: int, before: Any, action: int) -> str:
        return f"  {n:3d}. Captain {'AB'[before.current]}: {action_to_string(action)}"

    rec, _ = _run(env, "naval", specs, dealer.deal(seed), players, lambda st: render_state(st, who), narrate,
                  new_turn, screen, quiet, save, move_line=move_line if who == "omniscient" else None)
    s = env.state
    if not quiet:
        _seeds_said(out, seed, dealer)
    if rec.finished:
        if not quiet:
            screen.board(render_state(s, who))
        out(f"Result: {describe_result(s.result, s.winner)}")
    return _summary(rec, ("A", "B"), s, seed, dealer)


def play_hexwar(scenario: str, rules: dict, seed: int, spec_blue: str, spec_red: str, viewer: str = "spectator",
                quiet: bool = False, png: str | None = None, out: Callable[[str], None] = print,
                read: Callable[[str], str] = input, save: str | None = None, dealer: Dealer | None = None) -> dict:
    """Play one seeded hex game; print the map each turn and a line per move.

    ``png`` writes the final map picture (as the printout's viewer sees it) to that
    path; ``save`` writes the game record there. ``dealer`` as in :func:`play_naval`.
    """
    from cardwar.envs import hexwar_v0
    from cardwar.envs.hexwar.picture import render_rgb
    from cardwar.envs.hexwar.text import describe_result, narrate, render_state
    from cardwar.envs.hexwar.text import render_view as hex_view_text

    specs = (spec_blue, spec_red)
    who = _viewer({"spectator": None, "omniscient": "omniscient", "blue": 0, "red": 1}[viewer], specs)
    env = hexwar_v0.raw_env(scenario=scenario, rules=rules)
    dealer = dealer or Dealer.fresh()
    env.reset(seed=dealer.deal(seed))
    screen = Screen(out)

    def picture_for(seat: int) -> Callable[[str], str]:
        def write(path: str) -> str:
            from PIL import Image

            Image.fromarray(render_rgb(env.state, seat)).save(path)
            return path
        return write

    players = _seat_players("hexwar", specs, seed, dealer, lambda i: HumanPlayer(
        "hexwar", i, show=lambda v: hex_view_text(v, env.scenario), read=read, out=out, picture=picture_for(i),
        screen=screen))
    if not quiet:
        from cardwar.envs.hexwar.view import public_map

        shown = public_map(env.scenario)  # a procedural map with hidden units does not show its generator seed
        out(f"{shown.title}: blue = {spec_blue}, red = {spec_red}")
        if shown.description:
            out(shown.description)
    new_turn = turn_starts("hexwar", out)

    rec, _ = _run(env, "hexwar", specs, dealer.deal(seed), players, lambda st: render_state(st, who), narrate,
                  new_turn, screen, quiet, save, scenario=scenario)
    s = env.state
    if not quiet:
        _seeds_said(out, seed, dealer)
    if rec.finished:
        if not quiet:
            screen.board(render_state(s, who))
        out(f"Result: {describe_result(s.result, s.winner)}")
        if png:
            from PIL import Image

            Image.fromarray(render_rgb(s, who)).save(png)
            out(f"Picture written to {png}")
    return _summary(rec, ("blue", "red"), s, seed, dealer, {"scenario": s.scenario.name})
