/* cardwar's web page: pick a game, then play it against a bot by clicking.
 *
 * Uses only the public API (see cardwar/serve/app.py). A move is built from the
 * `steps` of the legal moves the server sends: every element that a click can
 * add to a move carries `data-step` ("card:4D", "zone:E", "unit:3", "hex:C4");
 * the ones that continue a legal move get the class `clickable`, the ones
 * already clicked `selected`. Moves with no steps, and moves that share all
 * their steps, are buttons carrying `data-move` (their notation).
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

// ------------------------------------------------------------------ cards
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

function cardsText(cards) { return cards.join(" "); }

// ------------------------------------------------------------------ page modules
/* A game whose drawing is a module of its own (its registry entry's `page`, listed by GET /api/games) registers
 * `cardwar.pages[game] = {render(board), prompt(analysis), choiceLabel(move), seatName(seat), scenario(map),
 * title(state), turnSub(view), resultOrder}` and, optionally, its logs in words: `ownMove(move)` (a sentence for
 * the player's move, from the state it is made in; kept with the session, since the log has only the notation),
 * `logItem(line, own, note)` (a log entry's HTML) and `botMoveItems(lines)` (the bot's last moves, an HTML string
 * a line); naval and hexwar are drawn here. */
window.cardwar = {pages: {}, esc, el, svg, cap, human, hexPoints, SUITS, state: () => state, analyse: () => analyse()};

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

/** A tile in the setup form for every game the server offers that the page does not name already. */
function addGameTiles() {
  const box = document.querySelector("#setup-form fieldset.games");
  for (const g of catalogue.games) {
    if (box.querySelector(`input[value="${g.name}"]`)) continue;
    const tile = el("label", {class: "game-tile"}, `<input type="radio" name="game" value="${esc(g.name)}">` +
      `<span class="tile-body"><span class="tile-title">${esc(g.title || g.name)}</span>` +
      `<span class="tile-text">${esc(cap(g.summary || ""))}</span></span>`);
    box.append(tile);
  }
  for (const input of box.querySelectorAll("input[name=game]")) {  // a game this server does not offer: no tile
    if (!gameInfo(input.value)) input.closest("label").remove();
  }
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
    `<option value="${esc(s)}">${esc(seatName(game, s))}${i === 0 ? " (moves first)" : ""}</option>`).join("");
  if (game === "naval") ui.seat.options[0].textContent = seatName(game, info.seats[0]);
  if (mine.seat && info.seats.includes(mine.seat)) ui.seat.value = mine.seat;
  ui.agent.innerHTML = info.agents.map(a => `<option value="${esc(a.name)}">${esc(a.name)}</option>`).join("");
  ui.agent.value = mine.agent && info.agents.some(a => a.name === mine.agent) ? mine.agent
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
  const agent = info.agents.find(a => a.name === ui.agent.value);
  if (!agent) { ui.agentHelp.textContent = ""; return; }
  ui.agentHelp.textContent = cap(agent.summary) + (agent.thinks_for_move_ms
    ? "; it thinks for the move time." : "; it answers at once (the move time is not used).");
  ui.moveMs.disabled = !agent.thinks_for_move_ms;
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
function basePrefix() {
  // Hex: the card has already chosen the unit to act, so it starts selected.
  if (!state || state.game !== "hexwar") return [];
  const stepped = state.legal.filter(m => m.steps.length);
  if (!stepped.length) return [];
  const first = stepped[0].steps[0];
  return stepped.every(m => m.steps[0] === first) ? [first] : [];
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

function moveKind(move, last) {
  const words = move.split(" ");
  let kind = words[0] === "joint" ? words[1] : words[0];
  if (!last && kind === "attack") kind = "attack-from";
  return kind;
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
function seatName(game, seat) {
  const mod = pageOf(game);
  if (mod && mod.seatName) return mod.seatName(seat);
  if (game === "naval") return seat === "captain_a" ? "Captain A" : "Captain B";
  return cap(seat);
}

function render() {
  if (!state) return;
  ui.game.dataset.status = state.status;
  ui.game.dataset.version = String(state.version);
  ui.game.dataset.session = state.session;
  ui.game.dataset.gameName = state.game;
  ui.game.classList.toggle("naval", state.game === "naval");
  ui.game.classList.toggle("hexwar", state.game === "hexwar");
  const mod = pageOf(state.game);
  for (const g of Object.keys(window.cardwar.pages)) ui.game.classList.toggle(g, state.game === g);
  ui.resign.hidden = state.status === "over";
  ui.newGame.hidden = false;
  const title = mod ? mod.title(state) : state.game === "naval" ? "Hit the Deck!" : (state.map && state.map.title) || "Hex WW2";
  ui.headline.innerHTML = `<b>${esc(title)}</b> <span class="muted">you: ${esc(seatName(state.game, state.you))} ` +
    `&middot; bot: ${esc(state.bot.agent)}</span>`;
  document.title = `${title} \u2013 cardwar`;
  if (mod) mod.render(ui.board); else if (state.game === "naval") renderNaval(); else renderHex();
  renderScenario();
  renderTurn();
  renderActions();
  renderResult();
  renderBotMoves();
  renderLog();
}

/** The scenario's story and its victory condition (the hex game; the story's own "Victory:" part is the same
 * sentence the server sends as map.victory, so it is shown once). */
function renderScenario() {
  const mod = pageOf(state.game);
  if (mod && mod.scenario) {
    ui.scenarioInfo.hidden = !state.map;
    if (state.map) ui.scenarioInfo.innerHTML = mod.scenario(state.map);
    return;
  }
  if (state.game === "naval") {
    ui.scenarioInfo.hidden = false;
    ui.scenarioInfo.innerHTML = navalVictory();
    return;
  }
  const map = state.game === "hexwar" ? state.map : null;
  ui.scenarioInfo.hidden = !map;
  if (!map) return;
  const description = String(map.description || "");
  const cut = description.indexOf("Victory:");
  const story = (cut >= 0 ? description.slice(0, cut) : description).trim();
  const victory = String(map.victory || (cut >= 0 ? description.slice(cut) : "")).replace(/^Victory:\s*/, "");
  ui.scenarioInfo.innerHTML = `<h2>Scenario</h2><div class="scenario-title">${esc(map.title || human(map.name))}` +
    ` <span class="muted">\u00b7 ${esc(map.turns)} turns</span></div>` +
    (story ? `<p class="scenario-story">${esc(story)}</p>` : "") +
    (victory ? `<p class="scenario-victory"><b>Victory:</b> ${esc(victory)}</p>` : "");
}

/** What ends a naval game and who wins (envs/naval/RULES.md §8, under this game's rule options), and where the
 * count stands now. */
function navalVictory() {
  const rules = state.rules || {}, v = state.view;
  const me = v.seat || "A", opp = me === "A" ? "B" : "A";
  const ports = {A: "GHI", B: "ABC"};  // each captain's own seaports; the enemy's are the other row
  const enemyPorts = ports[opp], myPorts = ports[me];
  const held = (captain, zones) => [...zones].filter(z => v.board[z] && v.board[z].captain === captain).length;
  const blockade = rules.blockade === "all_zones"
    ? "<b>Blockade:</b> fill all nine sea zones with your ships and you win at once."
    : `<b>Blockade:</b> put your ships on all three enemy ports (${[...enemyPorts].join(", ")}) and you win at once.`;
  const when = rules.deck_out === "immediate" ? "as soon as the deck runs out" : "at the end of the turn in which the deck runs out";
  const majority = rules.sealane_control === "majority";
  const lanes = majority ? "more sealanes (the columns A-D-G, B-E-H, C-F-I) where you have more ships than the bot"
    : "more enemy ports (the enemy's sealanes) held by your ships";
  const ties = (rules.alternate_win ? "more sea zones held, then " : "") + "more cards in hand, then the best poker hand in hand";
  let mine, theirs;
  if (majority) {
    const cols = ["ADG", "BEH", "CFI"];
    mine = cols.filter(c => held(me, c) > held(opp, c)).length;
    theirs = cols.filter(c => held(opp, c) > held(me, c)).length;
  } else {
    mine = held(me, enemyPorts);
    theirs = held(opp, myPorts);
  }
  return `<h2>How to win</h2><p class="scenario-victory naval-victory">${blockade} ` +
    `<b>Deck out:</b> otherwise the game ends ${when}; the captain with ${lanes} wins; a tie goes to ${ties}.</p>` +
    `<p class="victory-now" data-sealanes="${mine}-${theirs}">Now: ${majority ? "sealanes" : "enemy ports held"} ` +
    `<b>you ${mine}</b> \u00b7 <b>bot ${theirs}</b> \u00b7 cards in hand you ${v.hand.length}, bot ${v.hand_counts[opp]} ` +
    `\u00b7 deck ${v.deck_count}</p>`;
}

function renderTurn() {
  if (!state) return;
  let text, cls;
  if (state.status === "over") { text = "Game over"; cls = "over"; }
  else if (busy) { text = `The bot (${state.bot.agent}) is thinking\u2026`; cls = "waiting"; }
  else if (state.status === "your_turn") { text = "Your move"; cls = "yours"; }
  else { text = "Waiting for the bot\u2026"; cls = "waiting"; }
  const v = state.view;
  let sub = "";
  const mod = pageOf(state.game);
  if (mod && mod.turnSub) sub = mod.turnSub(v);
  else if (state.game === "naval") sub = `Turn ${v.turn} \u00b7 ${human(v.phase)}`;
  else sub = `Turn ${v.turn} of ${v.turns}`;
  ui.turn.className = "turn " + cls;
  ui.turn.innerHTML = `<span class="turn-main">${esc(text)}</span><span class="turn-sub">${esc(sub)}</span>`;
}

const STEPLESS_LABELS = {pass: "Pass", keep: "Keep this hand", mulligan: "Mulligan (redraw 7)",
  nodefend: "No defending card", evade: "Evade (\u22121 hit, loses its action)", "no evade": "Do not evade"};

function choiceLabel(move) {
  const mod = state && pageOf(state.game);
  if (mod && mod.choiceLabel) return mod.choiceLabel(move);
  const w = move.split(" ");
  if (STEPLESS_LABELS[move]) return STEPLESS_LABELS[move];
  if (w[0] === "attack") return {normal: "Normal attack", ram: "Ram", broadside: "Broadside"}[w[2]] || cap(w[2]);
  const joint = w[0] === "joint";
  const verb = joint ? w[1] : w[0];
  const where = joint ? w[2] : w[1];
  let label = {move: "Move", shoot: "Shoot", smoke: "Lay smoke"}[verb] || cap(verb);
  if (where && where.includes("/")) label += ` at unit ${where.split("/")[1]} there`;
  return (joint ? "Joint: " : "") + label;
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
  const v = state.view;
  const sel = prefix.slice(basePrefix().length);
  const mod = pageOf(state.game);
  if (mod && mod.prompt) return mod.prompt(a);
  if (state.game === "naval") {
    if (v.phase === "mulligan") return "Keep your hand, or discard it and draw 7 new cards.";
    if (v.phase === "defend") {
      const p = v.pending_attack;
      return `Your ship at <b>${esc(p.to)}</b> is attacked from ${esc(p.from)} (${esc(p.style)}). ` +
        "Click a card to defend with it, or defend without one.";
    }
    if (v.phase === "royal_flush") return "High Royal Flush! Click a highlighted ship to sink it.";
    if (!sel.length) {
      const n = v.actions_taken + 1;
      return `Action ${n} of 2: click a card in your hand to deploy it or attack with it, or pass.`;
    }
    const card = sel[0].split(":")[1];
    if (sel.length === 1) {
      const kinds = new Set([...a.next.values()].flatMap(s => [...s]));
      const parts = [];
      if (kinds.has("deploy")) parts.push("an empty green zone to deploy it");
      if (kinds.has("attack-from")) parts.push("one of your ships to attack with it");
      return `<b>${esc(card)}</b>: click ${parts.join(", or ") || "a highlighted zone"}.`;
    }
    if (sel.length === 2) return `<b>${esc(card)}</b>, ship at ${esc(sel[1].split(":")[1])}: click the enemy ship to attack.`;
    return "Choose how to attack.";
  }
  // hexwar
  if (v.phase === "evade") {
    const target = v.pending_shot && unitById(v.pending_shot.target);
    return `Your ${target ? esc(unitName(target)) + " at <b>" + esc(target.hex) + "</b>" : "unit"} is shot at: take evasive action?`;
  }
  const u = v.acting !== null ? unitById(v.acting) : null;
  if (!u) return "Your hidden unit acts.";
  let text = `Your <b>${esc(unitName(u))}</b>${u.hex ? " at <b>" + esc(u.hex) + "</b>" : " (off table)"} acts (card ${u.card ? esc(cardParts(u.card).rank) + SUITS[cardParts(u.card).suit] : "?"}). `;
  if (a.complete.length) return text + "Choose what to do there.";
  const kinds = new Set([...a.next.values()].flatMap(s => [...s]));
  const verbs = [];
  if (kinds.has("move")) verbs.push("<span class='kw k-move'>move</span>");
  if (kinds.has("shoot")) verbs.push("<span class='kw k-shoot'>shoot</span>");
  if (kinds.has("smoke")) verbs.push("<span class='kw k-smoke'>lay smoke</span>");
  if (verbs.length) text += `Click a hex to ${verbs.join(", ")}, or pass.`;
  else if (!sel.length && prefix.length === 0 && a.next.size) text += "Click the unit to act.";
  else text += "It can only pass.";
  return text;
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
  pair("casualty points", d.casualty_points);
  const mod = pageOf(state.game);
  const order = mod && mod.resultOrder ? mod.resultOrder : state.game === "naval" ? "(A \u2013 B)" : "(blue \u2013 red)";
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

// ------------------------------------------------------------------ naval board
function renderNaval() {
  const v = state.view;
  const me = v.seat || "A";
  const opp = me === "A" ? "B" : "A";
  // Captain A's seaports are G H I, Captain B's A B C: your own seaports at the bottom.
  const rows = me === "A" ? [["A", "B", "C"], ["D", "E", "F"], ["G", "H", "I"]]
    : [["G", "H", "I"], ["D", "E", "F"], ["A", "B", "C"]];
  const mySeaports = me === "A" ? "GHI" : "ABC";
  const theirSeaports = me === "A" ? "ABC" : "GHI";
  const pend = v.pending_attack;
  const lb = v.last_battle;
  const destroyed = new Set(lb ? lb.destroyed.map(d => d.zone) : []);

  let html = `<div class="naval-table">`;
  // the bot's hand and the deck
  const oppCount = v.hand_counts[opp];
  html += `<div class="hand-row opp"><div class="who">Bot's hand <span class="count">${oppCount}</span></div>` +
    `<div class="hand fan">${Array.from({length: oppCount}, () => backHtml("small")).join("")}</div></div>`;
  html += `<div class="sea-wrap"><div class="sea">`;
  for (const row of rows) {
    for (const z of row) {
      const ship = v.board[z];
      const classes = ["zone"];
      if (mySeaports.includes(z)) classes.push("my-port");
      if (theirSeaports.includes(z)) classes.push("their-port");
      if (pend && pend.from === z) classes.push("attacking");
      if (pend && pend.to === z) classes.push("attacked");
      if (v.royal_flush_candidates.includes(z)) classes.push("rf");
      // three rows, so nothing overlaps: the letter and the port, the ship, the attack's badge
      const port = mySeaports.includes(z) ? `<span class="port-tag">your port</span>`
        : theirSeaports.includes(z) ? `<span class="port-tag">enemy port</span>` : "";
      let inner = `<div class="zone-head"><span class="zone-letter">${z}</span>${port}</div><div class="zone-body">`;
      if (ship) {
        const own = ship.captain === me;
        inner += `<div class="ship ${own ? "own" : "enemy"}">${cardHtml(ship.card)}<div class="hull"></div></div>`;
      } else if (lb && destroyed.has(z)) {
        inner += `<div class="wreck" title="sunk in the last battle">sunk</div>`;
      }
      inner += `</div><div class="zone-foot">`;
      if (pend && pend.from === z) inner += `<span class="zone-badge atk">attacking</span>`;
      if (pend && pend.to === z) inner += `<span class="zone-badge def">under attack</span>`;
      inner += `</div>`;
      html += `<div class="${classes.join(" ")}" data-step="zone:${z}" data-zone="${z}">${inner}</div>`;
    }
  }
  html += `</div>`;
  // the deck and the pending attack beside the sea
  html += `<div class="sea-side"><div class="deck"><div class="stack">${v.deck_count ? backHtml() : `<div class="card empty"></div>`}</div>` +
    `<div class="deck-label">Deck <span class="count">${v.deck_count}</span></div>` +
    `<div class="deck-label muted">Discards ${v.discards.length}</div></div>`;
  if (pend) {
    const attackerIsMe = pend.attacker === me;
    const cards = [pend.own_card ? cardHtml(pend.own_card, "small") : backHtml("small", "the attacker's face-down card")];
    if (pend.deck_card_drawn) cards.push(backHtml("small", "the card drawn from the deck (broadside)"));
    html += `<div class="pending"><div class="pending-title">${attackerIsMe ? "Your" : "Bot's"} ${esc(pend.style)} attack ` +
      `${esc(pend.from)} \u2192 ${esc(pend.to)}</div><div class="mini-hand">${cards.join("")}</div></div>`;
  }
  html += `</div></div>`;
  // my hand
  html += `<div class="hand-row mine"><div class="who">Your hand <span class="count">${v.hand.length}</span></div>` +
    `<div class="hand">${v.hand.map(c => cardHtml(c, "", "card:" + c)).join("") || `<span class="muted">empty</span>`}</div></div>`;
  // the last battle
  if (lb) {
    const mine = lb.attacker === me;
    html += `<div class="battle"><div class="battle-title">Last battle: ${mine ? "your" : "the bot's"} ${esc(lb.style)} attack ` +
      `${esc(lb.from)} \u2192 ${esc(lb.to)}${lb.royal_flush ? " \u00b7 <b>royal flush</b>" : ""}</div>` +
      `<div class="battle-hands"><div class="bh ${lb.attacker_won ? "won" : "lost"}"><span>Attack</span>` +
      `<div class="mini-hand">${lb.attack_hand.map(c => cardHtml(c, "small")).join("")}</div></div>` +
      `<div class="vs">vs</div><div class="bh ${lb.attacker_won ? "lost" : "won"}"><span>Defence</span>` +
      `<div class="mini-hand">${lb.defence_hand.map(c => cardHtml(c, "small")).join("")}</div></div></div>` +
      `<div class="battle-result">${lb.attacker_won ? "The attacker wins" : "The defender holds"}` +
      `${lb.destroyed.length ? "; sunk: " + lb.destroyed.map(d => esc(d.card) + " at " + esc(d.zone)).join(", ") : ""}</div></div>`;
  }
  if (v.phase === "mulligan" && v.mulligan_shown.length) {
    html += `<div class="battle">Shown at the mulligan: ${esc(cardsText(v.mulligan_shown))}</div>`;
  }
  html += `</div>`;
  ui.board.innerHTML = html;
}

// ------------------------------------------------------------------ hex board
const TYPE_INFO = {
  foot: ["I", "foot infantry"], mechanised: ["N", "mechanised infantry"], motorised: ["O", "motorised infantry"],
  at_gun: ["G", "anti-tank gun"], tank: ["T", "tank"], spg: ["S", "self-propelled gun"], mortar: ["R", "mortar"],
  artillery: ["A", "artillery"], armoured_car: ["C", "armoured car"],
};
const TERRAIN = {".": "clear", W: "woods", B: "buildings", X: "broken", H: "hill", "~": "river", F: "ford",
  "=": "bridge", M: "marsh", L: "lake"};
const HEX_R = 34;
const HEX_W = Math.sqrt(3) * HEX_R;
const HEX_MARGIN = 6;
const MIN_HEX_PX = 44;  // the least a hex is drawn across (a finger's width): a narrower screen scrolls the map

function unitById(id) { return state.view.units.find(u => u.id === id); }
function unitName(u) { return (TYPE_INFO[u.type] || [u.type, human(u.type)])[1]; }

function parseLabel(label) {
  return {col: label.charCodeAt(0) - 65, row: parseInt(label.slice(1), 10) - 1};
}

function hexCentre(col, row) {
  return [HEX_MARGIN + HEX_W * (col + 0.5 + 0.5 * (row & 1)), HEX_MARGIN + HEX_R + 1.5 * HEX_R * row];
}

function centreOf(label) { const {col, row} = parseLabel(label); return hexCentre(col, row); }

function hexPoints(cx, cy, r) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 180 * (60 * k - 30);
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

function starPoints(cx, cy, r) {
  const pts = [];
  for (let k = 0; k < 10; k++) {
    const rad = k % 2 ? r * 0.45 : r;
    const a = Math.PI / 180 * (36 * k - 90);
    pts.push(`${(cx + rad * Math.cos(a)).toFixed(1)},${(cy + rad * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

function terrainDecoration(g, t, cx, cy) {
  const r = HEX_R;
  if (t === "woods") {
    for (const [dx, dy] of [[-9, 3], [8, 4], [0, -6], [-1, 11]]) g.append(svg("circle", {cx: cx + dx, cy: cy + dy, r: 6.5, class: "tree"}));
  } else if (t === "buildings") {
    for (const [dx, dy, w, h] of [[-12, -4, 10, 8], [2, -8, 11, 9], [-5, 7, 12, 7]]) {
      g.append(svg("rect", {x: cx + dx, y: cy + dy, width: w, height: h, class: "house"}));
    }
  } else if (t === "hill") {
    g.append(svg("ellipse", {cx, cy: cy + 3, rx: r * 0.62, ry: r * 0.42, class: "contour"}));
    g.append(svg("ellipse", {cx, cy: cy + 2, rx: r * 0.34, ry: r * 0.22, class: "contour"}));
  } else if (t === "broken") {
    g.append(svg("path", {d: `M${cx - 18},${cy - 3} l6,-4 l6,4 l6,-4 l6,4 l6,-4 M${cx - 15},${cy + 9} l6,-4 l6,4 l6,-4 l6,4`, class: "hedge"}));
  } else if (t === "river" || t === "ford") {
    g.append(svg("path", {d: `M${cx - 20},${cy} q5,-5 10,0 t10,0 t10,0 t10,0`, class: "ripple"}));
    if (t === "ford") g.append(svg("path", {d: `M${cx - 14},${cy + 9} h28 M${cx - 14},${cy - 9} h28`, class: "ford-line"}));
  } else if (t === "bridge") {
    g.append(svg("rect", {x: cx - 7, y: cy - r * 0.8, width: 14, height: r * 1.6, class: "plank"}));
  } else if (t === "marsh") {
    g.append(svg("path", {d: `M${cx - 14},${cy - 6} h8 M${cx + 4},${cy - 6} h8 M${cx - 8},${cy + 4} h8 M${cx + 8},${cy + 6} h6 M${cx - 16},${cy + 12} h6`, class: "marsh-line"}));
  }
}

function unitSymbol(g, type, x, y, w, h) {
  const x1 = x + w, y1 = y + h, xm = x + w / 2, ym = y + h / 2;
  const line = d => g.append(svg("path", {d, class: "sym"}));
  const oval = () => g.append(svg("ellipse", {cx: xm, cy: ym, rx: w * 0.32, ry: h * 0.3, class: "sym"}));
  const dot = r => g.append(svg("circle", {cx: xm, cy: ym, r, class: "sym-fill"}));
  const cross = () => line(`M${x},${y} L${x1},${y1} M${x},${y1} L${x1},${y}`);
  switch (type) {
    case "foot": cross(); break;
    case "mechanised": cross(); oval(); break;
    case "motorised": cross(); line(`M${xm},${y} L${xm},${y1}`); break;
    case "at_gun": line(`M${x},${y1} L${xm},${y} L${x1},${y1}`); break;
    case "tank": oval(); break;
    case "spg": oval(); dot(1.8); break;
    case "mortar": line(`M${xm},${y1 - 1} L${xm},${y + 1} M${xm - 3},${y + 4} L${xm},${y + 1} L${xm + 3},${y + 4}`); dot(0); break;
    case "artillery": dot(3); break;
    case "armoured_car": oval(); line(`M${x},${y1} L${x1},${y}`); break;
    default: break;
  }
}

function unitCounter(u, cx, cy, acting) {
  const w = 32, h = 24;
  const g = svg("g", {class: `unit side-${u.side}${acting ? " acting" : ""}${u.activated ? " done" : ""}${u.hidden ? " hidden-unit" : ""}`,
    "data-step": `unit:${u.id}`, "data-unit": String(u.id), transform: `translate(${(cx - w / 2).toFixed(1)},${(cy - h / 2).toFixed(1)})`});
  g.append(svg("title", {}, `${cap(u.side)} ${unitName(u)}${u.hex ? " at " + u.hex : " (off table)"} \u00b7 ${u.hits} hit${u.hits === 1 ? "" : "s"}` +
    `${u.card ? " \u00b7 card " + u.card : ""}${u.hidden ? " \u00b7 hidden from the enemy" : ""}${u.activated ? " \u00b7 has acted" : ""}`));
  g.append(svg("rect", {x: 0, y: 0, width: w, height: h, rx: 3.5, class: "counter"}));
  const box = svg("g", {class: "symbol"});
  box.append(svg("rect", {x: 6, y: 3, width: 20, height: 12, class: "sym-box"}));
  unitSymbol(box, u.type, 6, 3, 20, 12);
  g.append(box);
  g.append(svg("text", {x: 6, y: 22, class: "code"}, (TYPE_INFO[u.type] || ["?"])[0]));
  if (u.hits) {
    g.append(svg("circle", {cx: w - 1, cy: 1, r: 6.5, class: "hits"}));
    g.append(svg("text", {x: w - 1, y: 4, class: "hits-text"}, String(u.hits)));
  }
  if (u.card) g.append(svg("text", {x: w - 3, y: 22, class: "card-text" + ("HD".includes(u.card.slice(-1)) ? " red" : "")},
    u.card.slice(0, -1) + SUITS[u.card.slice(-1)]));
  return g;
}

function renderHex() {
  const v = state.view;
  const map = state.map;
  const rows = map.map.trim().split("\n").map(line => line.trim().split(/\s+/));
  const height = rows.length;
  const width = Math.max(...rows.map(r => r.length));
  const W = HEX_MARGIN * 2 + HEX_W * (width + 0.5);
  const H = HEX_MARGIN * 2 + HEX_R * (2 + 1.5 * (height - 1));
  const root = svg("svg", {viewBox: `0 0 ${W.toFixed(0)} ${H.toFixed(0)}`, class: "hexmap", role: "img",
    "aria-label": "hex map"});
  root.style.setProperty("--min-map-w", `${Math.ceil(W * MIN_HEX_PX / HEX_W)}px`);  // a narrow screen only (style.css)
  const terrain = svg("g", {class: "terrain"});
  const hexes = svg("g", {class: "hexes"});
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < rows[row].length; col++) {
      const t = TERRAIN[rows[row][col]] || "clear";
      const label = String.fromCharCode(65 + col) + (row + 1);
      const [cx, cy] = hexCentre(col, row);
      const deco = svg("g", {class: `t-${t}`});
      deco.append(svg("polygon", {points: hexPoints(cx, cy, HEX_R), class: "ground"}));
      terrainDecoration(deco, t, cx, cy);
      const objective = map.objectives.some(o => o.hex === label);  // its star takes the top right: label left
      deco.append(svg("text", {x: objective ? cx - HEX_R * 0.3 : cx, y: cy - HEX_R * 0.62, class: "hexlabel"}, label));
      terrain.append(deco);
      const g = svg("g", {class: "hex", "data-step": `hex:${label}`, "data-hex": label});
      g.append(svg("title", {}, `${label}: ${t}`));
      g.append(svg("polygon", {points: hexPoints(cx, cy, HEX_R - 1.5), class: "hit"}));
      hexes.append(g);
    }
  }
  root.append(terrain);
  // objectives
  const objectives = svg("g", {class: "objectives"});
  map.objectives.forEach((o, i) => {
    const [cx, cy] = centreOf(o.hex);
    const holder = v.holders[i] || "none";
    const g = svg("g", {class: `objective holder-${holder}`});
    g.append(svg("title", {}, `${o.name ? o.name + ", " : ""}objective ${o.hex}: ${o.value} point${o.value === 1 ? "" : "s"}, held by ${holder}`));
    g.append(svg("polygon", {points: hexPoints(cx, cy, HEX_R - 4), class: "obj-ring"}));
    // the star sits in the top right corner, above where units stand (cy - 8 and below), so it never hides one
    const [sx, sy] = [cx + HEX_R * 0.33, cy - HEX_R * 0.56];
    g.append(svg("polygon", {points: starPoints(sx, sy, 7.5), class: "obj-star"}));
    g.append(svg("text", {x: sx, y: sy + 2.6, class: "obj-value"}, String(o.value)));
    objectives.append(g);
  });
  root.append(objectives);
  // smoke
  const smoke = svg("g", {class: "smoke"});
  for (const h of v.smoke) {
    const [cx, cy] = centreOf(h);
    for (const [dx, dy, r] of [[-8, 2, 13], [8, 0, 14], [0, -8, 12], [0, 8, 12]]) smoke.append(svg("circle", {cx: cx + dx, cy: cy + dy, r}));
  }
  root.append(smoke);
  // the hexes to click sit above the terrain and under the units
  root.append(hexes);
  // shots
  const shots = svg("g", {class: "shots"});
  const at = id => { const u = unitById(id); return u && u.hex ? centreOf(u.hex) : null; };
  for (const s of v.last_shots || []) {
    const a = at(s.shooter), b = at(s.target);
    if (a && b) shots.append(svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "last-shot"}));
  }
  if (v.pending_shot) {
    const b = at(v.pending_shot.target);
    for (const id of v.pending_shot.shooters) {
      const a = at(id);
      if (a && b) shots.append(svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "pending-shot"}));
    }
  }
  root.append(shots);
  // units
  const units = svg("g", {class: "units"});
  const byHex = new Map();
  for (const u of v.units) if (u.hex) { if (!byHex.has(u.hex)) byHex.set(u.hex, []); byHex.get(u.hex).push(u); }
  for (const [h, list] of byHex) {
    const [cx, cy] = centreOf(h);
    list.forEach((u, i) => {
      const dx = list.length > 1 ? (i === 0 ? -16 : 16) : 0;
      units.append(unitCounter(u, cx + dx, cy + 4, u.id === v.acting));
    });
  }
  root.append(units);

  // the page around the map: forces, off-table units, the cards of the turn
  const wrap = el("div", {class: "hex-wrap"});
  const sides = el("div", {class: "forces"});
  const sideNames = map.sides || {};
  for (const [i, side] of ["blue", "red"].entries()) {
    const pts = map.objectives.reduce((n, o, k) => n + (v.holders[k] === side ? o.value : 0), 0);
    const you = state.you === side;
    sides.append(el("div", {class: `force side-${side}`},
      `<span class="dot"></span><b>${esc((sideNames[side] && sideNames[side].name) || cap(side))}</b>` +
      `<span class="muted">${you ? "you" : "bot"}</span><span class="stat">objective points ${pts}</span>` +
      `<span class="stat">lost ${v.lost[side]}</span>`));
    void i;
  }
  wrap.append(sides);
  const mapBox = el("div", {class: "map-box"});
  mapBox.append(root);
  wrap.append(mapBox);
  const off = v.units.filter(u => !u.hex);
  if (off.length) {
    const box = el("div", {class: "offtable"}, `<span class="muted">Off table:</span>`);
    for (const u of off) {
      const s = svg("svg", {viewBox: "-4 -8 42 36", width: 50, height: 44, class: "off-unit"});
      s.append(unitCounter(u, 17, 12, u.id === v.acting));
      box.append(s);
    }
    wrap.append(box);
  }
  wrap.append(cardStrip());
  wrap.append(legend());
  const old = ui.board.querySelector(".map-box");
  const scrolled = old && old.dataset.session === state.session ? [old.scrollLeft, old.scrollTop] : null;
  mapBox.dataset.session = state.session;
  ui.board.innerHTML = "";
  ui.board.append(wrap);
  if (scrolled) {  // a new state keeps the map where the player scrolled it
    [mapBox.scrollLeft, mapBox.scrollTop] = scrolled;
  } else if (mapBox.scrollWidth > mapBox.clientWidth) {  // a narrow screen: start with the acting unit in view
    const unit = root.querySelector(".unit.acting") || root.querySelector(`.unit.side-${state.you}`);
    if (unit) {
      const u = unit.getBoundingClientRect(), box = mapBox.getBoundingClientRect();
      mapBox.scrollLeft += u.left + u.width / 2 - (box.left + box.width / 2);
    }
  }
}

function cardStrip() {
  const v = state.view;
  const entries = [];
  for (const u of v.units) {
    if (!u.card) continue;
    entries.push({card: u.card, side: u.side, text: `${(TYPE_INFO[u.type] || ["?"])[0]} ${u.hex || "off"}`,
      played: u.activated, up: u.id === v.acting, unit: u.id});
  }
  const hiddenUp = v.phase === "act" && v.acting === null;
  const unplayed = (v.hidden_cards || []).filter(h => !h.played).map(h => cardValue(h.card));
  const top = unplayed.length ? Math.max(...unplayed) : null;
  for (const h of v.hidden_cards || []) {
    entries.push({card: h.card, side: h.side, text: "hidden", played: h.played,
      up: hiddenUp && !h.played && cardValue(h.card) === top, unit: null});
  }
  entries.sort((a, b) => cardValue(b.card) - cardValue(a.card));
  const strip = el("div", {class: "strip"}, `<div class="strip-title">Activation cards, highest first</div>`);
  const row = el("div", {class: "strip-cards"});
  for (const e of entries) {
    const {rank, suit} = cardParts(e.card);
    row.append(el("div", {class: `chip side-${e.side}${e.played ? " played" : ""}${e.up ? " up" : ""}`,
      title: `${e.card}: ${e.side} ${e.text}${e.played ? " (played)" : ""}`, "data-card": e.card},
      `<span class="chip-card${"HD".includes(suit) ? " red" : ""}">${esc(rank)}${SUITS[suit] || ""}</span>` +
      `<span class="chip-unit">${esc(e.text)}</span>`));
  }
  strip.append(row);
  return strip;
}

const LEGEND_TERRAIN = ["clear", "woods", "buildings", "broken", "hill", "river", "ford", "bridge", "marsh", "lake"];

function legend() {
  return el("div", {class: "legend"},
    LEGEND_TERRAIN.map(t => `<span data-terrain="${t}"><i class="sw t-${t}"></i>${t}</span>`).join("") +
    `<span data-legend="objective"><i class="sw-star">\u2605</i>objective (its points)</span>` +
    `<span class="legend-units">I foot \u00b7 N mech \u00b7 O motor \u00b7 G AT gun \u00b7 T tank \u00b7 S SP gun \u00b7 R mortar \u00b7 A artillery \u00b7 C armoured car</span>`);
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
