/* Tank Attack, the WW1 trench game, on cardwar's web page (the game registry's `page` for tankattack).
 *
 * Drawn from the state the server sends, and nothing else: `state.map` (the public set-up: the scenario's map,
 * turn limit and armies, and the element types' names, codes and AP) and `state.view` (the seat's information
 * view: every element with its side, cell and facing, the wire still standing, the Bunker, the bound, PIPs, the
 * stage and the pending decision; RULES.md 18: nothing is hidden but the dice, yet the page reads only what the
 * seat is given). The map is an SVG of square cells (cell = row * 16 + col, label column letter + row number,
 * row 1 the attacker's north edge). Every cell carries `data-step="cell:E7"` and lies over the elements standing
 * on it (transparent until lit: a click on an element is a click on its cell): the page's click machinery (app.js)
 * lights those that answer the decision (the element to move, its
 * destination, the shooter, the target, an aid, the combat to fight, a placement); the other answers (a facing,
 * end, yes, suppress, a reserve to bring on, counter-battery, rally, raid, group, mount, dismount) are buttons.
 */
"use strict";

(function () {
  const cw = window.cardwar;
  const {esc, el, svg, cap, human} = cw;
  const STRIDE = 16;
  const S = 40;                       // a cell's side, SVG units
  const MARGIN = 18;                  // room for the column letters and row numbers
  const MIN_CELL_PX = 44;             // the least a cell is drawn across on a phone (Apple's 44-point touch target): a
                                      // narrower screen scrolls the map sideways (16 columns: 728 px), the page down
  const SIDES = ["defender", "attacker"];
  const FACINGS = ["north", "east", "south", "west"];
  const FACE_LETTERS = "NESW";
  const GROUND = {".": "open", "=": "road", H: "hill", W: "wood", x: "crater", R: "ruin", T: "town", "~": "river",
    F: "ford", b: "bridge", L: "lake", "#": "open", S: "ruin", w: "open", K: "open", M: "open"};
  const OFF_BOARD = new Set(["reserve", "lost", "gone"]);
  const BUNKER = -1;                  // the Bunker's id in a pending decision (it fights as an element)

  let state = null;  // the state being drawn (read at each entry point)
  const fresh = f => (...args) => { state = cw.state(); return f(...args); };

  // ---------------------------------------------------------------- geometry and words
  const label = cell => String.fromCharCode(65 + cell % STRIDE) + (Math.floor(cell / STRIDE) + 1);
  /** The cell one step from `text` in direction `d` (0 N, 1 E, 2 S, 3 W; row 1 the north edge, RULES.md 1.1), or null
   * off a map of `width` x `height`. */
  function stepFrom(text, d, width, height) {
    const c = text.charCodeAt(0) - 65 + [0, 1, 0, -1][d], r = parseInt(text.slice(1), 10) - 1 + [-1, 0, 1, 0][d];
    return c >= 0 && r >= 0 && c < width && r < height ? String.fromCharCode(65 + c) + (r + 1) : null;
  }
  const mapSize = () => { const rows = ((state.map && state.map.scenario) || state.view.scenario).map; return [rows[0].length, rows.length]; };
  const cellOf = text => (text.charCodeAt(0) - 65) + STRIDE * (parseInt(text.slice(1), 10) - 1);
  const corner = cell => [MARGIN + S * (cell % STRIDE), MARGIN + S * Math.floor(cell / STRIDE)];
  const centre = cell => { const [x, y] = corner(cell); return [x + S / 2, y + S / 2]; };
  const onBoard = e => !OFF_BOARD.has(e.cell);
  const types = () => (state.map && state.map.types) || {};
  const typeName = e => (e.general ? "General" : (types()[e.type] || {}).name || cap(human(e.type)));
  const code = e => (e.general ? state.map.general_code || "GN" : (types()[e.type] || {}).code || e.type.slice(0, 2).toUpperCase());
  const ap = e => (types()[e.type] || {}).ap || 0;
  const seatIndex = seat => SIDES.indexOf(seat);

  /** An element (by its index in the view) as words: "your Tank at E3", "the attacker's Rifles at B3". */
  function who(i, own) {
    const v = state.view;
    if (i === BUNKER) return "the Bunker";
    const e = v.elements[i];
    if (!e) return "the element";
    const mine = e.side === seatIndex(state.you);
    const whose = own === false ? "" : (mine ? "your " : `the ${SIDES[e.side]}'s `);
    return `${whose}<b>${esc(typeName(e))}</b>${onBoard(e) ? " at <b>" + esc(e.cell) + "</b>" : ""}`;
  }

  function elementTitle(e) {
    const bits = [`${cap(SIDES[e.side])} ${typeName(e)} at ${e.cell}`, `facing ${FACINGS[e.facing]}`];
    for (const flag of ["moved", "shot", "fought", "suppressed"]) if (e[flag]) bits.push(flag);
    if (e.wire_contact) bits.push("in the wire");
    if (e.timer) bits.push(`${e.timer} bound${e.timer === 1 ? "" : "s"} left`);
    return bits.join(" \u00b7 ");
  }

  /** The elements the decision is about: the one to act (ring), its target (red ring), the aids (dashed). */
  function marks() {
    const p = state.view.pending || {};
    const acting = new Set(), target = new Set(), aids = new Set(p.aids || []);
    for (const k of ["element", "shooter", "x"]) if (typeof p[k] === "number" && p[k] >= 0) acting.add(p[k]);
    for (const g of p.group || []) acting.add(g);
    if (typeof p.target === "number" && p.target >= 0) target.add(p.target);
    if (state.view.stage === "recoil_choice" && typeof p.winner === "number" && p.winner >= 0) target.add(p.winner);
    for (const i of contacts()) target.add(i);
    return {acting, target, aids};
  }

  /** face_choice (RULES.md 10): the enemies it may turn to face, one per offered facing, by the facing's letter. */
  function contactsByFacing() {
    const v = state.view, p = v.pending || {}, out = {};
    if (v.stage !== "face_choice" || typeof p.element !== "number" || !v.elements[p.element]) return out;
    const [w, h] = mapSize(), e = v.elements[p.element];
    for (const d of p.choices || []) {
      const there = stepFrom(e.cell, d, w, h);
      const i = there ? v.elements.findIndex(x => x.cell === there && x.side !== e.side) : -1;
      if (i >= 0) out[FACE_LETTERS[d]] = i;
    }
    return out;
  }
  const contacts = () => Object.values(contactsByFacing());

  /** recoil_choice (RULES.md 15.1, 16.1): the cell each offered way leads into first, by the way's letter. */
  function recoilCells() {
    const v = state.view, p = v.pending || {}, out = {};
    if (v.stage !== "recoil_choice" || typeof p.element !== "number" || !v.elements[p.element]) return out;
    const [w, h] = mapSize();
    for (const d of p.dirs || []) out[FACE_LETTERS[d]] = stepFrom(v.elements[p.element].cell, d, w, h);
    return out;
  }

  // ---------------------------------------------------------------- the map
  function groundCell(g, ch, cell) {
    const [x, y] = corner(cell);
    const t = GROUND[ch] || "open";
    g.append(svg("rect", {x, y, width: S, height: S, class: `ta-ground ta-${t}`}));
    if (t === "wood") for (const [dx, dy] of [[12, 14], [27, 13], [19, 27]]) g.append(svg("circle", {cx: x + dx, cy: y + dy, r: 6, class: "ta-tree"}));
    else if (t === "crater") g.append(svg("ellipse", {cx: x + S / 2, cy: y + S / 2 + 2, rx: S * 0.3, ry: S * 0.2, class: "ta-crater"}));
    else if (t === "ruin" || t === "town") {
      for (const [dx, dy, w, h] of [[6, 8, 11, 9], [21, 6, 12, 10], [12, 23, 14, 9]]) g.append(svg("rect", {x: x + dx, y: y + dy, width: w, height: h, class: "ta-house"}));
    } else if (t === "hill") g.append(svg("ellipse", {cx: x + S / 2, cy: y + S / 2, rx: S * 0.38, ry: S * 0.26, class: "ta-contour"}));
    else if (t === "road" || t === "bridge") g.append(svg("rect", {x, y: y + S * 0.38, width: S, height: S * 0.24, class: "ta-roadband"}));
    else if (t === "river" || t === "ford") g.append(svg("path", {d: `M${x + 3},${y + S / 2} q6,-6 12,0 t12,0 t12,0`, class: "ta-ripple"}));
    if (ch === "#" || ch === "S") {  // a trench: the cell's rim dug (it shows round an element on it) and a zig-zag
      g.append(svg("rect", {x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, class: "ta-trench-rim"}));
      g.append(svg("path", {d: `M${x},${y + S / 2} l5,-5 l10,10 l10,-10 l10,10 l5,-5`, class: "ta-trench", "data-trench": label(cell)}));
    }
    if (ch === "S") g.append(svg("rect", {x: x + 3, y: y + 3, width: S - 6, height: S - 6, class: "ta-strongpoint"}));
  }

  function wireMark(cell) {
    const [x, y] = corner(cell);
    const d = [];
    for (let k = 0; k < 4; k++) d.push(`M${x + 2 + k * 9},${y + S * 0.25} l9,${S * 0.5} M${x + 2 + k * 9},${y + S * 0.75} l9,${-S * 0.5}`);
    return svg("path", {d: d.join(" "), class: "ta-wire", "data-wire": label(cell)});
  }

  function bunkerMark(cell) {
    const [x, y] = corner(cell);
    const g = svg("g", {class: "ta-bunker", "data-bunker": label(cell)});
    g.append(svg("title", {}, `the Command Bunker at ${label(cell)}: the attacker wins the moment it is destroyed`));
    g.append(svg("rect", {x: x + 5, y: y + 9, width: S - 10, height: S - 16, rx: 4, class: "ta-bunker-body"}));
    g.append(svg("text", {x: x + S / 2, y: y + S / 2 + 4, class: "ta-bunker-text"}, "HQ"));
    return g;
  }

  /** An element's counter, `k` of `n` sharing its cell (an Aerial, a Barrage or Gas over ground). */
  function counter(e, i, k, n, m) {
    const cell = cellOf(e.cell);
    const [x0, y0] = corner(cell);
    const w = (S - 6) / n, h = S - 6, x = x0 + 3 + k * w, y = y0 + 3;
    const mine = e.side === seatIndex(state.you);
    const cls = `ta-el side-${e.side}${mine ? " own" : ""}${m.acting.has(i) ? " acting" : ""}${m.target.has(i) ? " target" : ""}` +
      `${m.aids.has(i) ? " aid" : ""}${e.suppressed ? " suppressed" : ""}${e.general ? " general" : ""}`;
    const g = svg("g", {class: cls, "data-cell": e.cell, "data-element": String(i), "data-code": code(e),
      "data-facing": FACE_LETTERS[e.facing]});
    g.append(svg("title", {}, elementTitle(e)));
    g.append(svg("rect", {x, y, width: w, height: h, rx: 4, class: "ta-body"}));
    const cx = x + w / 2, cy = y + h / 2;
    // the facing: a triangle on the side it faces
    const t = 5, tri = [
      `M${cx - t},${y + t + 1} L${cx},${y + 1} L${cx + t},${y + t + 1} Z`,
      `M${x + w - t - 1},${cy - t} L${x + w - 1},${cy} L${x + w - t - 1},${cy + t} Z`,
      `M${cx - t},${y + h - t - 1} L${cx},${y + h - 1} L${cx + t},${y + h - t - 1} Z`,
      `M${x + t + 1},${cy - t} L${x + 1},${cy} L${x + t + 1},${cy + t} Z`][e.facing];
    g.append(svg("path", {d: tri, class: "ta-facing"}));
    g.append(svg("text", {x: cx, y: cy + 4, class: "ta-code" + (n > 1 ? " small" : "")}, code(e)));
    if (e.suppressed) g.append(svg("circle", {cx: x + w - 5, cy: y + h - 5, r: 3.5, class: "ta-supp"}));
    return g;
  }

  function render(board) {
    const v = state.view, sc = (state.map && state.map.scenario) || v.scenario;
    const rows = sc.map, height = rows.length, width = rows[0].length;
    const W = MARGIN + S * width + 4, H = MARGIN + S * height + 4;
    const root = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "hexmap ta-map", role: "img", "aria-label": "trench map"});
    root.style.setProperty("--min-map-w", `${Math.ceil(W * MIN_CELL_PX / S)}px`);  // a narrow screen only (style.css)
    const ground = svg("g", {class: "ta-terrain"}), cells = svg("g", {class: "hexes"}), labels = svg("g", {class: "ta-labels"});
    for (let c = 0; c < width; c++) labels.append(svg("text", {x: MARGIN + S * c + S / 2, y: MARGIN - 5, class: "ta-axis"}, String.fromCharCode(65 + c)));
    for (let r = 0; r < height; r++) {
      labels.append(svg("text", {x: MARGIN - 4, y: MARGIN + S * r + S / 2 + 4, class: "ta-axis row"}, String(r + 1)));
      for (let c = 0; c < width; c++) {
        const cell = r * STRIDE + c, ch = rows[r][c];
        groundCell(ground, ch, cell);
        const [x, y] = corner(cell);
        const hit = svg("g", {class: "hex ta-cell", "data-step": `cell:${label(cell)}`, "data-cell": label(cell)});
        const here = v.elements.filter(e => e.cell === label(cell)).map(elementTitle);
        hit.append(svg("title", {}, `${label(cell)}: ${GROUND[ch] || "open"}${ch === "#" || ch === "S" ? ", trench" : ""}` +
          `${ch === "S" ? ", Strongpoint" : ""}${label(cell) in v.wire ? ", wire" : ""}${here.map(t => "\n" + t).join("")}`));
        hit.append(svg("rect", {x, y, width: S, height: S, class: "ta-pad"}));  // the whole cell takes the tap
        hit.append(svg("rect", {x: x + 1, y: y + 1, width: S - 2, height: S - 2, class: "hit"}));
        cells.append(hit);
      }
    }
    root.append(ground, labels);
    const works = svg("g", {class: "ta-works"});
    for (const w of Object.keys(v.wire)) works.append(wireMark(cellOf(w)));
    rows.forEach((line, r) => [...line].forEach((ch, c) => {
      if (ch === "K" && v.bunker_alive) works.append(bunkerMark(r * STRIDE + c));
    }));
    root.append(works);
    // the decision: a line from the shooter to its target, a frame on the chosen destination
    const p = v.pending || {}, m = marks(), lines = svg("g", {class: "ta-lines"});
    const at = i => (i >= 0 && v.elements[i] && onBoard(v.elements[i]) ? centre(cellOf(v.elements[i].cell)) : null);
    if (typeof p.shooter === "number" && typeof p.target === "number") {
      const a = at(p.shooter), b = at(p.target);
      if (a && b) lines.append(svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "ta-shot"}));
    }
    for (const dest of [p.dest, p.cell]) {
      if (typeof dest !== "number") continue;
      const [x, y] = corner(dest);
      lines.append(svg("rect", {x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, class: "ta-dest", "data-dest": label(dest)}));
    }
    for (const [letter, there] of Object.entries(recoilCells())) {  // the ways a recoil may go: an arrow into each cell
      if (!there) continue;
      const [x, y] = corner(cellOf(there));
      lines.append(svg("rect", {x: x + 1.5, y: y + 1.5, width: S - 3, height: S - 3, class: "ta-recoil", "data-recoil": letter}));
    }
    // elements: those sharing a cell side by side
    const units = svg("g", {class: "ta-elements"}), byCell = new Map();
    v.elements.forEach((e, i) => { if (onBoard(e)) { if (!byCell.has(e.cell)) byCell.set(e.cell, []); byCell.get(e.cell).push(i); } });
    for (const list of byCell.values()) list.forEach((i, k) => units.append(counter(v.elements[i], i, k, list.length, m)));
    // the cells to click lie over everything, transparent until lit: a click on an element is a click on its cell
    root.append(units, lines, cells);

    const wrap = el("div", {class: "hex-wrap ta-wrap"});
    wrap.append(statusBar());
    const mapBox = el("div", {class: "map-box"});
    mapBox.append(root);
    wrap.append(mapBox, forces(), eventsBox(), legend());
    const old = board.querySelector(".map-box");
    const scrolled = old && old.dataset.session === state.session ? [old.scrollLeft, old.scrollTop] : null;
    mapBox.dataset.session = state.session;
    board.innerHTML = "";
    board.append(wrap);
    if (scrolled) [mapBox.scrollLeft, mapBox.scrollTop] = scrolled;
    const key = `${state.session}:${state.version}`;
    if (key !== revealed) {  // a new state, a new decision: once the shell has lit its cells, show it (once)
      revealed = key;
      const shown = state;
      requestAnimationFrame(() => { if (cw.state() === shown) reveal(mapBox); });
    }
  }

  let revealed = null;  // the decision last shown by reveal (the player's own scrolling is left alone after that)

  /** Where the map can be seen: the map box, between the sticky top bar and the decision bar fixed at the bottom
   * of a narrow screen (style.css), viewport pixels. */
  function visibleBand(mapBox) {
    const b = mapBox.getBoundingClientRect(), top = document.querySelector(".topbar"), bar = document.getElementById("action-bar");
    const t = top && getComputedStyle(top).position === "sticky" ? top.getBoundingClientRect().bottom : 0;
    const u = bar && getComputedStyle(bar).position === "fixed" ? bar.getBoundingClientRect().top : window.innerHeight;
    return {left: Math.max(b.left, 0), right: Math.min(b.right, window.innerWidth), top: Math.max(b.top, t), bottom: Math.min(b.bottom, u), t, u};
  }

  /** On a map larger than the screen (a 16 x 24 map on a phone, its cells 44 px), scroll the decision into view: the
   * element it is about (or its chosen cell), else, when none of the lit cells can be seen, the first of them. The map
   * box scrolls sideways, the page down; a cell already in view is not moved. */
  function reveal(mapBox) {
    const map = mapBox.querySelector("svg.ta-map");
    if (!map || state.status !== "your_turn") return;
    const lit = [...map.querySelectorAll("g.ta-cell.clickable")];
    const band = visibleBand(mapBox);
    const seen = r => r.left >= band.left - 0.5 && r.right <= band.right + 0.5 && r.top >= band.top - 0.5 && r.bottom <= band.bottom + 0.5;
    const acting = map.querySelector("g.ta-el.acting, .ta-dest");
    const target = acting || (lit.length && !lit.some(c => seen(c.getBoundingClientRect())) ? lit[0] : null);
    if (!target) return;
    const r = target.getBoundingClientRect();
    if (seen(r)) return;
    if (r.left < band.left || r.right > band.right) mapBox.scrollLeft += (r.left + r.right) / 2 - (band.left + band.right) / 2;
    if (r.top < band.top || r.bottom > band.bottom) window.scrollBy(0, (r.top + r.bottom) / 2 - (band.t + band.u) / 2);
  }

  function statusBar() {
    const v = state.view, sc = v.scenario;
    return el("div", {class: "ta-status", "data-bound": String(v.bound), "data-pips": String(v.pips)},
      `<span><b>Bound ${esc(v.bound)}</b> of ${esc(2 * sc.turn_limit)} \u00b7 the ${esc(SIDES[v.active])}'s</span>` +
      `<span class="ta-pips" title="PIPs left of those rolled this bound">PIPs <b>${esc(v.pips)}</b> of ${esc(v.pip_roll)}</span>` +
      `<span class="muted">${esc(human(v.stage))}</span>`);
  }

  /** Lost AP and the break point of a side (RULES.md 17.2: it breaks when its Lost AP is at least half its army's,
   * reserve included), from the view's elements. */
  function apOf(side) {
    const els = state.view.elements.filter(e => e.side === side);
    const total = els.reduce((n, e) => n + ap(e), 0), lost = els.filter(e => e.cell === "lost").reduce((n, e) => n + ap(e), 0);
    return {total, lost, breaks: Math.ceil(total / 2)};
  }

  /** Per side: who plays it, its reserve, its Lost elements and AP against its break point. */
  function forces() {
    const v = state.view, me = seatIndex(state.you);
    const box = el("div", {class: "ta-forces"});
    for (const side of [0, 1]) {
      const els = v.elements.filter(e => e.side === side);
      const list = where => els.filter(e => e.cell === where).map(e => esc(typeName(e))).join(", ") || `<span class="muted">none</span>`;
      const a = apOf(side);
      box.append(el("div", {class: `ta-force side-${side}`, "data-side": String(side)},
        `<span class="dot"></span><b>${esc(cap(SIDES[side]))}</b> <span class="muted">${me === side ? "you" : "bot"}</span>` +
        `<span class="stat">on the map ${els.filter(onBoard).length}</span>` +
        `<span class="stat" data-lost-ap="${a.lost}">Lost ${a.lost} AP of ${a.total} (breaks at ${a.breaks})</span>` +
        `<span class="stat">reserve: ${list("reserve")}</span><span class="stat">Lost: ${list("lost")}</span>`));
    }
    return box;
  }

  function eventsBox() {
    const v = state.view;
    const box = el("div", {class: "panel ta-events"});
    box.innerHTML = `<h2>This bound</h2><ol class="ta-event-list">` +
      (v.events.slice(-12).map(e => `<li>${esc(e)}</li>`).join("") || `<li class="muted">nothing yet</li>`) + "</ol>";
    return box;
  }

  function legend() {
    const grounds = ["open", "road", "hill", "wood", "crater", "ruin", "town", "river", "lake"];
    const t = types();
    const codes = Object.values(t).map(x => `${x.code} ${x.name}`).join(" \u00b7 ");
    return el("div", {class: "legend ta-legend"},
      grounds.map(g => `<span data-terrain="${g}"><i class="sw ta-${g}"></i>${g}</span>`).join("") +
      `<span data-terrain="trench"><i class="sw ta-sw-trench"></i>trench</span>` +
      `<span data-terrain="wire"><i class="sw ta-sw-wire"></i>wire</span><span data-terrain="bunker"><i class="sw ta-sw-bunker"></i>Bunker</span>` +
      `<span class="legend-units">${esc(state.map.general_code || "GN")} General \u00b7 ${esc(codes)}; the triangle: where it faces; ` +
      `a yellow dot: suppressed; gold ring: the element the decision is about, red: its target</span>`);
  }

  // ---------------------------------------------------------------- the side panel's words
  const STAGE_WORDS = {
    moves: "click an element to move it, bring on a reserve or pay for a spend, or end the moves",
    move_dest: "click where it moves",
    move_face: "choose the way it faces at the end of the move",
    turning: "choose the way it turns to face",
    face_choice: "two enemies contact it: choose which one it turns to face",
    shoot_select: "distant shooting: click the next element to shoot",
    shoot_target: "click its target",
    shoot_aid: "click an element to aid the shot, or no more aids",
    shoot_return: "shoot back, or not",
    combat_select: "close combat: click an element in a combat to fight it next",
    combat_partner: "click the enemy it fights first",
    recoil_choice: "it recoils along the trench: choose the way (or take Suppression where offered)",
    enter_cell: "click the cell it enters on",
    enter_face: "choose the way it faces",
    spend_target: "click the element the spend is for",
    group_add: "click an element to add to the group, or move the group as it is",
    group_move: "click where the group's lead moves, or turn the group",
    setup: "click the cell it is placed on",
    air_contact: "a free aerial contact: click an Aerial to make one, or none",
    air_dest: "click the cell it flies to",
    air_face: "choose the way it faces",
  };

  function prompt(a) {
    const v = state.view, p = v.pending || {};
    let subject = "";
    if (v.stage === "shoot_aid" || v.stage === "shoot_return") subject = `${who(p.shooter)} shoots at ${who(p.target)}: `;
    else if (v.stage === "recoil_choice" && typeof p.winner === "number") subject = `${who(p.element)}, beaten by ${who(p.winner)}: `;
    else if (typeof p.shooter === "number") subject = `${who(p.shooter)}: `;
    else if (typeof p.x === "number") subject = `${who(p.x)}: `;
    else if (typeof p.element === "number") subject = `${who(p.element)}${typeof p.dest === "number" ? " to <b>" + label(p.dest) + "</b>" : ""}: `;
    else if (p.spend) subject = `${esc(SPEND_NAMES[p.spend] || cap(human(p.spend)))}: `;
    else if (v.stage === "moves") subject = `Your bound, <b>${esc(v.pips)}</b> PIP${v.pips === 1 ? "" : "s"} left: `;
    const words = (v.stage === "spend_target" && SPEND_WORDS[p.spend]) || STAGE_WORDS[v.stage] || "choose";
    const lit = a.next.size;
    return subject + esc(subject ? words : cap(words)) + "." +
      (lit ? ` <span class="muted">(${lit} cell${lit === 1 ? "" : "s"} lit)</span>` : "");
  }

  /** What the PIPs of a spend go to (RULES.md 9.2, 9.3, 16.3): its name and what to click. */
  const SPEND_NAMES = {counter: "Counter-battery", rally: "Rally", raid: "The Bomber's raid"};
  const SPEND_WORDS = {counter: "click the enemy Barrage to lift", rally: "click the suppressed element to rally",
    raid: "click the enemy Barrage the Bomber destroys"};
  const SPEND_LABELS = {"counter-battery": "Counter-battery: lift an enemy Barrage", rally: "Rally: lift Suppression (1 PIP)",
    raid: "Raid the enemy Barrage", group: "Move it as a group", mount: "Mount", dismount: "Dismount",
    yes: "Shoot back", suppress: "Take Suppression (no recoil)"};
  const END_LABELS = {moves: "End the moves", shoot_aid: "No more aids", shoot_return: "Do not shoot back",
    group_add: "Move the group as it is", air_contact: "No aerial contact"};

  function choiceLabel(move) {
    const stage = state ? state.view.stage : "";
    if (move.startsWith("face ")) {
      const letter = move.slice(5), dir = FACINGS[FACE_LETTERS.indexOf(letter)] || letter;
      if (stage === "recoil_choice") {  // the way it recoils, and the cell that way (RULES.md 15.1, 16.1)
        const there = recoilCells()[letter];
        return `Recoil ${dir}${there ? " towards " + there : ""}`;
      }
      if (stage === "face_choice") {  // the enemy it turns to face (RULES.md 10)
        const i = contactsByFacing()[letter];
        return `Face ${dir}` + (i === undefined ? "" : `: ${whoText(i)}`);
      }
      return "Face " + dir;
    }
    if (move.startsWith("enter ")) {
      const t = types()[move.slice(6)];
      return `Bring on: ${t ? t.name : cap(human(move.slice(6)))}`;
    }
    if (move === "end") return END_LABELS[stage] || "End";
    return SPEND_LABELS[move] || cap(move);
  }

  /** The kind of a cell's click, for its highlight: a shot's target red, a destination green. */
  function moveKind() {
    const stage = state.view.stage;
    return stage === "shoot_target" ? "shoot" : stage.endsWith("_dest") || stage === "enter_cell" || stage === "group_move" ? "move" : "pick";
  }

  /** What ends the game and who wins (RULES.md 17.3, under the game's rule options), and the count as it stands. */
  function scenario(map) {
    if (!map) return "";
    const rules = state.rules || {}, sc = map.scenario, d = apOf(0), at = apOf(1);
    const limit = rules.turn_limit_result === "draw" ? "the game is a draw" : "the defender wins: the attack failed";
    return `<h2>How to win</h2><div class="scenario-title">${esc(sc.title)} <span class="muted">\u00b7 ${esc(sc.turn_limit)} ` +
      `bounds a side</span></div><p class="scenario-victory ta-victory"><b>Breakthrough:</b> the attacker wins the moment ` +
      `the Command Bunker is destroyed. <b>Break point:</b> at the end of a bound, a side whose Lost elements come to half ` +
      `its army's AP or more loses (both: the larger share loses). ` +
      (rules.general_loss === "hott" ? "<b>General:</b> a side whose General is Lost and which has lost more AP than the " +
        "enemy loses. " : "") +
      `<b>Turn limit:</b> after the attacker's last bound, ${limit}.</p>` +
      `<p class="victory-now" data-lost="${d.lost}-${at.lost}">Now: Lost AP defender <b>${d.lost}</b> of ${d.breaks} to break ` +
      `\u00b7 attacker <b>${at.lost}</b> of ${at.breaks} \u00b7 the Bunker ${state.view.bunker_alive ? "stands" : "is destroyed"}</p>`;
  }

  // ---------------------------------------------------------------- the log in words
  /* The player's own entries are the notation of one small decision ("C8", "face E", "end"); the page says each in
   * a sentence, from the state it is made in (ownMove, kept with the session). The events that follow an entry, and
   * the bot's entries (the events its decisions caused, RULES.md 18), are the API's words. */

  /** An element in plain words: "your Rifles at C8", "the attacker's Tank at E3". */
  function whoText(i) {
    const tmp = document.createElement("span");
    tmp.innerHTML = who(i);
    return tmp.textContent;
  }

  function ownMove(move) {
    const v = state.view, p = v.pending || {}, stage = v.stage;
    const it = typeof p.element === "number" ? cap(whoText(p.element)) : "It";
    const isCell = /^[A-P]\d{1,2}$/.test(move);
    const dir = move.startsWith("face ") ? FACINGS[FACE_LETTERS.indexOf(move.slice(5))] : null;
    const at = isCell ? v.elements.findIndex(e => e.cell === move) : -1;
    const there = at >= 0 ? whoText(at) : move;
    if (move.startsWith("enter ")) return `You bring on ${choiceLabel(move).replace("Bring on: ", "a ")} from the reserve.`;
    if (move === "counter-battery") return "You pay for counter-battery against an enemy Barrage.";
    if (move === "rally") return "You pay a PIP to rally a suppressed element.";
    switch (stage) {
      case "moves": return move === "end" ? "You end your moves." : `You pick ${there} to move.`;
      case "move_dest":
        if (move === "group") return `${it} leads a group.`;
        if (["mount", "dismount", "raid"].includes(move)) return `${it}: ${choiceLabel(move).toLowerCase()}.`;
        return typeof p.element === "number" && v.elements[p.element].cell === move ? `${it} stays at ${move} to turn.`
          : `${it} moves to ${move}.`;
      case "move_face": case "enter_face": case "air_face": case "turning": return `${it} faces ${dir || move}.`;
      case "face_choice": return `${it} turns to face ${dir || move}.`;
      case "recoil_choice": return move === "suppress" ? `${it} takes Suppression instead of recoiling.` : `${it} recoils ${dir || move}.`;
      case "shoot_select": return `${cap(there)} will shoot.`;
      case "shoot_target": return `${cap(whoText(p.shooter))} shoots at ${there}.`;
      case "shoot_aid": return move === "end" ? "No more aids to the shot." : `${cap(there)} aids the shot.`;
      case "shoot_return": return move === "yes" ? `${cap(whoText(p.target))} shoots back.` : `${cap(whoText(p.target))} does not shoot back.`;
      case "combat_select": return `You fight the combat of ${there} next.`;
      case "combat_partner": return `It fights ${there}.`;
      case "enter_cell": case "setup": return `${it} is placed at ${move}.`;
      case "spend_target": return p.spend === "rally" ? `You rally ${there}.` : p.spend === "raid" ?
        `The Bomber raids ${there}.` : `Counter-battery against ${there}.`;
      case "group_add": return move === "end" ? "The group moves as it is." : `${cap(there)} joins the group.`;
      case "group_move": return dir ? `The group turns to face ${dir}.` : `The group moves, its lead to ${move}.`;
      case "air_contact": return move === "end" ? "No free aerial contact." : `${cap(there)} makes a free aerial contact.`;
      case "air_dest": return `${it} flies to ${move}.`;
      default: return isCell ? `You chose ${move}.` : `You chose: ${choiceLabel(move)}.`;
    }
  }

  /** A log entry: the player's own in a sentence (from its note; a game continued elsewhere has the notation), then
   * the events it caused, a line each; the bot's as the API gives them. */
  function logItem(line, own, note) {
    const [move, ...events] = String(line).split("; ");
    const parts = events.map(e => `<span class="part">${esc(e)}</span>`).join("");
    if (!own) return line ? esc(move) + parts : "";
    return `<span class="ta-own" data-move="${esc(move)}">${esc(note || move)}</span>` + parts;
  }

  /** The bot's last moves: what they caused, an event a line; its steps that showed nothing yet (an element
   * chosen, a destination before the facing) counted in one line. */
  function botMoveItems(lines) {
    const events = lines.flatMap(l => String(l).split("; ")).filter(Boolean);
    const quiet = lines.filter(l => !l).length;
    return events.map(e => esc(e)).concat(quiet ? [`<span class="muted">${quiet} step${quiet === 1 ? "" : "s"} ` +
      "of its decisions that showed nothing yet</span>"] : []);
  }

  cw.pages.tankattack = {
    render: fresh(render), prompt: fresh(prompt), choiceLabel: fresh(choiceLabel), moveKind: fresh(moveKind),
    scenario: fresh(scenario), ownMove: fresh(ownMove), logItem: fresh(logItem), botMoveItems,
    seatName: seat => cap(seat),
    title: s => (s.map && s.map.scenario && s.map.scenario.title) || "Tank Attack",
    turnSub: v => `Bound ${v.bound} of ${2 * v.scenario.turn_limit} \u00b7 PIPs ${v.pips}`,
    resultOrder: "(defender \u2013 attacker)",
  };
})();
