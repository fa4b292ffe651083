/* Hit the Deck!, the naval card game, on cardwar's web page (the game registry's `page` for it).
 *
 * Drawn from the state the server sends: `state.view` (the seat's information view: its hand, the board of
 * ships, the bot's hand count, the deck, the pending attack and the last battle). Every card of the hand and
 * every sea zone carries `data-step` ("card:4D", "zone:E"): the page's click machinery (app.js) lights those
 * that continue a legal move; moves with no steps (pass, keep, mulligan) and the styles of an attack are buttons.
 */
"use strict";

(function () {
  const cw = window.cardwar;
  const {esc, cap, human} = cw;
  const {html: cardHtml, back: backHtml} = cw.cards;
  let state = null;  // the state being drawn (read at each entry point)
  const fresh = f => (...args) => { state = cw.state(); return f(...args); };

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


  function render(board) {
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

    let html = `<div class="sea-table">`;
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
      html += `<div class="battle">Shown at the mulligan: ${esc(v.mulligan_shown.join(" "))}</div>`;
    }
    html += `</div>`;
    board.innerHTML = html;
  }

  const STEPLESS_LABELS = {pass: "Pass", keep: "Keep this hand", mulligan: "Mulligan (redraw 7)",
    nodefend: "No defending card"};

  function choiceLabel(move) {
    const w = move.split(" ");
    if (STEPLESS_LABELS[move]) return STEPLESS_LABELS[move];
    if (w[0] === "attack") return {normal: "Normal attack", ram: "Ram", broadside: "Broadside"}[w[2]] || cap(w[2]);
    return cap(w[0]);
  }

  /** The kind of a move's next click, for the highlight's colour: a card that attacks first lights own ships. */
  function moveKind(move, last) {
    const kind = move.split(" ")[0];
    return !last && kind === "attack" ? "attack-from" : kind;
  }

  function prompt(a) {
    const v = state.view;
    const sel = cw.selection();
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
  }

  cw.pages.naval = {
    render: fresh(render), prompt: fresh(prompt), choiceLabel, moveKind,
    scenario: fresh(() => navalVictory()),
    seatName: seat => (seat === "captain_a" ? "Captain A" : "Captain B"),
    seatNote: () => "",  // who moves first is a rule option (first_player), not the seat
    title: () => "Hit the Deck!",
    turnSub: v => `Turn ${v.turn} \u00b7 ${human(v.phase)}`,
    resultOrder: "(A \u2013 B)",
  };
})();
