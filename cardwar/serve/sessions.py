"""Sessions: a person's game against a bot, kept in SQLite and in memory.

A session holds a :class:`cardwar.arena.Table`, the bot (any agent of
:mod:`cardwar.serve.bots`) and the seat of the person. After the person's move the
bot plays until it is the person's turn again or the game ends, within the session's
move time; then the record is saved in one transaction. A session not in memory (a
restarted server, or one pushed out of the cache) is rebuilt by replaying its record.

Reads never see a game in the middle of a move: at every commit the state is rendered
for the person's seat and for spectators (:attr:`Session.snapshots`), under the
session's lock, and every read and event stream sends those. A version therefore
names one state, the last one saved.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cardwar import agents, games
from cardwar.agents.spec import AgentSpecError
from cardwar.players import make_player
from cardwar.arena.game import ask
from cardwar.arena.padding import hidden_budget, precise_sleep
from cardwar.arena.table import Table, is_legal
from cardwar.record import GameRecord, RecordError, make_env
from cardwar.serve.bots import bot_spec, thinks_for_move_ms
from cardwar.serve.errors import ServeError, bad_request, not_found
from cardwar.serve.settings import ServerSettings
from cardwar.serve.store import SessionRow, SessionStore, StaleSession
from cardwar.serve.views import session_state

MAX_SEED = 2**53 - 1
"""The largest seed a client may give, and the deal seeds' range: every integer the server sends fits a JavaScript
number exactly (a record's ``seed`` included; docs/serve.md)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def deal_seed(client_seed: int, salt: int) -> int:
    """The seed the game is dealt from: the client's seed mixed with the session's secret salt, so that
    knowing the seed never tells a client the deck, the deal or a hidden unit (it is shown when the game ends)."""
    digest = hashlib.sha256(f"{salt}:{client_seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 11  # 53 bits: exact in JavaScript (MAX_SEED)


def scenarios(game: str) -> list[str]:
    """The scenarios a session may name (the game registry's): the shipped maps and the procedural generator's
    names (no file paths); [] for a game without scenarios."""
    g = games.get(game)
    if not g.has_scenarios:
        return []
    return [*g.scenarios(), *g.random_scenarios]


def seats_of(game: str) -> tuple[str, str]:
    """The seat names of ``game`` (as its records name them)."""
    return tuple(games.get(game).seats)  # type: ignore[return-value]


def play_on(table: Table, public: list[bool], action: int) -> None:
    """Play ``action`` on ``table`` and note whether the other seat was told of it (``public``): a spectator's
    log and whose-move list hold only the moves the seat not making them is told of (a skirmish declaration
    step that caused nothing public is not told, not even that it happened, RULES.md §9.1)."""
    other = 1 - int(table.to_move)  # type: ignore[arg-type]
    told = len(table.history[other].moves)
    table.play(action)
    public.append(len(table.history[other].moves) > told)


def replay(record: GameRecord) -> tuple[Table, list[bool]]:
    """The table a record's moves lead to, with each move's ``public`` flag (:func:`play_on`);
    :class:`RecordError` if a move does not replay."""
    table = Table(make_env(record), record.game, record.seed, specs=tuple(record.players.values()),  # type: ignore[arg-type]
                  scenario=record.scenario)
    public: list[bool] = []
    for i, m in enumerate(record.moves):
        try:
            play_on(table, public, table.parse(m.move))
        except ValueError as err:
            raise RecordError(f"moves[{i}] {m.move!r}: {err}") from None
    return table, public


@dataclass
class Session:
    """One live game: the table, the bot and who plays which seat."""

    id: str
    token_hash: str
    client: str
    settings: dict[str, Any]
    table: Table
    bot: Any
    status: str
    version: int
    touched: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    snapshots: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last committed state: ``"player"`` as the person's seat sees it, ``"public"`` as a spectator does."""
    public: list[bool] = field(default_factory=list)
    """Per move: whether the seat not making it was told of it (:func:`play_on`)."""
    setup: Any = None
    """The public map, once read (:func:`cardwar.serve.views.public_map`; it never changes in a game)."""

    def play(self, action: int) -> None:
        play_on(self.table, self.public, action)

    def render_views(self) -> dict[str, dict[str, Any]]:
        """The state now, for the person's seat and for spectators (what :meth:`commit_views` publishes)."""
        return {"player": session_state(self, self.human), "public": session_state(self, None)}

    def commit_views(self, views: dict[str, dict[str, Any]] | None = None) -> None:
        """Publish the state now, or ``views`` rendered a moment ago (call with the lock held, at a commit): what
        every read sends until the next."""
        self.snapshots = views if views is not None else self.render_views()

    def state(self, spectator: bool = False) -> dict[str, Any]:
        """The last committed state, for the person's seat or a spectator (never a move half played)."""
        return self.snapshots["public" if spectator else "player"]

    @property
    def finished(self) -> bool:
        """The game is over in the last committed state (``over`` may turn true mid-move, before the commit)."""
        return self.state(spectator=True)["status"] == "over"

    @property
    def game(self) -> str:
        return self.table.game

    @cached_property
    def entry(self) -> games.Game:
        """The game's registry entry, resolved once a session: every view and move of it reads this one."""
        return games.get(self.game)

    @property
    def human(self) -> int:
        return int(self.settings["human"])

    @property
    def bot_seat(self) -> int:
        return 1 - self.human

    @property
    def resigned(self) -> bool:
        return bool(self.settings.get("resigned"))

    def record(self) -> GameRecord:
        """The game record so far: a resignation is recorded as terminal play records a quit."""
        if self.resigned:
            return self.table.record(finished=False, quit_by=seats_of(self.game)[self.human])
        forfeit = self.settings.get("bot_forfeit")
        if forfeit:
            seats = seats_of(self.game)
            result = {"winner": seats[self.human], "returns": [1.0, 1.0], "turns": self.table.state.turn,
                      "forfeit": {"seat": seats[self.bot_seat], **forfeit}}
            result["returns"][self.bot_seat] = -1.0
            return self.table.record(finished=True, result=result)
        return self.table.record()

    @property
    def over(self) -> bool:
        return self.table.over or self.resigned or bool(self.settings.get("bot_forfeit"))

    def result(self) -> dict[str, Any] | None:
        """Who won and why, once the game is over."""
        if not self.over:
            return None
        seats = seats_of(self.game)
        if self.resigned:
            return {"winner": seats[self.bot_seat], "resigned": seats[self.human]}
        return self.record().result


@dataclass
class MoveTiming:
    """Where a request's time went: the server's own work and the bot's thinking. Sent to the client only when
    the operator asks (``cardwar serve --timing``): both grow with the bot's hidden steps (docs/serve.md).
    ``pad_ms``, the wait that made the answer take the session's hidden budget (:func:`hidden_budget`), is in
    neither and never sent."""

    server_ms: float = 0.0
    bot_ms: float = 0.0
    pad_ms: float = 0.0


def _preload_model(game: str) -> None:
    """Load the game's shipped ``ppo`` model into the process's model cache (a few seconds, once), if it has
    one: the first session against it then starts at once."""
    if "ppo" not in games.get(game).agents:
        return
    try:
        agents.make("ppo", game, seed=0)
    except AgentSpecError:  # no shipped model (a plug-in game): built on first use, as before
        return
    import torch  # a forward pass a request thread: on 2 busy cores, torch's 2 threads stalled a decision up to
    torch.set_num_threads(1)  # 1 s (skirmish ppo p99 655 ms against 22 ms with one thread; docs/serve.md)


class SessionManager:
    """Creates, finds, plays and expires sessions; the only writer of the store."""

    def __init__(self, settings: ServerSettings, on_change: Callable[[Session], None] | None = None) -> None:
        self.settings = settings
        self.store = SessionStore(settings.db)
        self.on_change = on_change
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        self._reproducible = bool(settings.extra.get("reproducible_seeds"))
        self.clock: Callable[[], float] = time.perf_counter
        """The clock the hidden steps are timed by, and how the server waits out their budget (a test's fakes)."""
        self.sleep: Callable[[float], None] = precise_sleep
        for name in games.names():  # now, once: e.g. naval's hand tables, not on the first battle's clock (0.4 s)
            games.get(name).warm()   # nor built by two requests at once
            _preload_model(name)     # and the trained model it offers, not inside the first request (issue 28)

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ create
    def create(self, request: dict[str, Any], client: str) -> tuple[Session, str, str, MoveTiming]:
        """A new session from a validated request (see ``app.NewSession``); returns it, its token, its
        spectators' (watch) token and the timings."""
        since = self.clock()
        game = request["game"]
        if not games.known(game):  # a 400 like every other unknown name of the request (docs/serve.md, Errors)
            raise bad_request(f"unknown game {game!r}; games: {', '.join(games.names())}")
        g = games.get(game)
        seats = seats_of(game)
        seat = request.get("seat") or seats[0]
        if seat not in seats:
            raise bad_request(f"seat {seat!r}: a {game} seat is one of {', '.join(seats)}")
        scenario = request.get("scenario")
        if not g.has_scenarios and scenario is not None:
            raise bad_request(f"the {game} game has no scenarios; leave scenario out")
        if g.has_scenarios:
            scenario = scenario or g.default_scenario
            if scenario not in scenarios(game):
                raise bad_request(f"unknown scenario {scenario!r}; scenarios: {', '.join(scenarios(game))}")
        move_ms = request.get("move_ms") or self.settings.default_move_ms
        if move_ms > self.settings.max_move_ms:
            raise bad_request(f"move_ms {move_ms} is above this server's limit {self.settings.max_move_ms}")
        agent = request.get("agent") or "heuristic"
        try:
            spec = bot_spec(game, agent, dict(request.get("options") or {}), move_ms)
        except AgentSpecError as err:
            raise bad_request(str(err)) from None
        rules = dict(request.get("rules") or {})
        self._check_room(client)
        client_seed = request.get("seed")
        if client_seed is None:
            client_seed = secrets.randbelow(MAX_SEED)
        seed = client_seed if self._reproducible else deal_seed(client_seed, secrets.randbits(62))
        try:
            env = g.make_env(scenario=scenario, rules=rules)
        except ValueError as err:
            raise bad_request(str(err).splitlines()[0]) from None
        human = seats.index(seat)
        specs = ("human", spec) if human == 0 else (spec, "human")
        table = Table(env, game, seed, specs=specs, scenario=scenario)  # type: ignore[arg-type]
        typed = {k: v for k, v in agents.check_spec(spec, game)[1].items() if k != "seconds"}
        settings = {"game": game, "human": human, "agent": agent, "options": typed,
                    "bot_spec": spec, "move_ms": move_ms, "client_seed": client_seed, "scenario": scenario,
                    "rules": rules}
        token, watch = secrets.token_urlsafe(24), secrets.token_urlsafe(18)
        settings["watch_hash"] = hash_token(watch)
        now = time.time()
        try:
            bot = make_player(spec, game, seed=seed % 2**31 + 1)
        except (AgentSpecError, ValueError) as err:
            raise bad_request(str(err).splitlines()[0]) from None
        session = Session(secrets.token_hex(8), hash_token(token), client, settings, table, bot, "open", 0, now)
        self.store.insert(SessionRow(session.id, session.token_hash, client, now, now, "open", settings,
                                     session.record().to_json(), 0))
        timing = MoveTiming()
        start = time.perf_counter()
        with session.lock:
            pad = self._bot_turns(session, timing)
            self._save(session, timing, since if pad else None)
        with self._lock:
            self._remember(session)
        timing.server_ms = (time.perf_counter() - start) * 1000 - timing.bot_ms - timing.pad_ms
        return session, token, watch, timing

    def _check_room(self, client: str) -> None:
        """429 when this address has as many games in play as it may (a game over, or idle for ``session_idle_s``,
        does not count), saying how to get out; 503 when the server is full."""
        self.expire()
        now, cap, idle = time.time(), self.settings.max_sessions_per_client, self.settings.session_idle_s
        playing, oldest = self.store.active(client, now - idle)
        if playing >= cap:
            wait = max(1, math.ceil((oldest or now) + idle - now))
            raise ServeError(429, f"too many games in play from this address ({playing}; this server's cap is {cap} "
                                  "per address, shared by everyone behind one router): resign one you no longer play "
                                  "(POST /api/sessions/{id}/resign; the page's New game does it), or wait - a game "
                                  f"with no request for {idle:g} s stops counting, the next one in {wait} s",
                             retry_after=wait)
        self._make_room(now)

    def _make_room(self, now: float) -> None:
        """Room for one more session under ``max_sessions``: games in play (a request within ``session_idle_s``)
        count, idle ones do not: when the server holds ``max_sessions`` sessions, the one idle longest is expired
        to make room (410 for it from then on), so idle sessions, one address's or many's, never lock others out
        (issue 28). 503, with when the oldest game in play turns idle, only when every session is in play."""
        cap, idle = self.settings.max_sessions, self.settings.session_idle_s
        if self.store.open_count() < cap:
            return
        playing, oldest = self.store.in_play(now - idle)
        if playing >= cap:
            wait = max(1, math.ceil((oldest or now) + idle - now))
            raise ServeError(503, f"the server holds as many games in play as it may ({cap}); a game with no request "
                                  f"for {idle:g} s gives its place up, the next one in {wait} s", retry_after=wait)
        while self.store.open_count() >= cap:
            sid = self.store.expire_idlest(now - idle)
            if sid is None:
                break
            with self._lock:
                cached = self._cache.pop(sid, None)
            if cached is not None:
                cached.status = "expired"
                if self.on_change is not None:
                    self.on_change(cached)  # its streams end with an error event

    # ------------------------------------------------------------ find
    def get(self, session_id: str) -> Session:
        """The session (from memory, else rebuilt from its record); 404 if unknown, 410 if expired."""
        with self._lock:
            session = self._cache.get(session_id)
            if session is not None:
                self._cache.move_to_end(session_id)
        if session is None:
            session = self._load(session_id)
        if session.status == "open" and time.time() - session.touched > self.settings.session_ttl_s:
            self.expire()
            session.status = "expired"
        if session.status == "expired":
            raise ServeError(410, f"session {session_id!r} expired: no request for {self.settings.session_ttl_s:g} s, "
                                  f"or for {self.settings.session_idle_s:g} s while the server was full and "
                                  "needed its place")
        return session

    def _load(self, session_id: str) -> Session:
        row = self.store.get(session_id) if isinstance(session_id, str) and len(session_id) <= 64 else None
        if row is None:
            raise not_found(session_id)
        try:
            record = GameRecord.from_json(row.record)
            table, public = replay(record)
        except (RecordError, ValueError) as err:  # a database edited by hand, or rules that changed
            raise ServeError(409, f"session {session_id!r} cannot be restored: {err}") from None
        s = row.settings
        bot = make_player(s["bot_spec"], s["game"], seed=(record.seed + len(record.moves)) % 2**31 + 1)
        session = Session(row.id, row.token_hash, row.client, s, table, bot, row.status, row.version, row.touched,
                          public=public)
        session.commit_views()
        with self._lock:
            cached = self._cache.get(session_id)
            if cached is not None:  # another request restored it first
                return cached
            self._remember(session)
        return session

    def _remember(self, session: Session) -> None:
        self._cache[session.id] = session
        while len(self._cache) > self.settings.cache_size:
            self._cache.popitem(last=False)

    def authorize(self, session: Session, token: str | None, watch: bool = False) -> None:
        """401 without a token, 403 with a wrong one (compared in constant time). ``watch``: the spectators'
        routes, which also take the session's watch token (a spectator sees public information only)."""
        if not token:
            raise ServeError(401, "this needs the session's token (header Authorization: Bearer TOKEN)"
                             + (", or its watch token" if watch else ""))
        given = hash_token(token)
        ok = hmac.compare_digest(given, session.token_hash)
        watch_hash = session.settings.get("watch_hash")
        if watch and isinstance(watch_hash, str):
            ok = hmac.compare_digest(given, watch_hash) or ok
        if not ok:
            raise ServeError(403, "wrong token for this session")

    # ------------------------------------------------------------ play
    def play(self, session: Session, move: str | int,
             version: int | None = None) -> tuple[list[str], dict[str, Any], MoveTiming]:
        """The person's ``move`` (notation or id), then the bot's answers; returns the bot's moves as the
        person sees them, the state committed, and the timings. The game is unchanged by a refused move."""
        timing = MoveTiming()
        with session.lock:
            start, since = time.perf_counter(), self.clock()
            self._check_turn(session, version)
            table = session.table
            action = self._parse(session, move)
            session.play(action)
            seen = len(table.history[session.human])
            pad = self._bot_turns(session, timing)
            bot_lines = table.history[session.human][seen:]
            self._save(session, timing, since if pad else None)
            state = session.state()
            timing.server_ms = (time.perf_counter() - start) * 1000 - timing.bot_ms - timing.pad_ms
        return bot_lines, state, timing

    def resign(self, session: Session, version: int | None = None) -> dict[str, Any]:
        """The person resigns: the bot wins. Returns the final state."""
        with session.lock:
            self._check_turn(session, version)
            session.settings = {**session.settings, "resigned": True}
            self._save(session)
            return session.state()

    def _check_turn(self, session: Session, version: int | None) -> None:
        if session.status != "open" or session.over:
            raise ServeError(409, "the game is over")
        if version is not None and version != session.version:
            committed = session.state()["version"]  # what every read returns now (the lock is held: no move half done)
            raise ServeError(409, f"stale version {version}: the last saved state is version {committed}, the one "
                                  "every read returns now; read the state again and choose from it")
        if session.table.to_move != session.human:  # the bot always answers before a request returns
            raise ServeError(409, "it is not your turn")

    def _parse(self, session: Session, move: str | int) -> int:
        table = session.table
        if isinstance(move, str):
            try:
                action = table.parse(move)
            except ValueError as err:
                raise ServeError(422, str(err).splitlines()[0][:300]) from None
        else:
            action = move
            if not 0 <= action < session.entry.actions():
                raise ServeError(422, f"move id {action} does not exist")
        if not is_legal(table.state, action):
            reason = why_illegal(session.entry, table.view(session.human), action) or _legal_hint(table)
            raise ServeError(422, f"illegal move {table.to_str(action)!r}: {reason}")
        return action

    def _bot_turns(self, session: Session, timing: MoveTiming) -> bool:
        """The bot plays until the person is to move or the game ends; a bot that fails forfeits. Returns whether
        the answer is to be padded (:meth:`_pad_hidden`): the bot moved, in a game that has hidden a bot step
        from the person (a skirmish declaration step that caused nothing public: not even their number is told;
        this answer's or an earlier one's). Naval, hexwar and the skirmish's deck sequence tell every move."""
        table, seat = session.table, session.bot_seat
        budget = session.settings["move_ms"] / 1000
        moved, hidden = False, "hidden_budget_ms" in session.settings
        while table.to_move == seat:
            start = self.clock()
            try:
                action = ask(session.bot, table.observation(seat), table.view(seat), budget, table.history[seat])
            except Exception as err:  # noqa: BLE001 - a broken bot loses; the server carries on
                session.settings = {**session.settings, "bot_forfeit": {
                    "reason": "error", "detail": f"{type(err).__name__}: {err}".splitlines()[0][:200]}}
                break
            finally:
                timing.bot_ms += (self.clock() - start) * 1000
            if not hasattr(action, "__index__") or not is_legal(table.state, int(action)):
                session.settings = {**session.settings, "bot_forfeit": {"reason": "illegal",
                                                                        "detail": f"{action!r} is not legal"}}
                break
            session.play(int(action))
            moved, hidden = True, hidden or not session.public[-1]
        return moved and hidden

    def _pad_hidden(self, session: Session, timing: MoveTiming, since: float) -> None:
        """Wait until the answer begun at ``since`` (on :attr:`clock`) has taken the session's hidden budget
        (raised first, on its grid, if the answer overran it: :func:`hidden_budget`; a raise is saved with the
        next move)."""
        spent_ms = (self.clock() - since) * 1000
        budget = float(session.settings["hidden_budget_ms"])
        target = hidden_budget(budget, spent_ms, self.settings.pad_hidden_ratio)
        if target != budget:
            session.settings = {**session.settings, "hidden_budget_ms": target}
        wait = target - spent_ms
        if wait > 0:
            self.sleep(wait / 1000)
            timing.pad_ms += wait

    def first_hidden_budget(self, settings: dict[str, Any]) -> float:
        """A session's first hidden budget, from what the person knows: the bot's ``move_ms`` if it thinks for
        it (a timed search spends it on every step), else the server's ``pad_hidden_min_ms``."""
        first = self.settings.pad_hidden_min_ms
        if thinks_for_move_ms(settings["game"], settings["agent"]):
            first = max(first, float(settings["move_ms"]))
        return first

    def _save(self, session: Session, timing: MoveTiming | None = None, pad_since: float | None = None) -> None:
        """Write the session (one transaction, guarded by its version), render its state and publish it.

        ``pad_since``: the answer has hidden bot steps to cover (:meth:`_bot_turns`): between the render and the
        publishing the server waits until the answer, from ``pad_since`` (the request's start) on, has taken the
        session's hidden budget. Everything that follows from the hidden steps is inside: the bot's steps, what
        they caused (a reveal's moves, unseen movers' included), the record written (it holds every step), the
        states rendered; nothing sees the new state before (the database is read only for a session not in
        memory). Left outside: the request's parsing and the answer's JSON, which follow public things."""
        pad = pad_since is not None and self.settings.pad_hidden
        if pad and "hidden_budget_ms" not in session.settings:  # the game hides steps: saved with this move
            session.settings = {**session.settings, "hidden_budget_ms": self.first_hidden_budget(session.settings)}
        status = "over" if session.over else "open"
        now = time.time()
        try:
            session.version = self.store.save(session.id, session.version, status=status,
                                              record=session.record().to_json(), touched=now,
                                              settings=session.settings)
        except StaleSession:
            with self._lock:
                self._cache.pop(session.id, None)
            raise ServeError(409, "the session changed under this request; read the state again") from None
        session.status, session.touched = status, now
        views = session.render_views()
        if pad:
            self._pad_hidden(session, timing or MoveTiming(), pad_since)  # type: ignore[arg-type]
        session.commit_views(views)
        if self.on_change is not None:
            self.on_change(session)

    def touch(self, session: Session) -> None:
        """Keep a game in play alive on reads (written at most once a minute, or a quarter of ``session_idle_s``;
        a finished game's time to be kept runs from its end, whoever reads it)."""
        now = time.time()
        if session.status == "open" and now - session.touched > min(60.0, self.settings.session_idle_s / 4):
            session.touched = now
            self.store.touch(session.id, now)

    def expire(self) -> None:
        for sid in self.store.expire(time.time() - self.settings.session_ttl_s):
            with self._lock:
                cached = self._cache.pop(sid, None)
            if cached is not None:
                cached.status = "expired"

    def purge(self) -> list[str]:
        """Delete expired sessions and finished ones older than ``keep_finished_s``; their ids (streams on them
        are woken, and end with an error event)."""
        now = time.time()
        ids = self.store.purge(now - self.settings.session_ttl_s, now - self.settings.keep_finished_s)
        for sid in ids:
            with self._lock:
                cached = self._cache.pop(sid, None)
            if cached is not None:
                cached.status = "expired"
                if self.on_change is not None:
                    self.on_change(cached)
        return ids


def why_illegal(game: str, view: Any, action: int) -> str | None:
    """The game's own reason, from the seat's view only (its registry hook), or None where it has none."""
    g = games.get(game)
    if g.why_illegal is None:
        return None
    try:
        explain = g.hook("why_illegal")
    except (ImportError, AttributeError):  # a hook named but not (yet) written: the legal moves say enough
        return None
    return explain(view, action)


def _legal_hint(table: Table) -> str:
    """The legal moves now (the seat's own), or how many there are."""
    legal = [table.to_str(a) for a in table.legal()]
    if len(legal) <= 12:
        return "not legal now; legal now: " + ", ".join(legal)
    return f"not legal now ({len(legal)} legal moves: see the state's legal list)"
