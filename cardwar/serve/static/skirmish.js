/* The squad skirmish on cardwar's web page (the game registry's `page` for skirmish).
 *
 * Drawn from the state the server sends: `state.map` (the public map: ground, edges, objectives; never
 * a unit) and `state.view` (what the seat may know, RULES.md §9.2). The map is an SVG of pointy-top hexes
 * in odd-r rows (cell = row * 24 + col, label column letter + row number). Every hex and every figure
 * standing on one carries `data-step="hex:LABEL"`: the page's click machinery (app.js) lights those that
 * answer the current step (a destination, a target, the figure to activate, a mover to fire at); the
 * other answers (a movement mode, a stance, an action, done, hold) are buttons.
 */
"use strict";

(function () {
  const cw = window.cardwar;
  const {esc, el, svg, cap, human, hexPoints} = cw;  // hexPoints: a pointy-top hex's corners, as app.js draws
  const GRID_W = 24;
  const R = 26;                       // hex radius (centre to corner), SVG units
  const HW = Math.sqrt(3) * R;        // a hex's width
  const MARGIN = 6;
  const MIN_HEX_PX = 40;              // the least a hex is drawn across: a narrower screen scrolls the map
  const COLS = "ABCDEFGHIJKLMNOPQRSTUVWX";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUIT_CH = "CDHS";
  const STANCES = ["prone", "kneeling", "standing"];
  const FACINGS = ["E", "NE", "NW", "W", "SW", "SE"];
  const WEAPON_LETTER = {rifle: "R", smg1: "S", smg2: "S", lmg: "L", mmg: "M", pistol: "P", knife: "K"};
  const STEP_PROMPTS = {
    mode: "Choose how it moves this turn (or stay).",
    destination: "Click the hex it moves to.",
    stance: "Choose the stance it ends in.",
    watch: "It stays: watch for opportunity fire, or not?",
    action: "Choose its combat action.",
    target: "Click the target hex (or done).",
    interrupt: "An enemy moves in sight: click a mover's hex to fire at it, or hold.",
    activate: "Click the figure to act next (or done).",
    team: "Free Move: choose the fire team to activate.",
  };
  const CHOICE_LABELS = {
    stay: "Stay", crawl: "Crawl", search: "Search", walk: "Walk", run: "Run", move: "Move", all_out_run: "All-out run",
    prone: "Prone", kneeling: "Kneeling", standing: "Standing", watch: "Watch (opportunity fire)", no_watch: "No watch",
    nothing: "Nothing", fire: "Fire", burst: "Burst", grenade: "Grenade", petrol_bomb: "Petrol bomb", knife: "Throw knife",
    melee: "Melee", reload: "Reload", clear_jam: "Clear the jam", work: "Work", extinguish: "Put out the fire",
    anti_tank: "Anti-tank weapon", he: "High explosive", done: "Done", hold: "Hold fire",
    king: "Play a King: For King and Country!", speed_0: "Speed 0 (halt)", speed_1: "Speed 1", speed_2: "Speed 2",
    speed_3: "Speed 3", team_0: "Fire team 1", team_1: "Fire team 2", team_2: "Fire team 3", team_3: "Fire team 4",
  };
  const GROUND = {".": "clear", ",": "light", W: "woods", r: "rough", o: "shell_hole", B: "building", K: "bunker", "#": "off"};

  // ---------------------------------------------------------------- geometry
  const label = cell => COLS[cell % GRID_W] + (Math.floor(cell / GRID_W) + 1);
  function centre(cell) {
    const col = cell % GRID_W, row = Math.floor(cell / GRID_W);
    return [MARGIN + HW * (col + 0.5 + 0.5 * (row & 1)), MARGIN + R + 1.5 * R * row];
  }
  /** The hex side between adjacent cells a and b (shortened by `shrink` of its length at each end). */
  function side(a, b, shrink) {
    const [ax, ay] = centre(a), [bx, by] = centre(b);
    const mx = (ax + bx) / 2, my = (ay + by) / 2, dx = bx - ax, dy = by - ay, n = Math.hypot(dx, dy) || 1;
    const px = -dy / n, py = dx / n, half = R / 2 * (1 - 2 * (shrink || 0));
    return [mx - px * half, my - py * half, mx + px * half, my + py * half];
  }

  // ---------------------------------------------------------------- words
  const cardName = c => RANKS[c % 13] + SUIT_CH[Math.floor(c / 13)];
  const sideName = i => (state().map && state().map.sides[i]) || `Side ${i}`;
  const seatIndex = seat => (seat === "player_1" ? 1 : 0);
  function state() { return cw.state(); }
  function unitById(uid) { return state().view.units.find(u => u.uid === uid); }

  function miniCard(c, extra) {
    const n = cardName(c), suit = n.slice(-1);
    return `<span class="sk-card${"HD".includes(suit) ? " red" : ""}${extra ? " " + extra : ""}" data-card="${esc(n)}">` +
      `${esc(n.slice(0, -1))}${cw.SUITS[suit]}</span>`;
  }

  function orderText(o) {
    if (!o) return "";
    const parts = [];
    if (o.mode !== undefined) parts.push(human(o.mode) + (o.destination !== null && o.destination !== undefined
      ? " to " + label(o.destination) : "") + (o.watch ? ", watching" : ""));
    if (o.action !== undefined && o.action !== "nothing") {
      parts.push(human(o.action) + (o.targets && o.targets.length ? " at " + o.targets.map(label).join(", ") : ""));
    }
    return parts.join("; ");
  }

  function unitTitle(u) {
    const who = `${sideName(u.side)} ${u.name}`;
    if (!u.seen) return `${who}: last seen at ${label(u.cell)}`;
    const bits = [`${who} at ${label(u.cell)}`];
    if (u.vehicle) {
      bits.push(`armour ${u.armour}`, u.facing !== null ? `facing ${FACINGS[u.facing]}` : "");
      if (u.damage.length) bits.push(u.damage.join(", "));
    } else {
      bits.push(STANCES[u.stance], `${u.wounds} wound${u.wounds === 1 ? "" : "s"}`, `weapon ${u.weapon}`);
      if (u.ammo !== null) bits.push(`ammo ${u.ammo}/${u.reserve}`);
      if (u.grenades) bits.push(`${u.grenades} grenade${u.grenades === 1 ? "" : "s"}`);
      if (u.burning) bits.push("burning");
      if (u.jammed) bits.push("jammed");
    }
    if (u.watching) bits.push("watching");
    if (u.order) bits.push("order: " + orderText(u.order));
    return bits.filter(Boolean).join(" \u00b7 ");
  }

  function weaponLetter(u) {
    if (String(u.weapon).startsWith("at_")) return "A";
    return WEAPON_LETTER[u.weapon] || String(u.weapon || "?").slice(0, 1).toUpperCase();
  }

  // ---------------------------------------------------------------- the map
  function figure(u, x, y, acting) {
    const cls = `sk-unit side-${u.side}${u.seen ? "" : " ghost"}${acting ? " acting" : ""}` +
      `${u.wounds >= 2 ? " down" : ""}${u.vehicle ? " vehicle" : " figure"}`;
    const g = svg("g", {class: cls, "data-step": `hex:${label(u.cell)}`, "data-uid": String(u.uid),
      transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`});
    g.append(svg("title", {}, unitTitle(u)));
    if (acting) g.append(svg("circle", {r: 12.5, class: "sk-acting-ring"}));
    if (u.vehicle) {
      const ang = u.facing === null || u.facing === undefined ? 0 : -60 * u.facing;
      const body = svg("g", {transform: `rotate(${ang})`});
      body.append(svg("rect", {x: -13, y: -8, width: 26, height: 16, rx: 2, class: "sk-hull"}));
      if (u.seen && u.facing !== null) {
        body.append(svg("circle", {r: 5, class: "sk-turret"}));
        body.append(svg("line", {x1: 0, y1: 0, x2: 19, y2: 0, class: "sk-gun"}));
      }
      g.append(body);
      if (!u.seen) g.append(svg("text", {y: 4, class: "sk-letter"}, "?"));
      if (u.damage && u.damage.includes("destroyed")) g.append(svg("path", {d: "M-9,-9 L9,9 M-9,9 L9,-9", class: "sk-wreck"}));
      return g;
    }
    if (u.burning) g.append(svg("circle", {r: 10.5, class: "sk-fire"}));
    g.append(svg("circle", {r: 8, class: "sk-disc"}));
    g.append(svg("text", {y: 3.8, class: "sk-letter"}, u.seen ? weaponLetter(u) : "?"));
    if (!u.seen) return g;
    // the stance beside the disc: standing a tall bar, kneeling a short one with a foot, prone a flat bar under it
    if (u.stance === 2) g.append(svg("rect", {x: 9, y: -8, width: 2.6, height: 16, class: "sk-stance", "data-stance": "standing"}));
    else if (u.stance === 1) g.append(svg("path", {d: "M9,-1 h2.6 v7.5 h4 v2.5 h-6.6 z", class: "sk-stance", "data-stance": "kneeling"}));
    else g.append(svg("rect", {x: -8, y: 9, width: 16, height: 2.6, class: "sk-stance", "data-stance": "prone"}));
    for (let i = 0; i < Math.min(u.wounds, 3); i++) {
      const n = Math.min(u.wounds, 3);
      g.append(svg("circle", {cx: -3 * (n - 1) + 6 * i, cy: -11.5, r: 2.2, class: "sk-wound"}));
    }
    if (u.watching) g.append(svg("path", {d: "M-15,-9 h6 l-3,5 z", class: "sk-watch"}));
    return g;
  }

  function render(board) {
    const s = state(), v = s.view, map = s.map;
    const W = MARGIN * 2 + HW * (map.width + 0.5), H = MARGIN * 2 + R * (2 + 1.5 * (map.height - 1));
    const root = svg("svg", {viewBox: `0 0 ${W.toFixed(0)} ${H.toFixed(0)}`, class: "hexmap skirmish-map sk-map", role: "img",
      "aria-label": "skirmish map"});
    root.style.setProperty("--min-map-w", `${Math.ceil(W * MIN_HEX_PX / HW)}px`);  // a narrow screen only: a wide one fits the map
    const terrain = svg("g", {class: "terrain"}), hexes = svg("g", {class: "hexes"});
    const cells = [];
    for (let row = 0; row < map.height; row++) for (let col = 0; col < map.width; col++) cells.push(row * GRID_W + col);
    for (const c of cells) {
      const t = GROUND[map.ground[c]] || "clear";
      const [cx, cy] = centre(c);
      const g = svg("g", {class: `sk-t sk-${t}`, "data-ground": t});
      g.append(svg("polygon", {points: hexPoints(cx, cy, R), class: "ground"}));
      if (t === "woods") for (const [dx, dy] of [[-7, 3], [7, 4], [0, -5]]) g.append(svg("circle", {cx: cx + dx, cy: cy + dy, r: 5.5, class: "tree"}));
      else if (t === "shell_hole") g.append(svg("ellipse", {cx, cy: cy + 2, rx: R * 0.5, ry: R * 0.36, class: "crater"}));
      else if (t === "rough") for (const [dx, dy] of [[-8, 4], [6, 6], [1, -4], [9, -2]]) g.append(svg("circle", {cx: cx + dx, cy: cy + dy, r: 1.8, class: "stone"}));
      else if (t === "light") g.append(svg("path", {d: `M${cx - 10},${cy + 8} l2,-5 l2,5 M${cx + 4},${cy + 10} l2,-5 l2,5 M${cx - 3},${cy - 2} l2,-5 l2,5`, class: "tuft"}));
      g.append(svg("text", {x: cx, y: cy - R * 0.62, class: "hexlabel"}, label(c)));
      terrain.append(g);
      if (t === "off") continue;
      const h = svg("g", {class: "hex", "data-step": `hex:${label(c)}`, "data-hex": label(c)});
      h.append(svg("title", {}, `${label(c)}: ${human(t)}`));
      h.append(svg("polygon", {points: hexPoints(cx, cy, R - 1.5), class: "hit"}));
      hexes.append(h);
    }
    root.append(terrain);
    // edges: walls, hedges, doors (as they stand now), windows, building walls, embrasures
    const open = new Set((v.open_doors || []).map(([a, b]) => `${a}-${b}`));
    const edges = svg("g", {class: "sk-edges"});
    for (const [a, b, kind0] of map.edges) {
      const kind = kind0 === "door_closed" && open.has(`${a}-${b}`) ? "door_open" : kind0;
      const [x1, y1, x2, y2] = side(a, b);
      if (kind === "door_open") {
        const t = 0.28;
        edges.append(svg("line", {x1, y1, x2: x1 + (x2 - x1) * t, y2: y1 + (y2 - y1) * t, class: "sk-edge e-door", "data-edge": kind}));
        edges.append(svg("line", {x1: x2 + (x1 - x2) * t, y1: y2 + (y1 - y2) * t, x2, y2, class: "sk-edge e-door", "data-edge": kind}));
      } else {
        edges.append(svg("line", {x1, y1, x2, y2, class: `sk-edge e-${kind}`, "data-edge": kind},
        ));
      }
    }
    root.append(edges);
    // objectives: a ring in the holder's colour and a star with the points
    const owner = new Map((v.objective_owner || []).map(([c, side]) => [c, side]));
    const objectives = svg("g", {class: "objectives"});
    for (const o of map.objectives) {
      const [cx, cy] = centre(o.cell);
      const holder = owner.has(o.cell) ? owner.get(o.cell) : null;
      const g = svg("g", {class: `objective sk-objective holder-${holder === null ? "none" : holder}`, "data-objective": o.label});
      g.append(svg("title", {}, `${o.name ? o.name + ", " : ""}objective ${o.label}: ${o.points} point${o.points === 1 ? "" : "s"}, ` +
        `held by ${holder === null ? "nobody" : sideName(holder)}`));
      g.append(svg("polygon", {points: hexPoints(cx, cy, R - 3.5), class: "obj-ring"}));
      g.append(svg("text", {x: cx + R * 0.48, y: cy + R * 0.62, class: "obj-value"}, "\u2605" + o.points));
      objectives.append(g);
    }
    root.append(objectives);
    root.append(hexes);
    // declared orders as far as the seat knows them: a dashed line to the destination, a red one to each target
    const orders = svg("g", {class: "sk-orders"});
    const partial = v.partial || {};
    for (const u of v.units) {
      if (!u.seen || !u.order) continue;
      const [ux, uy] = centre(u.cell);
      const o = u.order;
      if (o.destination !== null && o.destination !== undefined && o.destination !== u.cell) {
        const [dx, dy] = centre(o.destination);
        orders.append(svg("line", {x1: ux, y1: uy, x2: dx, y2: dy, class: `sk-move-order side-${u.side}`, "data-order": "move"}));
      }
      for (const t of o.targets || []) {
        const [tx, ty] = centre(t);
        orders.append(svg("line", {x1: ux, y1: uy, x2: tx, y2: ty, class: "sk-fire-order", "data-order": o.action}));
      }
    }
    const acting = v.unit !== null && v.unit !== undefined ? unitById(v.unit) : null;
    if (acting) {  // this decision's answers so far
      const [ux, uy] = centre(acting.cell);
      if (partial.destination !== null && partial.destination !== undefined) {
        const [dx, dy] = centre(partial.destination);
        orders.append(svg("line", {x1: ux, y1: uy, x2: dx, y2: dy, class: "sk-move-order partial", "data-order": "partial"}));
      }
      for (const t of partial.targets || []) {
        const [tx, ty] = centre(t);
        orders.append(svg("line", {x1: ux, y1: uy, x2: tx, y2: ty, class: "sk-fire-order partial", "data-order": "partial"}));
      }
    }
    root.append(orders);
    // own mines
    for (const c of v.mines || []) {
      const [cx, cy] = centre(c);
      root.append(svg("path", {d: `M${cx + 6},${cy + 4} l6,6 M${cx + 6},${cy + 10} l6,-6`, class: "sk-mine"}));
    }
    // units: vehicles first, then figures side by side; the dead are not drawn
    const units = svg("g", {class: "units"});
    const byCell = new Map();
    for (const u of v.units) {
      if (!u.vehicle && (u.wounds >= 3 || (!u.active && u.wounds < 2))) continue;
      if (!byCell.has(u.cell)) byCell.set(u.cell, []);
      byCell.get(u.cell).push(u);
    }
    for (const [c, list] of byCell) {
      const [cx, cy] = centre(c);
      list.sort((a, b) => (b.vehicle - a.vehicle) || (b.seen - a.seen) || a.uid - b.uid);
      const vehicles = list.filter(u => u.vehicle), figures = list.filter(u => !u.vehicle);
      for (const u of vehicles) units.append(figure(u, cx, cy + 1, acting && u.uid === acting.uid));
      const n = figures.length;
      figures.forEach((u, i) => units.append(figure(u, cx + (i - (n - 1) / 2) * 15, cy + (vehicles.length ? 7 : 3),
        acting && u.uid === acting.uid)));
    }
    root.append(units);

    const wrap = el("div", {class: "hex-wrap skirmish"});
    wrap.append(forces());
    const mapBox = el("div", {class: "map-box"});
    mapBox.append(root);
    wrap.append(mapBox);
    wrap.append(eventsBox());
    wrap.append(rosterBox());
    wrap.append(legend());
    const old = board.querySelector(".map-box");
    const scrolled = old && old.dataset.session === s.session ? [old.scrollLeft, old.scrollTop] : null;
    mapBox.dataset.session = s.session;
    board.innerHTML = "";
    board.append(wrap);
    if (scrolled) {
      [mapBox.scrollLeft, mapBox.scrollTop] = scrolled;
    } else if (mapBox.scrollWidth > mapBox.clientWidth) {  // a narrow screen: start with the own figures in view
      const own = s.you === null ? [] : [...root.querySelectorAll(`.sk-unit.side-${seatIndex(s.you)}`)];
      const mine = root.querySelector(".sk-unit.acting") ? [root.querySelector(".sk-unit.acting")] : own;
      if (mine.length) {
        const xs = mine.map(e => { const r = e.getBoundingClientRect(); return r.left + r.width / 2; });
        const box = mapBox.getBoundingClientRect();
        mapBox.scrollLeft += (Math.min(...xs) + Math.max(...xs)) / 2 - (box.left + box.width / 2);
      }
    }
  }

  /** Per side: whose it is, the cards drawn this turn (face up), pack and discards, Kings, casualty points. */
  function forces() {
    const s = state(), v = s.view, me = s.you === null ? null : seatIndex(s.you);
    const box = el("div", {class: "forces sk-forces"});
    for (const i of [0, 1]) {
      let kings;
      if (me === i) kings = v.kings.length ? v.kings.map(c => miniCard(c, "king")).join("") : "none";
      else if (me !== null) kings = String(v.enemy_kings);
      else kings = "?";
      const drawn = v.drawn[i].length ? v.drawn[i].map(c => miniCard(c)).join("") : `<span class="muted">none</span>`;
      box.append(el("div", {class: `force sk-force side-${i}`, "data-side": String(i)},
        `<span class="dot"></span><b>${esc(sideName(i))}</b>` +
        `<span class="muted">${me === i ? "you" : (me === null ? s.bot.seat === `player_${i}` ? "bot" : "person" : "bot")}</span>` +
        `<span class="stat">pack ${v.pack_sizes[i]} \u00b7 discards ${v.discard_sizes[i]}</span>` +
        `<span class="stat">casualty points scored ${v.casualty_points[i]}</span>` +
        `<span class="stat">Kings ${kings}</span>` +
        `<span class="sk-drawn" data-drawn="${i}"><span class="muted">drawn this turn:</span> ${drawn}</span>`));
    }
    return box;
  }

  function activationText(v) {
    const a = v.activation;
    if (!a) return "";
    const map = state().map;
    if (a[0] === "team") {
      const names = (map.teams && map.teams[String(a[1])]) || [];
      return `${sideName(a[1])} ${names[a[2]] || "fire team " + (a[2] + 1)}`;
    }
    if (a[0] === "free") return `${sideName(a[1])} free move`;
    const u = unitById(a[1]);
    return u ? u.name : `${a[0]} ${a[1]}`;
  }

  /** This turn's events the seat may read: the draws, the reveal of the declared orders, the wounds. */
  function eventsBox() {
    const v = state().view;
    const box = el("div", {class: "panel sk-events"});
    const head = `Turn ${v.turn} of ${v.turn_limit} \u00b7 ${human(v.stage)}` +
      (v.sequence === "deck" ? ` \u00b7 activation: ${activationText(v) || "none"} (${v.deck_left} left)` : "");
    box.innerHTML = `<h2>This turn</h2><div class="sk-stage">${esc(head)}</div>` +
      `<ol class="sk-event-list">${v.events.slice(-14).map(e => `<li>${esc(e)}</li>`).join("") || `<li class="muted">nothing yet</li>`}</ol>`;
    return box;
  }

  /** The units as the seat knows them: its own in full, the enemy's as seen (or where last seen). */
  function rosterBox() {
    const s = state(), v = s.view;
    const box = el("div", {class: "panel sk-roster"});
    let html = "<h2>Figures</h2><table><thead><tr><th>side</th><th>name</th><th>hex</th><th>stance</th><th>wounds</th>" +
      "<th>weapon</th><th>ammo</th><th>order</th></tr></thead><tbody>";
    for (const u of v.units) {
      const status = u.vehicle ? (u.damage.join(", ") || (u.active ? "" : "out")) : (u.wounds >= 3 ? "dead" : String(u.wounds));
      html += `<tr class="side-${u.side}${u.seen ? "" : " ghost"}${u.uid === v.unit ? " acting" : ""}" data-uid="${u.uid}">` +
        `<td><span class="dot"></span></td><td>${esc(u.name)}</td><td>${esc(label(u.cell))}${u.seen ? "" : "?"}</td>` +
        `<td>${u.vehicle ? (u.facing !== null && u.facing !== undefined ? "facing " + FACINGS[u.facing] : "") : u.seen ? STANCES[u.stance] : "?"}</td>` +
        `<td>${esc(status)}</td><td>${esc(u.weapon)}</td>` +
        `<td>${u.ammo !== null && u.ammo !== undefined ? `${u.ammo}/${u.reserve}` : (u.at_ammo !== null && u.at_ammo !== undefined ? String(u.at_ammo) : "")}</td>` +
        `<td class="sk-order-cell">${esc(orderText(u.order))}</td></tr>`;
    }
    box.innerHTML = html.replace("<table>", `<div class="sk-table-scroll"><table>`) + "</tbody></table></div>";
    return box;
  }

  function legend() {
    const grounds = ["clear", "light", "woods", "rough", "shell_hole", "building", "bunker"];
    return el("div", {class: "legend sk-legend"},
      grounds.map(t => `<span data-terrain="${t}"><i class="sw sk-${t}"></i>${human(t)}</span>`).join("") +
      `<span><i class="sw-line e-wall_low"></i>wall</span><span><i class="sw-line e-hedge_low"></i>hedge</span>` +
      `<span><i class="sw-line e-door"></i>door</span><span><i class="sw-line e-window"></i>window</span>` +
      `<span class="legend-units">R rifle \u00b7 S SMG \u00b7 L LMG \u00b7 M MMG \u00b7 P pistol \u00b7 A anti-tank; ` +
      `bar: standing tall, kneeling short, prone flat; red pips: wounds; ? last seen there</span>`);
  }

  // ---------------------------------------------------------------- the side panel's words
  function prompt(a) {
    const s = state(), v = s.view;
    const u = v.unit !== null && v.unit !== undefined ? unitById(v.unit) : null;
    const who = u ? `<b>${esc(u.name)}</b> at <b>${esc(label(u.cell))}</b>: ` : "";
    const step = STEP_PROMPTS[v.step] || "Choose.";
    const hexes = a.next.size;
    return who + esc(step) + (hexes ? ` <span class="muted">(${hexes} hex${hexes === 1 ? "" : "es"} lit)</span>` : "");
  }

  function choiceLabel(move) { return CHOICE_LABELS[move] || cap(human(move)); }

  function seatName(seat) {
    const s = state();
    const i = seatIndex(seat);
    const names = s && s.map && s.map.sides;
    return names ? `${names[i]} (${human(seat)})` : cap(human(seat));
  }

  function scenario(map) {
    if (!map) return "";
    const description = String(map.description || "");
    const cut = description.indexOf("Victory:");
    const story = (cut >= 0 ? description.slice(0, cut) : description).trim();
    return `<h2>Scenario</h2><div class="scenario-title">${esc(map.title)} <span class="muted">\u00b7 ${esc(map.turn_limit)} turns</span></div>` +
      (story ? `<p class="scenario-story">${esc(story)}</p>` : "") +
      `<p class="scenario-victory"><b>Victory:</b> ${esc(map.victory.text)}</p>`;
  }

  // ---------------------------------------------------------------- the logs in words
  /* A log entry of the other seat is "player_1 decides" and the public events its step caused (RULES.md §9.1: the
   * step itself is hidden); the player's own entries are the notation of a step ("walk", "H5"), put in words from
   * the state each was made in (ownMove, kept with the session) or, for a game continued elsewhere, from the word. */
  const MODE_WORDS = {crawl: "crawl", search: "move searching", walk: "walk", run: "run", move: "move",
    all_out_run: "run all out"};
  const ACTION_WORDS = {fire: "fire", burst: "fire a burst", grenade: "throw a grenade", petrol_bomb: "throw a petrol bomb",
    knife: "throw a knife", melee: "fight in melee", reload: "reload", clear_jam: "clear its jam", work: "work",
    extinguish: "put out the fire", anti_tank: "fire its anti-tank weapon", he: "fire high explosive"};
  const isHex = move => /^[A-X][0-9]{1,2}$/.test(move);

  /** The figure a seat sees standing at hex ``where`` (an enemy first), or null. */
  function figureAt(where, enemy) {
    const s = state(), me = s.you === null ? null : seatIndex(s.you);
    const here = s.view.units.filter(u => u.seen && label(u.cell) === where && (u.vehicle || u.wounds < 3));
    return here.find(u => enemy && u.side !== me) || here[0] || null;
  }

  /** The player's move ``move`` in words, from the state it is made in (its step and figure). */
  function ownMove(move) {
    const s = state(), v = s.view;
    const u = v.unit !== null && v.unit !== undefined ? unitById(v.unit) : null;
    const who = u ? u.name : "Your side";
    const at = isHex(move) ? figureAt(move, v.step !== "activate") : null;
    const there = isHex(move) ? (at ? `${at.name} at ${move}` : move) : "";
    if (move === "king") return `You play a King on ${who}: For King and Country!`;
    if (move.startsWith("speed_")) return `${who} will go at speed ${move.slice(6)}.`;
    if (move.startsWith("team_")) {
      const names = (s.map.teams && s.map.teams[String(seatIndex(s.you))]) || [];
      return `You activate ${names[Number(move.slice(5))] || "fire team " + (Number(move.slice(5)) + 1)}.`;
    }
    switch (v.step) {
      case "mode": return move === "stay" ? `${who} will stay where it is.` : `${who} will ${MODE_WORDS[move] || human(move)}.`;
      case "destination": return `${who} will move to ${move}.`;
      case "stance": return `${who} will end ${human(move)}.`;
      case "watch": return move === "watch" ? `${who} will watch for opportunity fire.` : `${who} will not watch.`;
      case "action": return move === "nothing" ? `${who} takes no combat action.` : `${who} will ${ACTION_WORDS[move] || human(move)}.`;
      case "target": return move === "done" ? `${who} takes no more targets.` : `${who} targets ${there}.`;
      case "interrupt": return move === "hold" ? "You hold your fire." : `${who} fires at ${there} as it moves (opportunity fire).`;
      case "activate": return move === "done" ? "You activate no more figures this card." : `You activate ${there}.`;
      default: return wordMove(move);
    }
  }

  /** A move of the player's in words from its notation alone (no note of the state it was made in). */
  function wordMove(move) {
    if (isHex(move)) return `You chose hex ${move}.`;
    return `You chose: ${choiceLabel(move)}.`;
  }

  /** The parts of another seat's entry, without its "player_N decides" head. */
  function parts(line) {
    const all = String(line).split("; ");
    return /^player_\d decides$/.test(all[0]) ? all.slice(1) : all;
  }

  function eventHtml(text) {
    const s = state(), me = s.you === null ? null : seatIndex(s.you);
    const m = /^(.+?) declares /.exec(text);
    const unit = m ? s.view.units.find(u => u.name === m[1]) : null;
    const cls = unit ? ` side-${unit.side}${unit.side === me ? " own-order" : ""}` : "";
    return `<span class="sk-event${cls}">${esc(text)}</span>`;
  }

  function logItem(line, own, note) {
    if (own) {  // the step in words, then what it caused (its public events), a line each
      const [move, ...events] = String(line).split("; ");
      return `<span class="sk-own">${esc(note || wordMove(move))}</span>` +
        events.map(e => `<span class="part">${eventHtml(e)}</span>`).join("");
    }
    const s = state(), bot = seatIndex(s.bot.seat);
    const events = parts(line);
    return `<b class="sk-who side-${bot}">${esc(sideName(bot))}</b> ` +
      (events.length ? events.map(e => `<span class="part">${eventHtml(e)}</span>`).join("")
        : `<span class="muted">made a decision out of your sight</span>`);
  }

  /** The bot's last moves, a line each: what its side did and what that caused, not the player's own declarations
   * (the reveal lists both sides' orders) and not the "player_N decides" head. */
  function botMoveItems(lines) {
    const s = state();
    if (!s) return [];
    const me = s.you === null ? null : seatIndex(s.you), bot = seatIndex(s.bot.seat);
    const mine = new Set(s.view.units.filter(u => u.side === me).map(u => u.name));
    const out = [];
    for (const line of lines) {
      const events = parts(line);
      const kept = events.filter(e => { const m = /^(.+?) declares /.exec(e); return !(m && mine.has(m[1])); });
      if (kept.length) out.push(...kept.map(e => `${eventHtml(e)}`));
      else if (events.length) out.push(`<span class="muted">${esc(sideName(bot))} declared orders for no figure you see</span>`);
      else out.push(`<span class="muted">${esc(sideName(bot))} made a decision out of your sight</span>`);
    }
    return out;
  }

  cw.pages.skirmish = {
    render, prompt, choiceLabel, seatName, scenario, ownMove, logItem, botMoveItems,
    title: s => (s.map && s.map.title) || "Skirmish",
    turnSub: v => `Turn ${v.turn} of ${v.turn_limit} \u00b7 ${human(v.stage)}`,
    resultOrder: "(player 0 \u2013 player 1)",
  };
})();
