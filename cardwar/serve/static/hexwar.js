/* The hex WW2 game on cardwar's web page (the game registry's `page` for it).
 *
 * Drawn from the state the server sends: `state.map` (the public map: terrain, objectives, sides, the victory
 * condition; never a unit) and `state.view` (the seat's information view: the units it may see, the cards of the
 * turn, smoke, shots). Every hex and unit carries `data-step` ("hex:C4", "unit:3"): the page's click machinery
 * (app.js) lights those that continue a legal move; the unit the card activated starts selected (`basePrefix`).
 */
"use strict";

(function () {
  const cw = window.cardwar;
  const {esc, el, svg, cap, human, hexPoints, SUITS} = cw;
  const {parts: cardParts, value: cardValue} = cw.cards;
  let state = null;  // the state being drawn (read at each entry point)
  const fresh = f => (...args) => { state = cw.state(); return f(...args); };
  let ui = null;     // {board}: the element drawn into

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


  function render(board) {
    ui = {board};
    renderHex();
  }

  /** The scenario's story and its victory condition (the story's own "Victory:" part is the same sentence the
   * server sends as map.victory, so it is shown once). */
  function scenario(map) {
    if (!map) return "";
    const description = String(map.description || "");
    const cut = description.indexOf("Victory:");
    const story = (cut >= 0 ? description.slice(0, cut) : description).trim();
    const victory = String(map.victory || (cut >= 0 ? description.slice(cut) : "")).replace(/^Victory:\s*/, "");
    return `<h2>Scenario</h2><div class="scenario-title">${esc(map.title || human(map.name))}` +
      ` <span class="muted">\u00b7 ${esc(map.turns)} turns</span></div>` +
      (story ? `<p class="scenario-story">${esc(story)}</p>` : "") +
      (victory ? `<p class="scenario-victory"><b>Victory:</b> ${esc(victory)}</p>` : "");
  }

  const LABELS = {pass: "Pass", evade: "Evade (\u22121 hit, loses its action)", "no evade": "Do not evade"};

  function choiceLabel(move) {
    if (LABELS[move]) return LABELS[move];
    const w = move.split(" ");
    const joint = w[0] === "joint";
    const verb = joint ? w[1] : w[0];
    const where = joint ? w[2] : w[1];
    let label = {move: "Move", shoot: "Shoot", smoke: "Lay smoke"}[verb] || cap(verb);
    if (where && where.includes("/")) label += ` at unit ${where.split("/")[1]} there`;
    return (joint ? "Joint: " : "") + label;
  }

  /** The kind of a move, for the highlight's colour (a joint move's own verb). */
  function moveKind(move) {
    const words = move.split(" ");
    return words[0] === "joint" ? words[1] : words[0];
  }

  /** The card has already chosen the unit to act, so it starts selected. */
  function basePrefix(s) {
    const stepped = s.legal.filter(m => m.steps.length);
    if (!stepped.length) return [];
    const first = stepped[0].steps[0];
    return stepped.every(m => m.steps[0] === first) ? [first] : [];
  }

  function prompt(a) {
    const v = state.view;
    const sel = cw.selection();
    const prefix = cw.prefix();
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

  cw.pages.hexwar = {
    render: fresh(render), prompt: fresh(prompt), scenario, choiceLabel, moveKind, basePrefix,
    seatName: seat => cap(seat),
    title: s => (s.map && s.map.title) || "Hex WW2",
    turnSub: v => `Turn ${v.turn} of ${v.turns}`,
    resultOrder: "(blue \u2013 red)",
  };
})();
