/* cardwar's web page, its shell: pick a game, then play it against a bot by clicking.
 *
 * Uses only the public API (see cardwar/serve/app.py). The shell holds what every game shares: the setup form
 * (built from GET /api/games), the session (kept in local storage), its event stream, the action bar, the log and
 * the result. Each game's board, prompt and words are its page module (`static/<page>.js`, loaded from the
 * catalogue; see "page modules" below); the shell names no game. A move is built from the `steps` of the legal
 * moves the server sends: every element that a click can add to a move carries `data-step` ("card:4D", "hex:C4",
 * "cell:E7"); the ones that continue a legal move get the class `clickable`, the ones already clicked `selected`.
 * Moves with no steps, and moves that share all their steps, are buttons carrying `data-move` (their notation).
 */
"use strict";

const SESSION_KEY = "cardwar.session";
const SETUP_KEY = "cardwar.setup";
const SVG_NS = "http://www.w3.org/2000/svg";

const ui = {};
let catalogue = null;     // GET /api/games
let session = null;       // {id, token, watch, botMoves}
let state = null;         // the last state the server sent
let prefix = [];          // the steps clicked so far
let busy = false;         // a request is in flight
let events = null;        // the EventSource of the session

// ------------------------------------------------------------------ helpers
class ApiError extends Error {
  constructor(status, message, retryAfter) { super(message); this.status = status; this.retryAfter = retryAfter; }
}

async function api(method, path, body) {
  const headers = {};
  if (session) headers.Authorization = "Bearer " + session.token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (err) {
    throw new ApiError(0, "cannot reach the server (" + err.message + ")");
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const retry = parseInt(response.headers.get("Retry-After") || "", 10);
    throw new ApiError(response.status, (data && data.error) || ("HTTP " + response.status + " " + response.statusText),
      isNaN(retry) ? null : retry);
  }
  return data;
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

function human(name) { return String(name).replace(/_/g, " "); }

function cap(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

function el(tag, attrs, html) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? "" : v);
  }
  if (html !== undefined) e.innerHTML = html;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
}

// ------------------------------------------------------------------ playing cards (shared by the games that use them)
const SUITS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
const SUIT_NAMES = {C: "clubs", D: "diamonds", H: "hearts", S: "spades"};
const RANK_VALUE = {A: 1, J: 11, Q: 12, K: 13};

function cardParts(card) {
  return {rank: card.slice(0, -1), suit: card.slice(-1)};
}

function cardValue(card) {  // activation order: rank (aces low), then suit S > H > D > C
  const {rank, suit} = cardParts(card);
  return (RANK_VALUE[rank] || Number(rank)) * 4 + "CDHS".indexOf(suit);
}

/** A face-up card; `extra`: more classes; `step`: the click it stands for. */
function cardHtml(card, extra, step) {
  const {rank, suit} = cardParts(card);
  const red = suit === "H" || suit === "D" ? " red" : "";
  const stepAttr = step ? ` data-step="${esc(step)}"` : "";
  return `<div class="card face${red} ${extra || ""}"${stepAttr} data-card="${esc(card)}" ` +
    `title="${esc(rank)} of ${SUIT_NAMES[suit] || suit}"><span class="rank">${esc(rank)}</span>` +
    `<span class="suit">${SUITS[suit] || esc(suit)}</span><span class="corner">${esc(rank)}${SUITS[suit] || ""}</span></div>`;
}

function backHtml(extra, title) {
  return `<div class="card back ${extra || ""}" title="${esc(title || "a face-down card")}"></div>`;
}

/** A pointy-top hex's corners around (cx, cy), radius r (centre to corner), as an SVG points list. */
function hexPoints(cx, cy, r) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 180 * (60 * k - 30);
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// ------------------------------------------------------------------ page modules
/* Every game is drawn by a module of its own (its registry entry's `page`, listed by GET /api/games; the shell here
 * names no game). A module registers `cardwar.pages[game] = {render(board), prompt(analysis), choiceLabel(move),
 * seatName(seat), scenario(map), title(state), turnSub(view), resultOrder}` and, optionally: `seatNote(seat, i)`
 * (the setup form's words after a seat's name; default " (moves first)" for the first), `basePrefix(state)` (the
 * steps a move starts with before any click), `moveKind(move, last)` (the highlight's `k-` class; default the
 * move's first word), and its logs in words: `ownMove(move)` (a sentence for the player's move, from the state it
 * is made in; kept with the session, since the log has only the notation), `logItem(line, own, note)` (a log
 * entry's HTML) and `botMoveItems(lines)` (the bot's last moves, an HTML string a line). A game with no module is
 * played with buttons only (PLAIN_PAGE). */
window.cardwar = {
  pages: {}, esc, el, svg, cap, human, hexPoints, SUITS,
  cards: {parts: cardParts, value: cardValue, html: cardHtml, back: backHtml},
  state: () => state, analyse: () => analyse(),
  prefix: () => prefix.slice(),                            // the steps clicked so far
  selection: () => prefix.slice(basePrefix().length),      // ...less those the move started with
};

function pageOf(game) { return window.cardwar.pages[game] || null; }

/** Load the page modules the catalogue names (once each). */
async function loadPages() {
  const wanted = catalogue.games.filter(g => g.page && !pageOf(g.name));
  await Promise.all(wanted.map(g => new Promise(resolve => {
    const script = document.createElement("script");
    script.src = "/static/" + g.page;
    script.onload = resolve;
    script.onerror = () => { showError(`The page of ${g.name} could not be loaded`); resolve(); };
    document.head.append(script);
  })));
}

/** A tile in the setup form for every game the server offers (the catalogue's order; the first checked). */
function addGameTiles() {
  const box = document.querySelector("#setup-form fieldset.games");
  for (const g of catalogue.games) {
    const tile = el("label", {class: "game-tile"}, `<input type="radio" name="game" value="${esc(g.name)}">` +
      `<span class="tile-body"><span class="tile-title">${esc(g.title || g.name)}</span>` +
      `<span class="tile-text">${esc(cap(g.summary || ""))}</span></span>`);
    box.append(tile);
  }
  const first = box.querySelector("input[name=game]");
  if (first) first.checked = true;
}

// ------------------------------------------------------------------ the setup form
function gameInfo(name) { return catalogue.games.find(g => g.name === name); }

function savedSetup() {
  try { return JSON.parse(localStorage.getItem(SETUP_KEY)) || {}; } catch (_) { return {}; }
}

function fillSetup(saved) {
  const form = ui.setupForm;
  const game = form.elements.game.value;
  const info = gameInfo(game);
  const mine = (saved && saved.game === game) ? saved : {};
  ui.scenarioRow.hidden = info.scenarios.length === 0;
  ui.scenario.innerHTML = info.scenarios.map(s => `<option value="${esc(s)}">${esc(human(s))}</option>`).join("");
  if (mine.scenario && info.scenarios.includes(mine.scenario)) ui.scenario.value = mine.scenario;
  ui.seat.innerHTML = info.seats.map((s, i) =>
    `<option value="${esc(s)}">${esc(seatName(game, s))}${esc(seatNote(game, s, i))}</option>`).join("");
  if (mine.seat && info.seats.includes(mine.seat)) ui.seat.value = mine.seat;
  // A calibrated "level" agent is offered as its levels (issue 31.4): "level@3" sends {agent: "level",
  // options: {elo}}, the third level's rating on the game's ladder.
  const bots = info.agents.filter(a => !a.levels).map(a => `<option value="${esc(a.name)}">${esc(a.name)}</option>`);
  const leveled = info.agents.find(a => a.levels && a.levels.length);
  if (leveled) {
    bots.push(`<optgroup label="At a chosen strength">` + leveled.levels.map(l =>
      `<option value="level@${l.level}">level ${l.level} of ${leveled.levels.length} (Elo ${l.elo})</option>`).join("")
      + `</optgroup>`);
  }
  ui.agent.innerHTML = bots.join("");
  const savedLevel = leveled && mine.agent === "level" && mine.options
    ? leveled.levels.find(l => l.elo === mine.options.elo) : null;
  ui.agent.value = savedLevel ? `level@${savedLevel.level}`
    : mine.agent && info.agents.some(a => a.name === mine.agent && !a.levels) ? mine.agent
    : (info.agents.some(a => a.name === "heuristic") ? "heuristic" : info.agents[0].name);
  ui.moveMs.max = catalogue.limits.max_move_ms;
  ui.moveMs.value = mine.move_ms || catalogue.limits.default_move_ms;
  const rules = mine.rules || {};
  ui.rules.innerHTML = "";
  for (const r of info.rules) {
    const value = r.name in rules ? rules[r.name] : r.default;
    let input;
    if (r.type === "bool") {
      input = el("input", {type: "checkbox", name: "rule:" + r.name, "data-rule": r.name, "data-type": r.type});
      input.checked = !!value;
    } else if (r.choices.length) {
      input = el("select", {name: "rule:" + r.name, "data-rule": r.name, "data-type": r.type},
        r.choices.map(c => `<option value="${esc(c)}">${esc(human(c))}${c === r.default ? " (default)" : ""}</option>`).join(""));
      input.value = String(value);
    } else {
      input = el("input", {type: "number", name: "rule:" + r.name, "data-rule": r.name, "data-type": r.type,
        step: r.type === "float" ? "any" : "1"});
      input.value = value;
    }
    const label = el("label", {class: r.type === "bool" ? "rule check" : "rule"});
    const text = el("span", {}, esc(human(r.name)));
    if (r.type === "bool") { label.append(input, text); } else { label.append(text, input); }
    ui.rules.append(label);
  }
  updateAgentHelp();
  updateRulesSummary();
}

function updateAgentHelp() {
  const info = gameInfo(ui.setupForm.elements.game.value);
  const level = chosenLevel(info);
  if (level) {
    const top = level.agent.levels[level.agent.levels.length - 1];
    ui.agentHelp.textContent = `Level ${level.level.level} of ${level.agent.levels.length}: about Elo ${level.level.elo} `
      + `on this game's ladder, where random play is 0 and the ${level.agent.base} bot ${top.elo}; `
      + "it answers at once (the move time is not used).";
    ui.moveMs.disabled = true;
    return;
  }
  const agent = info.agents.find(a => a.name === ui.agent.value);
  if (!agent) { ui.agentHelp.textContent = ""; return; }
  ui.agentHelp.textContent = cap(agent.summary) + (agent.thinks_for_move_ms
    ? "; it thinks for the move time." : "; it answers at once (the move time is not used).");
  ui.moveMs.disabled = !agent.thinks_for_move_ms;
}

function chosenLevel(info) {
  /** The level the opponent list names ("level@3"), with its agent, or null. */
  const m = /^level@(\d+)$/.exec(ui.agent.value);
  const agent = m && info.agents.find(a => a.levels && a.levels.length);
  const level = agent && agent.levels.find(l => l.level === parseInt(m[1], 10));
  return level ? {agent, level} : null;
}

function readRules() {
  const info = gameInfo(ui.setupForm.elements.game.value);
  const out = {};
  for (const input of ui.rules.querySelectorAll("[data-rule]")) {
    const rule = info.rules.find(r => r.name === input.dataset.rule);
    let value;
    if (rule.type === "bool") value = input.checked;
    else if (rule.type === "int") value = parseInt(input.value, 10);
    else if (rule.type === "float") value = parseFloat(input.value);
    else value = input.value;
    if (value !== rule.default && !(typeof value === "number" && isNaN(value))) out[rule.name] = value;
  }
  return out;
}

function updateRulesSummary() {
  const n = Object.keys(readRules()).length;
  ui.rulesSummary.textContent = "Rule options" + (n ? ` (${n} changed)` : " (defaults)");
}

function readSetup() {
  const f = ui.setupForm.elements;
  const game = f.game.value;
  const body = {game, agent: ui.agent.value, seat: ui.seat.value, rules: readRules()};
  const level = chosenLevel(gameInfo(game));
  if (level) { body.agent = "level"; body.options = {elo: level.level.elo}; }
  if (gameInfo(game).scenarios.length) body.scenario = ui.scenario.value;
  const ms = parseInt(ui.moveMs.value, 10);
  if (!ui.moveMs.disabled && ms > 0) body.move_ms = ms;
  return body;
}

async function startGame(event) {
  event.preventDefault();
  if (busy) return;
  const body = readSetup();
  localStorage.setItem(SETUP_KEY, JSON.stringify({...body, move_ms: parseInt(ui.moveMs.value, 10) || undefined}));
  setBusy(true);
  showError("");
  ui.start.textContent = "Starting\u2026";
  try {
    session = null;
    const data = await api("POST", "/api/sessions", body);
    session = {id: data.id, token: data.token, watch: data.watch_token, botMoves: data.bot_moves.slice()};
    saveSession();
    state = null;
    accept(data.state);
    showGame();
    openEvents();
  } catch (err) {
    showError(err.status === 429 && err.retryAfter ? `${err.message}. This browser may start a game again in about ` +
      `${Math.ceil(err.retryAfter / 60)} minute${err.retryAfter > 60 ? "s" : ""}.` : err.message);
  } finally {
    ui.start.textContent = "Start the game";
    setBusy(false);
  }
}

// ------------------------------------------------------------------ session
function saveSession() {
  if (session) localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else localStorage.removeItem(SESSION_KEY);
}

function loadSession() {
  try {
    const s = JSON.parse(localStorage.getItem(SESSION_KEY));
    return s && s.id && s.token ? s : null;
  } catch (_) { return null; }
}

function openEvents() {
  closeEvents();
  if (!session || !window.EventSource || (state && state.status === "over")) return;
  const url = `/api/sessions/${encodeURIComponent(session.id)}/events?token=${encodeURIComponent(session.token)}`;
  const source = new EventSource(url);
  source.addEventListener("state", e => {
    let s;
    try { s = JSON.parse(e.data); } catch (_) { return; }
    accept(s);
    if (s.status === "over") closeEvents();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED || (state && state.status === "over")) closeEvents();
  };
  events = source;
}

function closeEvents() {
  if (events) { events.close(); events = null; }
}

/** Take a state from the server if it is newer than the one shown. */
function accept(s) {
  if (!s || !session || s.session !== session.id) return;
  if (state && state.session === s.session && s.version <= state.version) return;
  state = s;
  prefix = basePrefix();
  render();
  if (s.status === "over") closeEvents();
}

async function play(move) {
  if (busy || !state || state.status !== "your_turn") return;
  setBusy(true);
  showError("");
  const mod = pageOf(state.game);
  const note = mod && mod.ownMove ? mod.ownMove(move) : null;  // in words, from the state the move is made in
  const at = state.log.length;  // the player's move is the next entry of the log
  // noted before the answer: the event stream may bring the new state (and draw the log) before it
  if (note) session.notes = {...(session.notes || {}), [at]: note};
  try {
    const data = await api("POST", `/api/sessions/${encodeURIComponent(session.id)}/moves`,
      {move, version: state.version});
    if (data.bot_moves && data.bot_moves.length) session.botMoves = data.bot_moves;
    saveSession();
    ui.moveInput.value = "";
    busy = false;  // accept() renders with the controls enabled
    if (!state || data.state.version > state.version) accept(data.state);
    else renderBotMoves();
  } catch (err) {
    if (note && session && session.notes) delete session.notes[at];  // not played (or not known to be)
    showError(err.message);
    if (err.status === 409) await refresh();
  } finally {
    setBusy(false);
  }
}

async function refresh() {
  try {
    accept(await api("GET", `/api/sessions/${encodeURIComponent(session.id)}`));
  } catch (err) {
    showError(err.message);
  }
}

async function resign() {
  if (!state || state.status === "over" || busy) return;
  if (ui.resign.dataset.confirm !== "yes") {
    ui.resign.dataset.confirm = "yes";
    ui.resign.textContent = "Really resign?";
    setTimeout(() => { ui.resign.dataset.confirm = ""; ui.resign.textContent = "Resign"; }, 4000);
    return;
  }
  ui.resign.dataset.confirm = "";
  ui.resign.textContent = "Resign";
  setBusy(true);
  try {
    const s = await api("POST", `/api/sessions/${encodeURIComponent(session.id)}/resign`, {version: state.version});
    busy = false;
    accept(s);
  } catch (err) {
    showError(err.message);
    if (err.status === 409) await refresh();
  } finally {
    setBusy(false);
  }
}

/** Leave the game for the setup form: a game still in play is resigned first (a second click confirms), so it
 * no longer counts toward the server's cap of games in play per address. */
async function newGame() {
  if (busy) return;
  const playing = state && state.status !== "over";
  if (playing && ui.newGame.dataset.confirm !== "yes") {
    ui.newGame.dataset.confirm = "yes";
    ui.newGame.textContent = "Resign and start anew?";
    setTimeout(() => { ui.newGame.dataset.confirm = ""; ui.newGame.textContent = "New game"; }, 4000);
    return;
  }
  ui.newGame.dataset.confirm = "";
  ui.newGame.textContent = "New game";
  let message = "";
  if (playing) {
    setBusy(true);
    try {
      await api("POST", `/api/sessions/${encodeURIComponent(session.id)}/resign`, {});
    } catch (err) {  // 409: it ended meanwhile, 404/410: it is gone; anything else: say what it costs
      if (![404, 409, 410].includes(err.status)) {
        const idle = catalogue && catalogue.limits.session_idle_s;
        message = `The old game could not be resigned (${err.message}); it stops counting toward this ` +
          `server's limit of games in play${idle ? " after " + Math.round(idle / 60) + " minutes without a move" : ""}.`;
      }
    } finally {
      setBusy(false);
    }
  }
  closeEvents();
  session = null;
  state = null;
  saveSession();
  showError(message);
  showSetup();
}

function setBusy(value) {
  busy = value;
  document.body.classList.toggle("busy", value);
  ui.game.dataset.busy = value ? "true" : "false";
  if (state) renderTurn();
  for (const b of document.querySelectorAll("#choices button, #move-form button, #start")) b.disabled = value;
}

// ------------------------------------------------------------------ screens
function showSetup() {
  ui.loading.hidden = true;
  ui.game.hidden = true;
  ui.setup.hidden = false;
  ui.resign.hidden = true;
  ui.newGame.hidden = true;
  ui.headline.textContent = "";
  document.title = "cardwar: play the bots";
  const saved = savedSetup();
  if (saved.game && gameInfo(saved.game)) ui.setupForm.elements.game.value = saved.game;
  fillSetup(saved);
}

function showGame() {
  const fromSetup = !ui.setup.hidden;
  ui.loading.hidden = true;
  ui.setup.hidden = true;
  ui.game.hidden = false;
  ui.newGame.hidden = false;
  if (fromSetup) window.scrollTo(0, 0);  // the form's Start button may be far down a phone's page
}

// ------------------------------------------------------------------ moves and clicks
/** The steps a move starts with before any click (the page module's `basePrefix(state)`: e.g. a unit the game
 * has already chosen to act). */
function basePrefix() {
  const mod = state && pageOf(state.game);
  return state && state.status === "your_turn" && mod && mod.basePrefix ? mod.basePrefix(state) : [];
}

function startsWith(steps, pre) {
  if (steps.length < pre.length) return false;
  for (let i = 0; i < pre.length; i++) if (steps[i] !== pre[i]) return false;
  return true;
}

/** The legal moves the clicks so far lead to: complete ones and the possible next steps. */
function analyse() {
  const legal = state && state.status === "your_turn" ? state.legal : [];
  const cands = legal.filter(m => m.steps.length && startsWith(m.steps, prefix));
  const complete = prefix.length ? cands.filter(m => m.steps.length === prefix.length) : [];
  const next = new Map();  // step -> set of kinds (first word of the moves it leads to)
  for (const m of cands) {
    if (m.steps.length <= prefix.length) continue;
    const step = m.steps[prefix.length];
    if (!next.has(step)) next.set(step, new Set());
    next.get(step).add(moveKind(m.move, m.steps.length === prefix.length + 1));
  }
  return {cands, complete, next};
}


/** A move's kind, for the highlight's class (`k-KIND`): the page module's `moveKind(move, last)`, else its first
 * word. */
function moveKind(move, last) {
  const mod = state && pageOf(state.game);
  return mod && mod.moveKind ? mod.moveKind(move, last) : move.split(" ")[0];
}

function clickStep(step) {
  if (busy || !state || state.status !== "your_turn") return;
  const i = prefix.indexOf(step);
  if (i >= 0 && i >= basePrefix().length) {  // clicking a selected thing again takes it (and what followed) back
    prefix = prefix.slice(0, i);
    renderActions();
    return;
  }
  const {next} = analyse();
  if (!next.has(step)) {  // not a continuation: start over from it if it begins a move
    const fresh = basePrefix();
    const starts = state.legal.some(m => m.steps.length > fresh.length && startsWith(m.steps, fresh) && m.steps[fresh.length] === step);
    prefix = starts ? [...fresh, step] : fresh;
  } else {
    prefix = [...prefix, step];
  }
  const a = analyse();
  if (a.complete.length === 1 && a.next.size === 0) {
    play(a.complete[0].move);
    return;
  }
  renderActions();
}

function clearSelection() {
  const base = basePrefix();
  if (prefix.length === base.length) return;
  prefix = base;
  renderActions();
}

function onBoardClick(event) {
  if (ui.game.hidden) return;
  const target = event.target.closest("[data-step]");
  if (target) {  // a continuation, a selected thing (taken back), or the start of another move
    clickStep(target.dataset.step);
  } else if (!event.target.closest("button, a, input, select, label, form, .choices")) {
    clearSelection();
  }
}


// ------------------------------------------------------------------ rendering
/** The page of a game with no module of its own (a plug-in's): every move a button, the view as text. */
const PLAIN_PAGE = {
  render(board) {
    board.innerHTML = `<pre class="plain-view">${esc(JSON.stringify(state.view, null, 1))}</pre>`;
  },
  prompt: () => "Choose a move.",
  choiceLabel: move => move,
  title: s => (gameInfo(s.game) && gameInfo(s.game).title) || s.game,
  turnSub: () => `Turn ${state.turn}`,
  resultOrder: "",
};

function moduleOf(game) { return pageOf(game) || PLAIN_PAGE; }

/** The setup form's words after a seat's name. */
function botLabel(bot) {
  /** The bot as the status line names it: a level with the rating it was asked for. */
  return bot.agent === "level" && bot.options && bot.options.elo != null ? `level (Elo ${bot.options.elo})` : bot.agent;
}

function seatNote(game, seat, i) {
  const mod = pageOf(game);
  return mod && mod.seatNote ? mod.seatNote(seat, i) : (i === 0 ? " (moves first)" : "");
}

function seatName(game, seat) {
  const mod = moduleOf(game);
  return mod.seatName ? mod.seatName(seat) : cap(human(seat));
}

function render() {
  if (!state) return;
  ui.game.dataset.status = state.status;
  ui.game.dataset.version = String(state.version);
  ui.game.dataset.session = state.session;
  ui.game.dataset.gameName = state.game;
  const mod = moduleOf(state.game);
  for (const g of Object.keys(window.cardwar.pages)) ui.game.classList.toggle(g, state.game === g);
  ui.resign.hidden = state.status === "over";
  ui.newGame.hidden = false;
  const title = mod.title(state);
  ui.headline.innerHTML = `<b>${esc(title)}</b> <span class="muted">you: ${esc(seatName(state.game, state.you))} ` +
    `&middot; bot: ${esc(botLabel(state.bot))}</span>`;
  document.title = `${title} \u2013 cardwar`;
  mod.render(ui.board);
  renderScenario();
  renderTurn();
  renderActions();
  renderResult();
  renderBotMoves();
  renderLog();
}

/** The scenario's story and victory condition, or what ends the game: the module's `scenario(map)` (HTML; empty:
 * nothing to show). */
function renderScenario() {
  const mod = moduleOf(state.game);
  const html = mod.scenario ? mod.scenario(state.map || null) : "";
  ui.scenarioInfo.hidden = !html;
  if (html) ui.scenarioInfo.innerHTML = html;
}

function renderTurn() {
  if (!state) return;
  let text, cls;
  if (state.status === "over") { text = "Game over"; cls = "over"; }
  else if (busy) { text = `The bot (${botLabel(state.bot)}) is thinking\u2026`; cls = "waiting"; }
  else if (state.status === "your_turn") { text = "Your move"; cls = "yours"; }
  else { text = "Waiting for the bot\u2026"; cls = "waiting"; }
  const sub = moduleOf(state.game).turnSub(state.view);
  ui.turn.className = "turn " + cls;
  ui.turn.innerHTML = `<span class="turn-main">${esc(text)}</span><span class="turn-sub">${esc(sub)}</span>`;
}

function choiceLabel(move) {
  const mod = state && moduleOf(state.game);
  return mod && mod.choiceLabel ? mod.choiceLabel(move) : move;
}

function renderActions() {
  if (!state) return;
  const yours = state.status === "your_turn";
  const a = analyse();
  // highlights
  for (const e of document.querySelectorAll("[data-step]")) {
    const step = e.dataset.step;
    const kinds = a.next.get(step);
    e.classList.toggle("clickable", yours && !!kinds);
    e.classList.toggle("selected", yours && prefix.includes(step));
    for (const c of [...e.classList]) if (c.startsWith("k-")) e.classList.remove(c);
    if (yours && kinds) for (const k of kinds) e.classList.add("k-" + k);
  }
  // buttons: the moves the clicks completed, then the moves with no steps
  ui.choices.innerHTML = "";
  if (yours) {
    if (a.complete.length) {
      const group = el("div", {class: "choice-group"});
      group.append(el("span", {class: "choice-title"}, "Which one?"));
      for (const m of a.complete) group.append(choiceButton(m.move, "choice"));
      ui.choices.append(group);
    }
    const free = state.legal.filter(m => !m.steps.length);
    if (free.length) {
      const group = el("div", {class: "choice-group"});
      for (const m of free) group.append(choiceButton(m.move, "free"));
      ui.choices.append(group);
    }
    if (prefix.length > basePrefix().length) {
      const cancel = el("button", {type: "button", class: "btn ghost small", id: "clear-selection"}, "Clear selection (Esc)");
      cancel.addEventListener("click", clearSelection);
      ui.choices.append(cancel);
    }
  }
  ui.prompt.innerHTML = prompt(a);
  ui.moveForm.hidden = !yours;
  ui.actions.hidden = state.status === "over";
  for (const b of document.querySelectorAll("#choices button, #move-form button")) b.disabled = busy;
}

function choiceButton(move, kind) {
  const b = el("button", {type: "button", class: `btn ${kind === "free" ? "secondary" : "primary"} ${kind}`, "data-move": move,
    title: move}, `<span>${esc(choiceLabel(move))}</span>${kind === "choice" ? ` <code>${esc(move)}</code>` : ""}`);
  b.addEventListener("click", () => play(move));
  return b;
}


function prompt(a) {
  if (state.status === "over") return "";
  if (state.status !== "your_turn") return "The bot is to move.";
  return moduleOf(state.game).prompt(a);
}


function renderResult() {
  const r = state.result;
  if (state.status !== "over" || !r) { ui.result.hidden = true; ui.result.innerHTML = ""; return; }
  let headline, cls;
  if (r.winner === state.you) { headline = "You win!"; cls = "win"; }
  else if (r.winner === null || r.winner === undefined || r.winner === "draw") { headline = "A draw"; cls = "draw"; }
  else { headline = "The bot wins"; cls = "loss"; }
  const detail = [];
  if (r.resigned) detail.push(`${seatName(state.game, r.resigned)} resigned`);
  if (r.forfeit) detail.push(`the bot forfeited${r.forfeit.reason ? ": " + human(r.forfeit.reason) : ""}`);
  const d = r.detail || {};
  const reason = r.reason || d.reason;  // why it ended, where the game says (at the top or in its detail)
  if (reason) detail.push(human(reason) + (d.decided_by ? `, decided by ${human(d.decided_by)}` : ""));
  const facts = [];
  const pair = (name, xs) => Array.isArray(xs) && xs.length === 2 ? facts.push(`${name}: ${xs[0]} \u2013 ${xs[1]}`) : null;
  pair("sealanes", d.sealanes); pair("seazones", d.seazones); pair("cards in hand", d.cards_in_hand);
  pair("objective points", d.objective_points); pair("units lost", d.units_lost);
  pair("casualty points", d.casualty_points); pair("AP lost", d.lost_ap);
  const order = moduleOf(state.game).resultOrder || "";
  // a link cannot send a header: the watch token (it may see the record once the game is over) goes in the query
  const url = `/api/sessions/${encodeURIComponent(state.session)}/record?token=` +
    encodeURIComponent(session.watch || session.token);
  ui.result.className = "result " + cls;
  ui.result.hidden = false;
  ui.result.innerHTML = `<div class="result-head">${esc(headline)}</div>` +
    (detail.length ? `<div class="result-why">${esc(cap(detail.join("; ")))}</div>` : "") +
    (facts.length ? `<div class="result-facts">${esc(facts.join(" \u00b7 "))} <span class="muted">${order}</span></div>` : "") +
    `<div class="result-links"><a id="record-link" class="btn secondary" href="${url}" download="cardwar-${esc(state.game)}-${esc(state.session)}.json">Download the game record</a>` +
    `<button type="button" class="btn primary" id="again">New game</button></div>` +
    `<div class="hint">Replay it with <code>cardwar replay</code>; the record shows every hidden card.</div>`;
  ui.result.querySelector("#again").addEventListener("click", newGame);
}

/** A log line; its parts ("move;   Sea Battle: ...;   Sunk: ...") on lines of their own. */
function logLine(line) {
  const parts = String(line).split(/;\s{2,}/);
  return esc(parts[0]) + parts.slice(1).map(p => `<span class="part">${esc(p)}</span>`).join("");
}

function renderBotMoves() {
  const lines = (session && session.botMoves) || [];
  const mod = state && pageOf(state.game);
  const items = mod && mod.botMoveItems ? mod.botMoveItems(lines) : lines.map(logLine);
  ui.botMoves.innerHTML = items.length ? items.map(html => `<li>${html}</li>`).join("")
    : `<li class="muted">none yet</li>`;
}

/** The game log, an entry a move; each keeps the API's words in `data-line` (the page may say them otherwise). */
function renderLog() {
  const log = state.log;
  const seats = state.log_seats || [];  // whose move each entry is
  const mod = pageOf(state.game);
  const notes = (session && session.notes) || {};
  ui.log.innerHTML = log.map((l, i) => {
    const own = seats[i] !== state.bot.seat;
    const html = mod && mod.logItem ? mod.logItem(l, own, notes[i]) : logLine(l);
    return `<li class="${own ? "own" : "bot"}" data-line="${esc(l)}">${html}</li>`;
  }).join("");
  ui.log.scrollTop = ui.log.scrollHeight;
}

// ------------------------------------------------------------------ start
async function init() {
  for (const id of ["error", "setup", "game", "board", "turn", "actions", "prompt", "choices", "result", "log",
    "headline", "resign", "loading", "scenario", "seat", "agent", "rules"]) ui[id] = document.getElementById(id);
  ui.newGame = document.getElementById("new-game");
  ui.scenarioInfo = document.getElementById("scenario-info");
  ui.botMoves = document.getElementById("bot-moves");
  ui.moveForm = document.getElementById("move-form");
  ui.moveInput = document.getElementById("move-input");
  ui.setupForm = document.getElementById("setup-form");
  ui.scenarioRow = document.getElementById("scenario-row");
  ui.moveMs = document.getElementById("move_ms");
  ui.agentHelp = document.getElementById("agent-help");
  ui.start = document.getElementById("start");
  ui.rulesSummary = document.querySelector("#rules-box summary");

  ui.setupForm.addEventListener("submit", startGame);
  ui.setupForm.addEventListener("change", e => { if (e.target.name === "game") fillSetup(savedSetup()); });
  ui.agent.addEventListener("change", updateAgentHelp);
  ui.rules.addEventListener("change", updateRulesSummary);
  ui.resign.addEventListener("click", resign);
  ui.newGame.addEventListener("click", newGame);
  ui.moveForm.addEventListener("submit", e => {
    e.preventDefault();
    const move = ui.moveInput.value.trim();
    if (move) play(move);
  });
  ui.game.addEventListener("click", onBoardClick);
  // a narrow screen fixes the action bar at the bottom (style.css): the page leaves its height free below the game
  const bar = document.getElementById("action-bar");
  const fitBar = () => document.documentElement.style.setProperty("--bar-h",
    getComputedStyle(bar).position === "fixed" ? `${Math.ceil(bar.getBoundingClientRect().height) + 12}px` : "0px");
  if (window.ResizeObserver) new ResizeObserver(fitBar).observe(bar);
  window.addEventListener("resize", fitBar);
  document.addEventListener("keydown", e => {
    if (e.key === "Escape" && !ui.game.hidden) { clearSelection(); showError(""); }
  });

  try {
    catalogue = await api("GET", "/api/games");
    addGameTiles();
    await loadPages();
  } catch (err) {
    ui.loading.hidden = true;
    showError("Cannot load the games: " + err.message);
    return;
  }
  const saved = loadSession();
  if (saved) {
    session = saved;
    try {
      const s = await api("GET", `/api/sessions/${encodeURIComponent(saved.id)}`);
      state = null;
      accept(s);
      showGame();
      openEvents();
      return;
    } catch (err) {
      session = null;
      saveSession();
      showError(`The saved game could not be continued: ${err.message}`);
    }
  }
  showSetup();
}

document.addEventListener("DOMContentLoaded", init);
