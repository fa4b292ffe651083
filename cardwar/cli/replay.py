"""``cardwar replay``: play a recorded game back, move by move, as a chosen viewer saw it.

A game comes from a record file (``cardwar play --save``, the ``record`` field of
``cardwar play --json``, or that whole ``--json`` printout) or from a tournament
database (``--db FILE --game ID``; ``--list`` shows the stored games). The record is
replayed and checked whole (:func:`cardwar.record.replay_states`) before anything is
printed, so a broken record is one line, not half a game.

What is shown follows the viewer, through the games' own render functions and
their public narration: ``omniscient`` (the default for a finished game: both
hands, hidden units, face-down cards named in the move list), ``spectator``, or a
seat (``A``/``B``, or the game's seat names: ``captain_a``, ``blue``, ``player_1``),
which sees its own moves in notation and the other seat's as the public log tells
them, never the other hand or a hidden unit; a move the game keeps from that seat
altogether (a skirmish's hidden declaration step) is not shown at all.

A game with a picture (the hex game, the skirmish) can also be drawn: one PNG per
position (``frame_0000.png`` is the deal, ``frame_0001.png`` the position after move
1, ...) or an animated GIF with one frame per position, both from the game's
``render_picture`` as the viewer may see it.

Everything game-specific comes from the game registry (:mod:`cardwar.games`) and the
game's presentation (:func:`cardwar.cli.play.style_of`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardwar import games
from cardwar.cli.play import style_of, turn_starts
from cardwar.record import GameRecord, RecordError, replay_states

VIEWERS = ("spectator", "omniscient", "A", "B")
"""The ``--viewer`` names every game takes, besides its own seat names."""
FRAME_NAME = "frame_{:04d}.png"
_FRAME_RE = re.compile(r"frame_(\d{4,})\.png")
MAX_FPS = 50.0
"""GIF frame delays are in hundredths of a second, and viewers slow anything under 20 ms down."""


class ReplayError(ValueError):
    """A mistake in what was asked of ``cardwar replay`` (one line, exit status 2)."""


# ---------------------------------------------------------------- reading games
def load_record(path: str | os.PathLike) -> GameRecord:
    """The record in ``path``: a record file, or ``cardwar play --json`` output (its ``record`` field).

    :class:`RecordError` names the file and, for a malformed record, the field.
    """
    p = Path(path)
    if not p.exists():
        raise RecordError(f"{path}: no such file")
    if p.is_dir():
        raise RecordError(f"{path} is a folder, not a game record")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RecordError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    try:
        return GameRecord.from_json(text)
    except RecordError as err:
        wrapped = _play_json(text)
        if wrapped is None:
            raise RecordError(f"{path}: {err}") from None
    try:
        return GameRecord.from_dict(wrapped)
    except RecordError as err:
        raise RecordError(f"{path}: record.{err}") from None


def _play_json(text: str) -> dict | None:
    """The ``record`` object of ``cardwar play --json`` output (the JSON line last, maybe after the game's text)."""
    candidates = [text] + [line for line in reversed(text.splitlines()) if line.lstrip().startswith("{")][:1]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "format" not in data and isinstance(data.get("record"), dict):
            return data["record"]
    return None


def open_store(path: str | os.PathLike) -> Any:
    """The tournament store at ``path``, read-only: it must already be a cardwar database, and nothing is written.

    Read-only media are fine (``mode=ro``, or ``immutable=1`` where SQLite cannot make its
    shared-memory file); a database of an older layout is read through a migrated copy in memory.
    """
    from cardwar.tournament.store import Store

    p = Path(path)
    if not p.exists():
        raise ReplayError(f"--db {path}: no such file")
    if p.is_dir():
        raise ReplayError(f"--db {path} is a folder, not a tournament database")
    try:
        return Store(p, readonly=True)
    except ValueError as err:
        raise ReplayError(f"--db {err}") from None
    except sqlite3.Error as err:
        raise ReplayError(f"--db {path}: cannot open: {err}") from None


def db_record(store: Any, game_id: int) -> tuple[GameRecord, Any]:
    """The record of stored game ``game_id`` and its row; one-line errors for a bad id or record."""
    try:
        row = store.game(game_id)
        if row is None:
            raise ReplayError(f"--db {store.path}: no game with id {game_id} (--list shows the stored games)")
        try:
            return store.record(game_id), row
        except RecordError as err:
            raise RecordError(f"--db {store.path}, game {game_id}: {err}") from None
    except sqlite3.Error as err:
        raise ReplayError(f"--db {store.path}: cannot read game {game_id}: {err}") from None


def _score(score_first: float) -> str:
    return {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}.get(float(score_first), f"{score_first:g}")


def list_games(store: Any, tournament: str | None = None, out: Callable[[str], None] = print) -> int:
    """Print the stored games (id, pairing, seats, result, length, forfeit); returns how many."""
    try:
        names = store.tournaments()
        if tournament is not None and tournament not in names:
            known = ", ".join(names) if names else "none"
            raise ReplayError(f"--db {store.path}: no tournament {tournament!r} (tournaments: {known})")
        shown = 0
        for name in ([tournament] if tournament is not None else names):
            rows = store.games(name)
            out(f"tournament {name}: {len(rows)} game{'s' if len(rows) != 1 else ''}")
            table = [("id", "pairing", "pair.game", "seats", "result", "moves", "forfeit")]
            for r in rows:
                try:
                    name = json.loads(r.record).get("game")
                    seats = games.get(name).seats if games.known(name) else ("first", "second")
                except (json.JSONDecodeError, AttributeError):
                    seats = ("first", "second")
                forfeit = "-" if r.forfeit_seat is None else \
                    f"{seats[r.forfeit_seat]} {r.forfeit_reason}: {r.forfeit_detail or ''}".rstrip(": ")
                table.append((str(r.id), str(r.pairing), f"{r.pair}.{r.game_in_pair}",
                              f"{r.first} ({seats[0]}) vs {r.second} ({seats[1]})", _score(r.score_first),
                              str(r.length), forfeit))
            widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
            for row in table:
                cells = [c.rjust(w) if k in (0, 1, 2, 5) else c.ljust(w) for k, (c, w) in enumerate(zip(row, widths))]
                out(("  " + "  ".join(cells)).rstrip())
            shown += len(rows)
        if not names:
            out(f"{store.path}: no tournament stored yet")
        return shown
    except sqlite3.Error as err:
        raise ReplayError(f"--db {store.path}: cannot read the games: {err}") from None


# ---------------------------------------------------------------- the replay
@dataclass
class _Game:
    """What a replay needs of one game: its notation, narration, boards and seat names."""

    record: GameRecord
    states: list[Any]
    actions: list[int]
    narrate: Callable[[Any, int, Any], list[str]]
    board: Callable[[Any, Any], str]
    describe: Callable[[dict | None, int | None], str]
    seat_names: tuple[str, str]
    """How the narration names the seats (``Captain A``, ``blue``)."""
    winner_names: tuple[str, str]
    """How a result line names them (``Captain A``, ``Blue``)."""


def viewer_of(game: str, name: str) -> int | str | None:
    """``--viewer`` as the render functions take it: a seat (0/1), None (spectator) or ``"omniscient"``. A seat
    is ``A``/``B`` or any name ``cardwar play`` takes (the game's seat names, first/second, ...)."""
    from cardwar.cli import UsageError, seat_of

    low = str(name).strip().lower()
    if low in ("omniscient", "all", "everything"):
        return "omniscient"
    if low in ("spectator", "public"):
        return None
    aliases = {k.lower(): v for k, v in style_of(game).viewers.items()}
    if low in aliases:
        return aliases[low]
    try:
        return seat_of(game, name, "--viewer")
    except UsageError as err:
        raise ReplayError(f"{err}; or spectator, omniscient") from None


def default_viewer(record: GameRecord) -> str:
    """Everything may be shown once the game is over; an abandoned game shows the spectator's board."""
    return "omniscient" if record.finished else "spectator"


def prepare(record: GameRecord) -> _Game:
    """Replay (and so check) the whole record; :class:`RecordError` names a bad move or field."""
    states = list(replay_states(record))
    g, style = games.get(record.game), style_of(record.game)
    first = states[0]
    return _Game(record, states, [g.parse(m.move) for m in record.moves], g.hook("narrate"),
                 style.board or g.hook("render_text"), lambda detail, winner: style.describe(detail, winner, first),
                 style.seat_names, style.winner_names)


def _rules_line(record: GameRecord) -> str:
    default = games.get(record.game).default_rules()
    changed = [f"{k}={json.dumps(v)}" for k, v in record.rules.items() if default.get(k, object()) != v]
    return "default" if not changed else ", ".join(changed) + " (others default)"


def _viewer_words(name: str, g: _Game) -> str:
    if name == "omniscient":
        return "omniscient (everything: both hands, face-down cards, hidden units)"
    if name == "spectator":
        return "spectator (the public board: no hand, no face-down card, no hidden unit)"
    seat = viewer_of(g.record.game, name)
    return f"{g.seat_names[seat]} (what that seat saw: its own side, the other's as the public log tells it)"


def header_lines(g: _Game, viewer_name: str, source: str | None = None) -> list[str]:
    """The setup: game, scenario, players per seat, seed, rules, viewer, length."""
    rec = g.record
    game = games.get(rec.game)
    lines = [f"Replay: {game.title}, record of cardwar {rec.cardwar_version}" + (f", {source}" if source else "")]
    lines += style_of(rec.game).header(g.states[0], viewer_name, rec)
    if rec.finished or viewer_name == "omniscient":  # a seat replaying a game still in play never learns the deal
        lines.append(f"Seed: {rec.seed}")
    else:
        lines.append("Seed: shown once the game is over")
    seats = games.get(rec.game).seats
    lines.append("Players: " + ", ".join(f"{g.seat_names[i]} = {rec.players[s]}" for i, s in enumerate(seats)))
    lines.append(f"Rules: {_rules_line(rec)}")
    lines.append(f"Viewer: {_viewer_words(viewer_name, g)}")
    n = len(rec.moves)
    forfeit = (rec.result or {}).get("forfeit")
    end = ("ended by a forfeit" if forfeit else "finished") if rec.finished else "not finished"
    lines.append(f"Moves: {n}, {end}")
    return lines


def result_line(g: _Game) -> str:
    """The last line of a full replay: the record's result, a forfeit with its reason, or why there is none."""
    rec, seats = g.record, games.get(g.record.game).seats
    if not rec.finished:
        who = f" ({g.winner_names[seats.index(rec.quit_by)]} quit)" if rec.quit_by else ""
        return f"Result: none, the game was abandoned after {len(rec.moves)} moves{who}"
    res = rec.result or {}
    winner = None if res.get("winner") is None else seats.index(res["winner"])
    forfeit = res.get("forfeit")
    if forfeit is not None:
        loser = g.winner_names[seats.index(forfeit["seat"])]
        won = "nobody wins" if winner is None else f"{g.winner_names[winner]} wins"
        detail = f": {forfeit['detail']}" if forfeit.get("detail") else ""
        return (f"Result: {won} by forfeit, {loser} forfeited after move {len(rec.moves)} "
                f"({forfeit['reason']}{detail})")
    return f"Result: {g.describe(res.get('detail'), winner)}"


def replay_text(g: _Game, viewer_name: str, to: int | None = None, step: bool = False,
                out: Callable[[str], None] = print, read: Callable[[str], str] | None = None,
                quiet: bool = False, source: str | None = None) -> int:
    """Print the game as ``viewer_name`` saw it; returns the number of moves shown.

    ``to`` stops after that move; ``step`` waits for Enter after each move (``read``
    is the input function, given only when it is a terminal; ``q`` stops there).
    ``quiet`` prints only the result (or where the replay stopped).
    """
    from cardwar.cli.human import Screen

    rec = g.record
    viewer = viewer_of(rec.game, viewer_name)
    n = len(rec.moves)
    stop = n if to is None else min(to, n)
    screen = Screen(out)
    if not quiet:
        for line in header_lines(g, viewer_name, source):
            out(line)
    new_turn = turn_starts(rec.game, out if not quiet else (lambda _: None))
    game = games.get(rec.game)
    shown = 0
    for i in range(stop):
        before, after, move = g.states[i], g.states[i + 1], rec.moves[i]
        seat = game.seats.index(move.seat)
        told = viewer == "omniscient" or game.seen(before, g.actions[i], after,
                                                    viewer if viewer in (0, 1) else 1 - seat) is not None
        if not quiet and told:  # a move kept from the viewer altogether (a hidden declaration step) is not shown
            if new_turn(before):
                screen.board(g.board(before, viewer))
            sees = viewer == "omniscient" or viewer == seat  # its own moves in notation, the other's as narrated
            out(f"  {i + 1:3d}. {g.seat_names[seat]}" + (f": {move.move}" if sees else ""))
            for line in g.narrate(before, g.actions[i], after):
                out("       " + line)
        shown = i + 1
        if step and read is not None and not quiet and shown < stop and told:
            try:
                answer = read("-- Enter: next move, q: stop -- ")
            except EOFError:
                step = False
                continue
            if answer.strip().lower() in ("q", "quit", "stop"):
                break
    if not quiet:
        screen.board(g.board(g.states[shown], viewer))
    if shown == n:
        out(result_line(g))
    else:
        out(f"Stopped after move {shown} of {n}" + (" (--to)" if to is not None and shown == to else ""))
    return shown


# ---------------------------------------------------------------- pictures (games with one)
def check_picture_targets(game: str, frames_dir: str | None, gif: str | None, fps: float | None) -> None:
    """One-line errors, before anything is drawn, for pictures of a game without any or places that cannot
    be written."""
    from cardwar.record import check_writable

    if (frames_dir is not None or gif is not None) and games.get(game).render_picture is None:
        flag = "--png-frames" if frames_dir is not None else "--gif"
        raise ReplayError(f"{flag} draws the map; the {game} game has no picture")
    if fps is not None and gif is None:
        raise ReplayError("--fps sets the speed of --gif; give --gif FILE.gif too")
    if fps is not None and not 0.1 <= fps <= MAX_FPS:
        raise ReplayError(f"--fps must be between 0.1 and {MAX_FPS:g}, got {fps:g}")
    if gif is not None:
        if not gif.lower().endswith(".gif"):
            raise ReplayError(f"--gif {gif}: give a file name ending in .gif")
        try:
            check_writable(gif)
        except ValueError as err:
            raise ReplayError(f"--gif: {err}") from None
        _probe(Path(gif).parent if str(Path(gif).parent) else Path("."), f"--gif: cannot write {gif}")
    if frames_dir is not None:
        d = Path(frames_dir)
        if d.exists() and not d.is_dir():
            raise ReplayError(f"--png-frames {frames_dir} is a file; give a folder")
        if not d.exists():
            try:
                d.mkdir(parents=True)
            except OSError as err:
                raise ReplayError(f"--png-frames: cannot make folder {frames_dir}: "
                                  f"{err.strerror or err}") from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise ReplayError(f"--png-frames: cannot write in {frames_dir}: permission denied")
        _probe(d, f"--png-frames: cannot write in {frames_dir}")


def _probe(folder: Path, message: str) -> None:
    """Write (and remove) a scratch file in ``folder``: the one check that also holds for root and odd file systems."""
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".cardwar-replay-", suffix=".tmp"):
            pass
    except OSError as err:
        raise ReplayError(f"{message}: {err.strerror or err}") from None


def _rgb_frames(states: Sequence[Any], viewer: Any, game: str):
    render = games.get(game).hook("render_picture")
    for s in states:
        yield render(s, viewer)


def _palette_image(states: Sequence[Any], viewer: Any, game: str) -> Any:
    """One 256-colour palette for the whole GIF, from a few positions spread over the game (fast, and
    every frame's colours mean the same: small files, no flicker)."""
    import numpy as np
    from PIL import Image

    picks = sorted({round(k * (len(states) - 1) / 7) for k in range(8)})
    sample = np.concatenate(list(_rgb_frames([states[k] for k in picks], viewer, game)), axis=0)
    return Image.fromarray(sample).quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def gif_delay_ms(fps: float) -> int:
    """The frame delay for ``fps``: a GIF counts in hundredths of a second (20 ms at least)."""
    return max(20, round(100 / fps) * 10)


class _GifFrames:
    """Frames quantized to one palette as they come; a frame equal to the one before gets one corner
    pixel changed, since Pillow merges equal frames and a replay has one frame per position."""

    def __init__(self, palette: Any) -> None:
        self.palette, self.frames, self.last = palette, [], None

    def add(self, rgb: Any) -> None:
        import numpy as np
        from PIL import Image

        im = Image.fromarray(rgb).quantize(palette=self.palette, dither=Image.Dither.NONE)
        idx = np.asarray(im)
        if self.last is not None and np.array_equal(idx, self.last):
            idx = idx.copy()
            idx[0, 0] = (int(idx[0, 0]) + 1) % 256
            im = Image.fromarray(idx, mode="P")
            im.putpalette(self.palette.getpalette())
        self.last = np.asarray(im)
        self.frames.append(im)

    def save(self, path: str | os.PathLike, fps: float) -> None:
        tmp = Path(path).with_name(Path(path).name + ".tmp")  # a crash leaves no half GIF
        try:
            self.frames[0].save(tmp, format="GIF", save_all=True, append_images=self.frames[1:],
                                duration=gif_delay_ms(fps), loop=0)
            os.replace(tmp, path)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise ReplayError(f"--gif: cannot write {path}: {err.strerror or err}") from None


def write_pictures(states: Sequence[Any], viewer: Any, frames_dir: str | os.PathLike | None = None,
                   gif: str | os.PathLike | None = None, fps: float = 4.0, *, game: str) -> list[Path]:
    """Draw each position of ``game`` once (its ``render_picture`` as ``viewer`` sees it) into ``frames_dir``
    and/or ``gif``.

    Frames are ``frame_0000.png`` (the deal) to ``frame_NNNN.png`` (after move N); frames
    left in the folder by a longer replay are removed, so it holds exactly this game. The
    GIF has one frame per position, ``fps`` a second, looping. Returns the PNG paths.
    """
    from PIL import Image

    gif_frames = _GifFrames(_palette_image(states, viewer, game)) if gif is not None else None
    paths: list[Path] = []
    d = Path(frames_dir) if frames_dir is not None else None
    try:
        for k, rgb in enumerate(_rgb_frames(states, viewer, game)):
            if d is not None:
                path = d / FRAME_NAME.format(k)
                Image.fromarray(rgb).save(path, compress_level=3)
                paths.append(path)
            if gif_frames is not None:
                gif_frames.add(rgb)
        if d is not None:
            for old in d.iterdir():
                m = _FRAME_RE.fullmatch(old.name)
                if m and int(m.group(1)) >= len(paths) and old.is_file():
                    old.unlink()
    except OSError as err:
        raise ReplayError(f"--png-frames: cannot write in {frames_dir}: {err.strerror or err}") from None
    if gif_frames is not None:
        gif_frames.save(gif, fps)  # type: ignore[arg-type]
    return paths


# ---------------------------------------------------------------- the command
def run_replay(args: Any, out: Callable[[str], None] = print) -> int:
    """``cardwar replay`` from its parsed arguments (the sub-parser is in :mod:`cardwar.cli`)."""
    if args.list:
        if args.db is None:
            raise ReplayError("--list shows the games of a tournament database; give --db FILE")
        if args.file is not None or args.game is not None:
            raise ReplayError("--list shows the stored games; it takes no FILE and no --game")
        with open_store(args.db) as store:
            list_games(store, args.tournament, out)
        return 0
    if args.tournament is not None:
        raise ReplayError("--tournament goes with --list (a game id is unique in the whole database)")
    source = None
    if args.db is not None:
        if args.file is not None:
            raise ReplayError("give a record FILE or --db FILE --game ID, not both")
        if args.game is None:
            raise ReplayError("--db needs --game ID (or --list to see the stored games)")
        with open_store(args.db) as store:
            record, row = db_record(store, args.game)
        source = (f"{args.db} game {args.game} (pairing {row.pairing}, pair {row.pair}: "
                  f"{row.first} vs {row.second})")
    else:
        if args.game is not None:
            raise ReplayError("--game ID picks a game of a tournament database; give --db FILE too")
        if args.file is None:
            raise ReplayError("give a record FILE, or --db FILE --game ID, or --db FILE --list")
        record = load_record(args.file)
    viewer_name = args.viewer or default_viewer(record)
    viewer = viewer_of(record.game, viewer_name)
    check_picture_targets(record.game, args.png_frames, args.gif, args.fps)
    g = prepare(record)
    read = None
    if args.step:
        try:
            read = input if sys.stdin is not None and sys.stdin.isatty() else None
        except (AttributeError, ValueError):
            read = None
    shown = replay_text(g, viewer_name, to=args.to, step=args.step, out=out, read=read, quiet=args.quiet,
                        source=source)
    states = g.states[:shown + 1]
    if args.png_frames is not None or args.gif is not None:
        fps = 4.0 if args.fps is None else args.fps
        paths = write_pictures(states, viewer, args.png_frames, args.gif, fps, game=record.game)
        if args.png_frames is not None:
            out(f"{len(paths)} frames written to {args.png_frames} ({paths[0].name} .. {paths[-1].name})")
        if args.gif is not None:
            out(f"GIF written to {args.gif} ({len(states)} frames, {fps:g} a second)")
    return 0
