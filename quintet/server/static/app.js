// quintet: the lobby, the table and the replay pages. No build step, no framework.
// The websocket protocol is described in docs/server.md; every action is checked by
// the server (the engine), the page only offers what the state message calls legal.
"use strict";

// ------------------------------------------------------------------ helpers

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v; // CSSOM: allowed by the page's CSP
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) e.append(kid);
  return e;
}

const SUIT_WORD = { S: "spades", C: "clubs", D: "diamonds", H: "hearts", NT: "no trump" };
const SUIT_SYM = Cards.SUIT_SYMBOLS;
const QUINTO_LABELS = ["North", "East", "South", "West"];
const tokenKey = (tid) => `quintet:token:${tid}`;
// A private table's link carries its view key (or a seat's invite): passed on to the API
// so that a link holder sees its record and replay. Players are known by their cookie.
function accessQuery(params) {
  const q = new URLSearchParams();
  for (const k of ["key", "invite"]) if (params.get(k)) q.set(k, params.get(k));
  const text = q.toString();
  return text ? `?${text}` : "";
}
const store = {
  get: (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } },
  set: (k, v) => { try { localStorage.setItem(k, v); } catch (e) { /* private mode */ } },
  del: (k) => { try { localStorage.removeItem(k); } catch (e) { /* private mode */ } },
};

function fourColourToggle() {
  const box = $("#fourcolor");
  const on = store.get("quintet:fourcolor") === "1";
  document.body.classList.toggle("four-color", on);
  if (!box) return;
  box.checked = on;
  box.addEventListener("change", () => {
    store.set("quintet:fourcolor", box.checked ? "1" : "0");
    document.body.classList.toggle("four-color", box.checked);
  });
}

function suitSpan(s) {
  if (s === "NT") return el("span", { text: "NT", title: "no trump" });
  return el("span", { class: `sym-${s}`, text: SUIT_SYM[s], title: SUIT_WORD[s] });
}

const SIGNAL_TEXT = { up: "↑ up", down: "↓ down", ask: "? ask" };
const NIL_TEXT = { none: "no nil", closed: "closed nil", open: "open nil" };

// How an action reads in a bubble, a log line or a hint.
function actionText(a) {
  switch (a.type) {
    case "play": return Cards.short(a.card);
    case "bid": return `bid ${a.amount}`;
    case "trump": return a.suit === "NT" ? "no trump" : `trump ${SUIT_SYM[a.suit]}`;
    case "nil": return NIL_TEXT[a.kind];
    case "meld": return `meld ${a.combo}`;
    case "signal": return `signal ${SIGNAL_TEXT[a.signal]}`;
    default: return a.type;
  }
}
// The text form the server also accepts: "pass", "bid 40", "trump NT", "QS".
function actionKey(a) {
  switch (a.type) {
    case "play": return a.card;
    case "bid": return `bid ${a.amount}`;
    case "trump": return `trump ${a.suit}`;
    case "nil": return `nil ${a.kind}`;
    case "meld": return `meld ${a.combo}`;
    case "signal": return `signal ${a.signal}`;
    default: return a.type;
  }
}
// A hint stands while the table is where it was asked, or while the action it names is
// still legal (another seat's Quintus signal changes the table, not this seat's choice).
function hintHolds(hint, st) {
  if (hint.seq === st.seq) return true;
  return !!hint.action && (st.legal || []).some((l) => sameAction(l, hint.action));
}
// A table that is over: finished, or closed by the server as abandoned.
function isOver(st) { return st.status === "finished" || st.status === "abandoned"; }
function sameAction(a, b) { return a && b && a.seat === b.seat && actionKey(a) === actionKey(b); }

// A game's shape from its configuration (welcome.table or replay.config).
function Game(config) {
  const n = config.num_seats || (config.game === "quintus" ? 5 : 4);
  const quinto = config.game === "quinto";
  const dummy = quinto && config.variant === "dummy";
  const lone = dummy ? config.lone_seat : null;
  return {
    n, quinto, dummy, lone,
    dummySeat: dummy ? (lone + 2) % 4 : null,
    label: (s) => quinto ? QUINTO_LABELS[s] : `seat ${s}`,
    // Quinto sides shown lone player first in the dummy game (as the record scores them).
    sideOrder: dummy && lone % 2 === 1 ? [1, 0] : [0, 1],
    sideNames: (sheet) => sheet && sheet.sides ? sheet.sides
      : dummy ? (lone % 2 === 0 ? [`lone ${QUINTO_LABELS[lone]}`, "opponents"] : ["opponents", `lone ${QUINTO_LABELS[lone]}`])
        : ["N-S", "E-W"],
    teamsOf: (q) => q === null || q === undefined ? null : [[(q + 1) % 5, (q + 3) % 5], [(q + 2) % 5, (q + 4) % 5]],
  };
}

// How a seat is named in lines of text: a person by name, a bot by its place.
function displayName(seats, G, s) {
  const row = seats && seats[s];
  if (!row) return G.label(s);
  if (row.kind === "dummy") return `dummy (${G.label(s)})`;
  if (row.kind === "open") return `${G.label(s)} (open)`;
  if (row.kind === "bot") return `${G.label(s)} (bot)`;
  return row.name || G.label(s);
}
function whoText(seats, G, s) {
  const row = seats && seats[s];
  return row && row.kind === "person" ? `${row.name} (${G.label(s)})` : displayName(seats, G, s);
}

// ---------------------------------------------------------------- the felt
// Seats around the table (the viewer at the bottom), the trick in the middle.

const TRICK_POS = {
  4: [[50, 80], [17, 50], [50, 20], [83, 50]],
  5: [[50, 82], [13, 58], [31, 20], [69, 20], [87, 58]],
};

function renderFelt(ctx) {
  // ctx: {G, seats, hand, view, me, legal, faceUp (all hands face up), decisions,
  //       onCard, selected, hinted, flash, done (replay: a completed trick), showBottomHand, sit}
  const { G, hand: h } = ctx;
  const felt = $("#felt");
  felt.classList.toggle("n4", G.n === 4);
  felt.classList.toggle("n5", G.n === 5);
  const keep = $("#center");
  const seatsNow = $$(".seat", felt);
  const fresh = [];
  const turn = h ? h.turn : null;
  const signals = h && h.signals ? Object.fromEntries(h.signals.map((x) => [x.seat, x.signal])) : {};
  for (let s = 0; s < G.n; s++) {
    const pos = (s - ctx.view + G.n) % G.n;
    fresh.push(seatPanel(ctx, s, pos, turn, signals[s]));
  }
  for (const old of seatsNow) old.remove();
  for (const node of fresh) felt.insertBefore(node, keep);
  renderTrick(ctx);
}

function seatPanel(ctx, s, pos, turn, signal) {
  const { G, seats, hand: h, me } = ctx;
  const row = (seats && seats[s]) || { kind: "open", label: G.label(s) };
  const mine = me && me.controls && me.controls.includes(s);
  const isTurn = h && turn === s && ctx.status === "playing";
  const box = el("section", {
    class: `seat${isTurn ? " turn" : ""}${mine ? " me" : ""}`, "data-seat": s, "data-pos": pos,
    style: `grid-area: p${pos}`,
    "aria-label": `${G.label(s)}: ${displayName(seats, G, s)}${isTurn ? ", to play" : ""}`,
  });
  const dotCls = row.kind === "open" ? "open" : row.kind === "dummy" ? "open" : row.connected ? "" : "away";
  box.append(el("div", { class: "who" },
    row.kind === "dummy" || ctx.replay ? null : el("span", { class: `status-dot ${dotCls}`, title: row.kind === "open" ? "open" : row.connected ? "connected" : "away" }),
    el("span", { class: "name", text: row.kind === "person" ? row.name : row.kind === "open" ? "open seat" : row.kind === "dummy" ? "dummy" : G.label(s) }),
    row.kind === "bot" ? null : el("span", { class: "label", text: G.label(s) })));
  const badges = el("div", { class: "badges" });
  if (row.kind === "bot") badges.append(el("span", { class: "badge bot", text: `bot · ${row.level}` }));
  if (row.kind === "person" && !row.connected && !ctx.replay) badges.append(el("span", { class: "badge away", text: "away" }));
  if (mine && me.seat === s) badges.append(el("span", { class: "badge", text: "you" }));
  if (h && h.dealer === s) badges.append(el("span", { class: "badge dealer", text: "dealer", title: "dealer" }));
  if (G.dummy && s === G.lone) badges.append(el("span", { class: "badge lone", text: "lone player" }));
  if (G.dummy && s === G.dummySeat) badges.append(el("span", { class: "badge dummy", text: `played by ${G.label(G.lone)}` }));
  if (h && !G.quinto && h.quintus === s) badges.append(el("span", { class: "badge quintus", text: "★ quintus" }));
  if (h && !G.quinto && h.quintus !== null && h.quintus !== undefined && h.quintus !== s) {
    const teams = G.teamsOf(h.quintus);
    const t = teams[0].includes(s) ? 0 : 1;
    badges.append(el("span", { class: "badge", text: `team ${"AB"[t]}`, title: `with ${G.label(teams[t].find((x) => x !== s))}` }));
  }
  if (isTurn) {
    const bot = !ctx.replay && (row.kind === "bot" || (row.kind === "dummy" && seats[G.lone] && seats[G.lone].kind === "bot"));
    badges.append(el("span", { class: `badge turn${bot ? " thinking" : ""}`, text: bot ? "thinking" : mine ? "your turn" : "to play" }));
  }
  if (badges.childNodes.length) box.append(badges);
  if (h) {
    let info = `${h.hand_sizes[s]} card${h.hand_sizes[s] === 1 ? "" : "s"}`;
    if (!G.quinto && h.taken) info += ` · ${h.taken[s] / 5} tricks`;
    box.append(el("div", { class: "info", text: info }));
  }
  // The hand: face up if this viewer may see it (own hand below the felt), else backs.
  if (h && !(ctx.showBottomHand && pos === 0)) {
    const cards = h.hands[s];
    if (cards) box.append(handNode(ctx, s, cards, ctx.faceUp ? "small" : "mid"));
    else if (h.hand_sizes[s] > 0) {
      const backs = el("div", { class: "hand backs small-hand", "aria-label": `${h.hand_sizes[s]} cards` });
      for (let i = 0; i < Math.min(h.hand_sizes[s], 12); i++) backs.append(Cards.back({ size: "tiny" }));
      box.append(backs);
    }
  }
  const dec = ctx.decisions && ctx.decisions[s];
  if (dec) box.append(el("span", { class: `bubble${dec.strong ? " strong" : ""}`, text: dec.text, "aria-label": `${G.label(s)}: ${dec.text}` }));
  if (signal) box.append(el("span", { class: "signal-ind", "data-signal": signal, text: SIGNAL_TEXT[signal], role: "status", "aria-label": `${G.label(s)} signals ${signal}` }));
  if (ctx.sit && row.kind === "open") {
    box.append(el("button", { type: "button", class: "sit primary", "data-sit": s, onclick: () => ctx.sit(s) }, `Sit here`));
  }
  return box;
}

// One hand of cards; legal ones are buttons raised and outlined.
function handNode(ctx, seat, cards, size) {
  const legal = ctx.legal || new Map();
  const active = cards.some((c) => legal.has(`${seat}:${c}`));
  const node = el("div", {
    class: `hand ${size === "small" ? "small-hand" : size === "mid" ? "mid-hand" : ""}${active ? " active" : ""}${ctx.me && ctx.me.controls && ctx.me.controls.includes(seat) ? " mine" : ""}`,
    "data-hand": seat, role: "group", "aria-label": `${ctx.G.label(seat)}'s hand`,
  });
  for (const c of cards) {
    const key = `${seat}:${c}`;
    const a = legal.get(key);
    let cls = a ? "legal" : "";
    if (ctx.selected === key) cls += " selected";
    if (ctx.hinted === key) cls += " hinted";
    if (ctx.marks && ctx.marks[c]) cls += ` ${ctx.marks[c]}`;
    if (ctx.onCard) {
      const b = Cards.node(c, { button: true, size, cls, label: a ? `play ${Cards.name(c)}` : Cards.name(c) });
      b.dataset.seat = seat;
      b.dataset.key = key;
      if (a) b.addEventListener("click", () => ctx.onCard(a));
      else { b.disabled = true; b.setAttribute("aria-disabled", "true"); }
      node.append(b);
    } else node.append(Cards.node(c, { size, cls }));
  }
  return node;
}

function renderTrick(ctx) {
  const { G, hand: h } = ctx;
  const box = $("#trick");
  box.replaceChildren();
  box.classList.remove("flash", "done");
  box.setAttribute("aria-label", "the trick");
  if (!h) return;
  let plays = h.trick;
  let winner = null;
  // ctx.done (the replay): the trick the step's card ended, shown whole with its winner.
  const done = ctx.done || null;
  if (done) {
    plays = done.cards;
    winner = done.winner;
    box.classList.add("done");
    box.setAttribute("aria-label", `the trick, won by ${G.label(winner)}`);
  } else if (!plays.length && ctx.flash) {
    plays = ctx.flash.cards;
    winner = ctx.flash.winner;
    box.classList.add("flash");
  }
  const pos = TRICK_POS[G.n];
  plays.forEach((t, i) => {
    const p = pos[(t.seat - ctx.view + G.n) % G.n];
    const won = winner === t.seat;
    box.append(el("div", {
      class: `played${won ? " winner" : ""}`, "data-seat": t.seat,
      style: `left:${p[0]}%;top:${p[1]}%;z-index:${i + 1}`,
    }, el("span", { class: "by", text: done && won ? `★ ${G.label(t.seat)}` : G.label(t.seat) }),
    Cards.node(t.card, { size: "mid", label: `${G.label(t.seat)} played ${Cards.name(t.card)}${done && won ? ", winning the trick" : ""}` })));
  });
  if (winner !== null && !done) {
    const pts = ctx.flash.points ? ` · ${ctx.flash.points} points` : "";
    box.append(el("div", { class: "trickmsg", text: `${displayName(ctx.seats, G, winner)} wins the trick${pts}` }));
  }
}

// Chips above the trick: the contract, trump, nil, doubling, the cachette.
function renderContract(G, h, seats) {
  const box = $("#contract");
  box.replaceChildren();
  if (!h) return;
  const chip = (...kids) => el("span", { class: "chip" }, ...kids);
  box.append(chip(`hand ${h.number + 1}`));
  if (G.quinto) {
    if (h.multiplier > 1) {
      box.append(el("span", { class: "chip big" }, `×${h.multiplier} `,
        h.multiplier === 2 ? "doubled" : "redoubled",
        h.doubled_by !== null && h.doubled_by !== undefined ? ` by ${G.label(h.doubled_by)}` : ""));
    }
    box.append(chip(`trick value ${5 * h.multiplier}`));
    if (h.cachette) {
      const c = chip("cachette ");
      for (const x of h.cachette) c.append(Cards.node(x, { size: "tiny" }));
      box.append(c);
    }
  } else {
    if (h.void) box.append(el("span", { class: "chip big", text: "void hand: all passed" }));
    if (h.phase === "auction" && h.high_bid) box.append(el("span", { class: "chip big", text: `high bid ${h.high_bid}` }));
    if (h.quintus !== null && h.quintus !== undefined) box.append(el("span", { class: "chip big", text: `★ quintus: ${displayName(seats, G, h.quintus)}` }));
    if (h.contract) box.append(chip(`contract ${h.contract}`));
    if (h.trump) box.append(el("span", { class: "chip big" }, "trump ", suitSpan(h.trump)));
    if (h.nil && h.nil !== "none") box.append(el("span", { class: "chip big", text: NIL_TEXT[h.nil] }));
    if (h.meld) box.append(el("span", { class: "chip big", text: `${h.meld} to meld?` }));
    if (h.points && h.quintus !== null && h.quintus !== undefined) {
      const t = G.teamsOf(h.quintus);
      const names = (team) => [...team].sort().map((x) => G.label(x).replace("seat ", "")).join("+");
      box.append(chip(`card points: quintus ${h.points[0]} · team A (${names(t[0])}) ${h.points[1]} · team B (${names(t[1])}) ${h.points[2]}`));
    }
  }
}

// The latest decision of each seat in this hand, for the bubbles by the seats.
function decisionsOf(events, h) {
  const out = {};
  if (!h) return out;
  const bidding = ["doubling", "auction", "trump", "nil"].includes(h.phase) || (h.tricks_played === 0 && !h.trick.length && h.phase === "play");
  let lastIdx = -1;
  events.forEach((e, i) => { if (e.kind === "action") lastIdx = i; });
  events.forEach((e, i) => {
    if (e.kind !== "action" || !e.action) return;
    const a = e.action;
    if (a.type === "play" || a.type === "signal") return;
    if (a.type === "meld" || a.type === "decline") {
      if (i === lastIdx) out[e.seat] = { text: a.type === "meld" ? `meld ${a.combo}` : "decline", strong: a.type === "meld" };
      return;
    }
    if (bidding) out[e.seat] = { text: actionText(a), strong: a.type !== "pass" };
  });
  return out;
}

// ------------------------------------------------------------- score views

function sheetTable(G, sheet, seats) {
  if (!sheet) return el("p", { class: "muted", text: "no hand played yet" });
  if (sheet.kind === "ledger") return ledgerTable(G, sheet, seats);
  const names = G.sideNames(sheet);
  const order = G.sideOrder;
  const t = el("table", { class: "sheet rubber", "data-kind": sheet.kind });
  t.append(el("tr", {}, el("th", { text: sheet.kind === "rubber" ? "rubber" : "game" }),
    ...order.map((i) => el("th", { text: names[i] }))));
  for (const g of sheet.games) {
    if (sheet.kind === "rubber") t.append(el("tr", {}, el("th", { colspan: 3, text: `game ${g.number}` })));
    for (const r of g.hands) {
      const mult = r.multiplier > 1 ? ` ×${r.multiplier}` : "";
      t.append(el("tr", { class: r.in_progress ? "live" : "" },
        el("td", {}, `hand ${r.hand + 1}${mult}`, el("span", { class: "sub", text: r.in_progress ? "in play" : r.ended_on_quint ? "ended on a quint" : `dealer ${G.label(r.dealer)}` })),
        ...order.map((i) => el("td", {},
          `${r.score[i]}`,
          el("span", { class: "sub", text: `quints ${r.quints[i]} · tricks ${r.tricks[i]}` })))));
    }
    if (g.winner !== null && g.winner !== undefined) {
      t.append(el("tr", { class: "game" }, el("td", { text: `game ${g.number}: ${names[g.winner]}` }),
        ...order.map((i) => el("td", { class: i === g.winner ? "won" : "", text: `${g.score[i]}` }))));
    }
  }
  if (sheet.kind === "rubber") {
    t.append(el("tr", { class: "total" }, el("td", { text: "games won" }), ...order.map((i) => el("td", { text: `${sheet.games_won[i]}` }))));
    if (sheet.rubber_score) {
      t.append(el("tr", { class: "total" }, el("td", { text: `rubber (bonus ${sheet.rubber_bonus})` }),
        ...order.map((i) => el("td", { class: i === sheet.winner ? "won" : "", text: `${sheet.rubber_score[i]}` }))));
    }
  }
  return t;
}

function ledgerTable(G, sheet, seats) {
  const t = el("table", { class: "sheet ledger" });
  t.append(el("tr", {}, el("th", { text: "hand" }),
    ...[0, 1, 2, 3, 4].map((s) => el("th", { title: whoText(seats, G, s), text: shortName(seats, G, s) }))));
  for (const r of sheet.hands) {
    let what = r.void ? "void" : "";
    if (!r.void && r.quintus !== null) {
      what = `★${r.quintus} ${r.trump ? (r.trump === "NT" ? "NT" : SUIT_SYM[r.trump]) : ""}`;
      if (r.nil && r.nil !== "none") what += ` ${r.nil} nil${r.nil_failed ? " failed" : ""}`;
      if (r.contract) what += ` ${r.contract}${r.made === true ? " made" : r.made === false ? " down" : ""}`;
    }
    t.append(el("tr", { class: r.in_progress ? "live" : "" },
      el("td", {}, `${r.hand + 1}`, el("span", { class: "sub", text: r.in_progress ? "in play" : what })),
      ...[0, 1, 2, 3, 4].map((s) => el("td", {},
        r.scores ? `${r.scores[s] > 0 ? "+" : ""}${r.scores[s]}` : "",
        r.totals ? el("span", { class: "sub", text: `${r.totals[s]}` }) : null))));
  }
  t.append(el("tr", { class: "total" }, el("td", { text: `total (${sheet.hands_played}/${sheet.hands_to_play})` }),
    ...sheet.totals.map((x, s) => el("td", { class: sheet.winners && sheet.winners.includes(s) ? "won" : "", "data-seat": s, text: `${x}` }))));
  return t;
}

function shortName(seats, G, s) {
  const row = seats && seats[s];
  if (!row || row.kind !== "person") return G.label(s);
  return row.name.length > 8 ? row.name.slice(0, 7) + "…" : row.name;
}

// The final result, taken from the score sheet (the test checks it against the
// scorer run on the downloaded record).
function finalResult(G, sheet, seats) {
  const box = el("div", { class: "final", id: "final" });
  if (!sheet || !sheet.over) return box;
  if (sheet.kind === "ledger") {
    const names = sheet.winners.map((s) => displayName(seats, G, s));
    box.append(el("div", { class: "headline", text: `Match over: ${names.join(" and ")} win${names.length === 1 ? "s" : ""}` }));
    const t = el("table", { class: "res final-score", "data-kind": "ledger" });
    t.append(el("tr", {}, el("th", { text: "seat" }), el("th", { text: "total" })));
    sheet.totals.forEach((x, s) => t.append(el("tr", { "data-seat": s },
      el("td", { text: whoText(seats, G, s) }), el("td", { class: "score", "data-seat": s, text: `${x}` }))));
    box.append(t);
    return box;
  }
  const names = G.sideNames(sheet);
  const order = G.sideOrder;
  const winner = sheet.kind === "rubber" ? sheet.winner : sheet.games[sheet.games.length - 1].winner;
  box.append(el("div", { class: "headline", text: winner === null || winner === undefined ? "Match over" : `Match over: ${names[winner]} win${sheet.kind === "rubber" ? " the rubber" : " the game"}` }));
  const t = el("table", { class: "res final-score", "data-kind": sheet.kind });
  t.append(el("tr", {}, el("th", { text: "" }), ...order.map((i) => el("th", { text: names[i] }))));
  sheet.games.forEach((g, k) => t.append(el("tr", { "data-game": k },
    el("td", { text: `game ${g.number}` }),
    ...order.map((i) => el("td", { class: `score${i === g.winner ? " won" : ""}`, text: `${g.score[i]}` })))));
  if (sheet.rubber_score) {
    t.append(el("tr", { "data-rubber": "" }, el("td", { text: "rubber" }),
      ...order.map((i) => el("td", { class: `score${i === sheet.winner ? " won" : ""}`, text: `${sheet.rubber_score[i]}` }))));
  }
  box.append(t);
  return box;
}

// The end-of-hand summary: the result and every hand as dealt.
function summaryNode(G, sm, seats, sheet) {
  const box = el("div", { class: "summary", id: "summary-content" });
  box.append(el("h2", { id: "summary-h", text: "End of the hand" }));
  if (G.quinto) {
    const names = G.sideNames(sheet);
    const order = G.sideOrder;
    let head;
    if (sm.game_winner !== null && sm.game_winner !== undefined) head = `${names[sm.game_winner]} win the game`;
    else if (sm.tied) head = "A tie at the target: another hand is played";
    else head = "Nobody has reached the target yet: another hand follows";
    box.append(el("div", { class: "headline", text: head }));
    const ended = sm.tricks[0] === 0 && sm.tricks[1] === 0 && sm.game_winner !== null;
    if (ended) box.append(el("p", { text: "The game ended on a quint: the rest of the hand was not played and no trick points were scored." }));
    const t = el("table", { class: "res hand-res" });
    t.append(el("tr", {}, el("th", { text: "" }), ...order.map((i) => el("th", { text: names[i] }))));
    const row = (label, vals) => t.append(el("tr", {}, el("td", { text: label }), ...order.map((i) => el("td", { text: `${vals[i]}` }))));
    row("quints", sm.quints);
    row(`tricks won${sm.cachette_side !== null && sm.cachette_side !== undefined ? " (with the cachette)" : ""}`, sm.won);
    row(`trick points (×${sm.multiplier})`, sm.tricks);
    row("this hand", sm.hand_points);
    row("score", sm.score);
    box.append(t);
    const deal = el("div", { class: "deal" });
    sm.deal.hands.forEach((cards, s) => deal.append(el("span", { text: whoText(seats, G, s) }), cardRow(cards)));
    if (sm.deal.cachette) deal.append(el("span", { text: `cachette${sm.cachette_side !== null && sm.cachette_side !== undefined ? ` (to ${names[sm.cachette_side]})` : " (not taken)"}` }), cardRow(sm.deal.cachette));
    box.append(el("h3", { class: "deal-h", text: "The deal" }), deal);
  } else {
    if (sm.void) box.append(el("div", { class: "headline", text: "All five passed: the hand is void and is dealt again" }));
    else {
      const q = sm.quintus;
      const teams = G.teamsOf(q);
      let head = `Quintus ${displayName(seats, G, q)}: ${sm.trump === "NT" ? "no trump" : `trump ${SUIT_SYM[sm.trump]}`}`;
      if (sm.nil && sm.nil !== "none") head += `, ${sm.nil} nil ${sm.nil_failed ? "failed" : "made"}`;
      if (sm.contract) head += `, contract ${sm.contract} ${sm.made ? "made" : "not made"}`;
      box.append(el("div", { class: "headline", text: head }));
      if (sm.points) {
        const t = el("table", { class: "res" });
        t.append(el("tr", {}, el("th", { text: "card points" }), el("th", { text: "quintus" }),
          el("th", { text: `team A (${teams[0].map((s) => G.label(s)).join(", ")})` }),
          el("th", { text: `team B (${teams[1].map((s) => G.label(s)).join(", ")})` })));
        t.append(el("tr", {}, el("td", { text: "this hand" }), ...sm.points.map((x) => el("td", { text: `${x}` }))));
        box.append(t);
      }
      const t2 = el("table", { class: "res hand-res" });
      t2.append(el("tr", {}, el("th", { text: "" }), ...[0, 1, 2, 3, 4].map((s) => el("th", { text: shortName(seats, G, s) }))));
      t2.append(el("tr", {}, el("td", { text: "this hand" }), ...sm.scores.map((x) => el("td", { text: `${x > 0 ? "+" : ""}${x}` }))));
      if (sheet && sheet.totals) t2.append(el("tr", {}, el("td", { text: "total" }), ...sheet.totals.map((x) => el("td", { text: `${x}` }))));
      box.append(t2);
    }
    const deal = el("div", { class: "deal" });
    sm.deal.hands.forEach((cards, s) => deal.append(el("span", { text: whoText(seats, G, s) }), cardRow(cards)));
    box.append(el("h3", { class: "deal-h", text: "The deal" }), deal);
  }
  return box;
}

function cardRow(cards) {
  const row = el("div", { class: "hand spread" });
  for (const c of cards) row.append(Cards.node(c, { size: "small" }));
  return row;
}

function resultText(game, result, players) {
  if (!result) return "";
  if (game === "quintus") {
    const best = Math.max(...result.totals);
    const who = (s) => !players[s] || players[s].kind !== "person" ? `seat ${s}` : `${players[s].name} (seat ${s})`;
    return result.totals.map((x, s) => `${who(s)} ${x}${x === best ? " ★" : ""}`).join(" · ");
  }
  const games = result.games.map((g) => `${g.score[0]}–${g.score[1]}`).join(", ");
  if (result.rubber) {
    const side = result.rubber.winner === null ? "nobody" : ["N-S", "E-W"][result.rubber.winner];
    return `${side} won the rubber ${result.rubber.score ? result.rubber.score.join("–") : ""} (games ${games})`;
  }
  const g = result.games[result.games.length - 1];
  const side = g.winner === null ? "nobody" : g.winner === 0 ? "the lone player" : "the opponents";
  return `${side} won ${g.score[0]}–${g.score[1]}`;
}

// ---------------------------------------------------------------- the lobby

async function lobbyPage() {
  let info = { levels: ["random", "heuristic", "pimc", "ismcts"], games: {} };
  try { info = await (await fetch("/api/info")).json(); } catch (e) { /* defaults */ }
  const form = $("#create");
  const game = $("#game"), variant = $("#variant");
  const VARIANTS = { quinto: ["partnership", "dummy"], quintus: ["base", "bidding"] };
  const VNAMES = { partnership: "partnership (four players)", dummy: "dummy (three players)", base: "base game", bidding: "bidding" };

  function showOptions() {
    for (const node of $$("[data-game]", form)) {
      const okGame = node.dataset.game === game.value;
      const okVar = !node.dataset.variant || node.dataset.variant === variant.value;
      node.hidden = !(okGame && okVar);
    }
  }
  function seatsForm() {
    const g = game.value, n = g === "quinto" ? 4 : 5;
    const dummy = g === "quinto" && variant.value === "dummy";
    const lone = Number($("#lone").value || 0);
    const rows = $("#seat-rows");
    const kept = Object.fromEntries($$("select", rows).map((s) => [s.name, s.value]));
    const mine = $("#myseat");
    const keepMine = mine.value;
    rows.replaceChildren();
    mine.replaceChildren();
    for (let s = 0; s < n; s++) {
      const label = g === "quinto" ? QUINTO_LABELS[s] : `seat ${s}`;
      if (dummy && s === (lone + 2) % 4) {
        rows.append(el("div", { class: "seatrow" }, el("span", { text: label }), el("span", { class: "muted", text: `dummy, played by ${QUINTO_LABELS[lone]}` })));
        continue;
      }
      const sel = el("select", { name: `seat${s}`, "aria-label": `${label}: who plays` },
        el("option", { value: "open", text: "a person (open seat)" }),
        ...info.levels.map((l) => el("option", { value: l, text: `bot: ${l}` })));
      sel.value = kept[`seat${s}`] || (s === 0 ? "open" : "heuristic");
      rows.append(el("div", { class: "seatrow" }, el("label", { for: `seat-sel-${s}`, text: label }), sel));
      sel.id = `seat-sel-${s}`;
      mine.append(el("option", { value: `${s}`, text: label }));
    }
    mine.append(el("option", { value: "watch", text: "none: create and watch" }));
    mine.value = [...mine.options].some((o) => o.value === keepMine) ? keepMine : "0";
    syncMine();
  }
  function syncMine() {
    for (const sel of $$("#seat-rows select")) {
      const s = sel.name.slice(4);
      const me = $("#myseat").value === s;
      sel.disabled = me;
      if (me) sel.title = "you sit here";
      else sel.removeAttribute("title");
    }
  }
  function variantsForm() {
    const keep = variant.value;
    variant.replaceChildren(...VARIANTS[game.value].map((v) => el("option", { value: v, text: VNAMES[v] })));
    if (VARIANTS[game.value].includes(keep)) variant.value = keep;
    showOptions();
    seatsForm();
  }
  $("#lone").replaceChildren(...QUINTO_LABELS.map((s, i) => el("option", { value: `${i}`, text: s })));
  game.addEventListener("change", variantsForm);
  variant.addEventListener("change", () => { showOptions(); seatsForm(); });
  $("#lone").addEventListener("change", seatsForm);
  $("#myseat").addEventListener("change", syncMine);
  variantsForm();
  form.elements.name.value = store.get("quintet:name") || "";

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("#create-error").textContent = "";
    const f = form.elements;
    const g = game.value, n = g === "quinto" ? 4 : 5;
    const mine = $("#myseat").value;
    const seats = [];
    for (let s = 0; s < n; s++) {
      const sel = form.elements[`seat${s}`];
      const v = sel ? sel.value : "open";
      seats.push(v === "open" || mine === `${s}` ? { kind: "open" } : { kind: "bot", level: v });
    }
    let options;
    if (g === "quinto") {
      options = { target: Number(f.target.value), rubber_bonus: Number(f.rubber_bonus.value), joker_eleventh_trick: f.joker_eleventh_trick.checked };
      if (variant.value === "dummy") {
        options.dummy_handicap = Number(f.dummy_handicap.value);
        options.dummy_double_view = f.dummy_double_view.value;
      }
    } else options = { hands: Number(f.hands.value) };
    const body = { game: g, variant: variant.value, options, seats, public: f.public.checked, title: f.title.value.trim() };
    if (g === "quinto" && variant.value === "dummy") body.lone_seat = Number($("#lone").value);
    if (mine !== "watch") {
      const name = f.name.value.trim();
      if (!name) { $("#create-error").textContent = "Give your name to sit down (or choose to watch)."; f.name.focus(); return; }
      body.join = { seat: Number(mine), name };
      store.set("quintet:name", name);
    }
    $("#create-btn").disabled = true;
    try {
      const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const out = await r.json();
      if (!r.ok) { $("#create-error").textContent = out.error.field ? `${out.error.field}: ${out.error.message}` : out.error.message; return; }
      if (out.token) store.set(tokenKey(out.id), out.token);
      store.set(`quintet:invites:${out.id}`, JSON.stringify(out.seats));
      location.href = out.url;
    } catch (e) {
      $("#create-error").textContent = "The server did not answer; try again.";
    } finally {
      $("#create-btn").disabled = false;
    }
  });

  let lobbyOffset = 0;
  const pager = el("nav", { class: "pager", "aria-label": "more open tables" });
  $("#tables").after(pager);
  function pageButtons(total, shown, limit) {
    pager.replaceChildren();
    if (lobbyOffset > 0) pager.append(el("button", { type: "button", id: "newer", onclick: () => { lobbyOffset = Math.max(0, lobbyOffset - limit); refresh(); } }, "← newer tables"));
    if (total > shown) pager.append(el("span", { class: "muted small", text: ` ${lobbyOffset + 1}–${lobbyOffset + shown} of ${total} ` }));
    if (lobbyOffset + shown < total) pager.append(el("button", { type: "button", id: "older", onclick: () => { lobbyOffset += limit; refresh(); } }, "older tables →"));
  }
  async function refresh() {
    try {
      const t = await (await fetch(`/api/tables?offset=${lobbyOffset}`)).json();
      if (!t.tables.length && lobbyOffset > 0) { lobbyOffset = 0; return refresh(); }
      pageButtons(t.total, t.tables.length, t.limit);
      $("#tables").replaceChildren(...(t.tables.length ? t.tables.map((x) => {
        const G = Game(x);
        const mineTok = store.get(tokenKey(x.id));
        return el("li", { "data-table": x.id },
          el("a", { href: `/table/${x.id}`, class: "tname" }, x.title || `${x.game} · ${x.variant}`),
          " ", el("span", { class: "tag", text: x.status.replace("_", " ") }),
          el("div", { class: "meta" }, x.seats.map((s) => `${G.label(s.seat)}: ${s.kind === "open" ? "open" : s.name}`).join(" · "),
            x.hands_dealt ? ` · hand ${x.hands_dealt}` : "", x.spectators ? ` · ${x.spectators} watching` : ""),
          el("div", { class: "links" },
            mineTok ? el("a", { href: `/table/${x.id}` }, "back to your seat") : null,
            ...x.open_seats.map((s) => el("a", { href: `/table/${x.id}?seat=${s}`, class: "join" }, `sit at ${G.label(s)}`)),
            el("a", { href: `/table/${x.id}` }, "watch")));
      }) : [el("li", { class: "muted", text: "No open table: create one." })]));
    } catch (e) { /* the server may be restarting: next time */ }
    try {
      const g = await (await fetch("/api/games?limit=30")).json();
      $("#games").replaceChildren(...(g.games.length ? g.games.map((x) => el("li", { "data-game": x.id },
        el("a", { href: x.replay }, x.title || `${x.game} · ${x.variant}`),
        x.status === "abandoned" ? el("span", { class: "tag", text: "abandoned" }) : null,
        el("span", { class: "meta" }, ` — ${x.finished_at ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(x.finished_at) ? x.finished_at : x.finished_at + "Z").toLocaleString() : ""}`),
        el("div", { class: "meta" }, x.players.filter((p) => p.kind !== "dummy").map((p) => p.name || "open").join(", ")),
        el("div", { class: "meta result" }, resultText(x.game, x.result, x.players)),
        el("div", { class: "links" }, el("a", { href: x.replay }, "replay"), el("a", { href: x.record, download: "" }, "download record")),
      )) : [el("li", { class: "muted", text: "No finished game yet." })]));
    } catch (e) { /* next time */ }
  }
  refresh();
  setInterval(refresh, 4000);
}

// ---------------------------------------------------------------- the table

function tablePage() {
  fourColourToggle();
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const params = new URLSearchParams(location.search);
  const T = {
    ws: null, config: null, G: null, me: { seat: null, role: "spectator", controls: [] },
    state: null, seats: [], sheet: null, log: [], logHand: -1, nextId: 1,
    backoff: 500, closedForGood: false, retryTimer: null, lastMsg: 0,
    hint: null, selected: null, flash: null, flashTimer: null, sentSeq: null,
    summaryClosed: null, joinSeat: null, invites: null, sig: {},
  };
  window.quintet = T; // for the curious (and the browser tests)
  // The bot levels this server offers (the operator may add some): heuristic first.
  T.levels = ["heuristic", "random", "pimc", "ismcts"];
  fetch("/api/info").then((r) => r.json()).then((info) => {
    T.levels = ["heuristic", ...info.levels.filter((l) => l !== "heuristic")];
    T.sig.players = null;
    if (T.state) renderPlayers();
  }).catch(() => { /* the defaults */ });

  // ---------------------------------------------------------- connection
  function setConn(state, text) {
    $("#conn").dataset.state = state;
    $("#conn-text").textContent = text;
  }
  function connect() {
    clearTimeout(T.retryTimer);
    if (T.ws && (T.ws.readyState === 0 || T.ws.readyState === 1)) return;
    setConn("connecting", "connecting…");
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    T.ws = ws;
    ws.onopen = () => {
      T.backoff = 500;
      T.lastMsg = Date.now();
      setConn("open", "connected");
      const token = store.get(tokenKey(tid));
      const access = {};
      for (const k of ["key", "invite"]) if (params.get(k)) access[k] = params.get(k);
      ws.send(JSON.stringify({ type: "hello", v: 1, table: tid, id: T.nextId++, ...access, ...(token ? { token } : {}) }));
    };
    ws.onmessage = (ev) => { T.lastMsg = Date.now(); onMessage(JSON.parse(ev.data)); };
    ws.onclose = (ev) => {
      if (T.ws !== ws) return;
      T.ws = null;
      if (T.closedForGood || ev.code === 4001) {
        T.closedForGood = true;
        setConn("closed", "your seat is open in another tab");
        showError("This seat was taken over by another tab or window.", "Take it back here", () => { T.closedForGood = false; connect(); });
        return;
      }
      const wait = T.backoff;
      T.backoff = Math.min(T.backoff * 2, 8000);
      setConn("retry", `disconnected: reconnecting in ${Math.round(wait / 100) / 10} s`);
      T.retryTimer = setTimeout(connect, wait);
    };
  }
  function send(msg) {
    if (T.ws && T.ws.readyState === 1) { T.ws.send(JSON.stringify({ id: T.nextId++, ...msg })); return true; }
    return false;
  }
  // A dead connection (a laptop asleep, a network change) is noticed by the pings.
  setInterval(() => {
    if (!T.ws || T.ws.readyState !== 1) return;
    if (Date.now() - T.lastMsg > 45000) { T.ws.close(); return; }
    send({ type: "ping", t: Date.now() });
  }, 15000);
  window.addEventListener("online", () => { if (!T.ws && !T.closedForGood) connect(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !T.ws && !T.closedForGood) connect();
  });

  let errTimer = null;
  function showError(text, button, action) {
    const box = $("#error");
    box.replaceChildren(text);
    if (button) box.append(" ", el("button", { type: "button", onclick: () => { box.replaceChildren(); action(); } }, button));
    clearTimeout(errTimer);
    if (!button) errTimer = setTimeout(() => box.replaceChildren(), 6000);
  }

  // ------------------------------------------------------------ messages
  function onMessage(m) {
    switch (m.type) {
      case "welcome":
        T.config = m.table;
        T.G = Game(m.table);
        T.me = { seat: m.seat, role: m.role, controls: [] };
        document.title = `quintet — ${m.table.title || `${m.table.game} ${m.table.variant}`}`;
        $("#title").textContent = `${m.table.title ? m.table.title + " · " : ""}${m.table.game} · ${m.table.variant}`;
        if (m.seat !== null) { $("#joinbox").hidden = true; fetchInvites(); }
        else if (params.get("seat") !== null && T.joinSeat === null) T.joinSeat = Number(params.get("seat"));
        break;
      case "joined":
        store.set(tokenKey(tid), m.token);
        T.joinSeat = null;
        $("#joinbox").hidden = true;
        if (params.has("invite") || params.has("seat")) history.replaceState(null, "", `/table/${tid}`);
        fetchInvites();
        break;
      case "left":
        store.del(tokenKey(tid));
        T.invites = null;
        break;
      case "hint": {
        T.hint = m;
        if (m.action && m.action.type === "play") T.selected = `${m.action.seat}:${m.action.card}`;
        render();
        // Focus the suggestion: Enter (or Space) takes it.
        const f = $("#actions button.hinted") || $("button.card.hinted");
        if (f && !f.disabled) f.focus();
        break;
      }
      case "error":
        if (m.code === "bad_token") { store.del(tokenKey(tid)); send({ type: "hello", v: 1, table: tid }); return; }
        if (m.code === "taken_over") { T.closedForGood = true; return; }
        if (m.code === "stale" || m.code === "not_your_turn") { T.sentSeq = null; return; }
        T.sentSeq = null;
        showError(m.message || m.code);
        break;
      case "state":
        onState(m);
        break;
      default:
        break;
    }
  }

  function onState(m) {
    const prev = T.state;
    if (m.seats) T.seats = m.seats;
    if (m.sheet) T.sheet = m.sheet;
    if (m.log) {
      if (m.log.hand !== T.logHand || m.log.from === 0) { T.log = []; T.logHand = m.log.hand; }
      T.log = T.log.slice(0, m.log.from).concat(m.log.events);
    }
    T.me = m.you;
    // A trick just completed: keep it on the felt a moment so people can see it.
    const h = m.hand;
    if (h && prev && prev.hand && h.number === prev.hand.number && !h.trick.length && m.last_trick &&
        h.tricks_played > prev.hand.tricks_played) {
      T.flash = m.last_trick;
      clearTimeout(T.flashTimer);
      T.flashTimer = setTimeout(() => { T.flash = null; render(); }, 1500);
    } else if (!h || h.trick.length || (prev && prev.hand && h.number !== prev.hand.number)) {
      T.flash = null;
    }
    if (!prev || prev.seq !== m.seq) T.sentSeq = null;
    if (T.hint && !hintHolds(T.hint, m)) T.hint = null;
    T.state = m;
    document.body.dataset.seq = `${m.seq}`;
    document.body.dataset.status = m.status;
    render();
  }

  // ------------------------------------------------------------- actions
  function act(a) {
    if (!T.state || T.sentSeq === T.state.seq) return;
    if (send({ type: "act", action: a, expect: T.state.seq })) {
      T.sentSeq = T.state.seq;
      T.selected = null;
      render(); // nothing more to click until the answer
    }
  }
  function legalPlays() {
    const legal = (T.state && T.state.legal) || [];
    return legal.filter((a) => a.type === "play");
  }
  // The invite code for a seat: from the link, or kept by the browser that created the table.
  function inviteFor(seat) {
    if (params.get("invite") && Number(params.get("seat")) === seat) return params.get("invite");
    try {
      const kept = JSON.parse(store.get(`quintet:invites:${tid}`) || "[]");
      const row = kept.find((x) => x.seat === seat);
      return row && row.invite ? row.invite : null;
    } catch (e) { return null; }
  }
  function sit(seat) {
    T.joinSeat = seat;
    render();
    $("#join-name").focus();
  }
  async function fetchInvites() {
    const token = store.get(tokenKey(tid));
    if (!token) return;
    try {
      const r = await fetch(`/api/tables/${tid}/invites`, { headers: { "x-seat-token": token } });
      if (r.ok) { T.invites = await r.json(); renderPlayers(); }
    } catch (e) { /* later */ }
  }

  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("#join-name").value.trim();
    if (!name || T.joinSeat === null) return;
    store.set("quintet:name", name);
    const msg = { type: "join", seat: T.joinSeat, name };
    const invite = inviteFor(T.joinSeat);
    if (invite) msg.invite = invite;
    send(msg);
  });
  $("#join-cancel").addEventListener("click", () => { T.joinSeat = null; render(); });
  $("#hint").addEventListener("click", () => send({ type: "hint" }));
  $("#next").addEventListener("click", () => send({ type: "next" }));
  $("#leave").addEventListener("click", () => {
    if (confirm("Leave your seat? It becomes open; you stay and watch.")) send({ type: "leave" });
  });
  $("#lastbtn").addEventListener("click", () => toggleLast());
  $("#summarybtn").addEventListener("click", () => { T.summaryClosed = null; render(); });
  $("#summary-close").addEventListener("click", () => closeSummary());
  $("#keys-btn").addEventListener("click", () => { $("#keys").hidden = false; $("#keys-close").focus(); });
  $("#keys-close").addEventListener("click", () => { $("#keys").hidden = true; });

  function closeSummary() {
    if (T.state && T.state.hand) T.summaryClosed = T.state.hand.number;
    render();
  }
  function toggleLast() {
    const box = $("#lasttrick");
    box.hidden = !box.hidden;
    $("#lastbtn").setAttribute("aria-expanded", String(!box.hidden));
    renderLastTrick();
  }

  // ------------------------------------------------------------ keyboard
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const k = ev.key;
    if (k === "Escape") { $("#keys").hidden = true; if (!$("#summary").hidden) closeSummary(); if (!$("#lasttrick").hidden) toggleLast(); return; }
    if (k === "?") { $("#keys").hidden = !$("#keys").hidden; return; }
    if (/^[1-9]$/.test(k) && !ev.shiftKey) {
      const b = $$("#actions button[data-n]").find((x) => x.dataset.n === k);
      if (b && !b.disabled) { ev.preventDefault(); b.click(); }
      return;
    }
    const plays = legalPlays();
    const keys = plays.map((a) => `${a.seat}:${a.card}`);
    if (k === "ArrowRight" || k === "ArrowLeft") {
      if (!keys.length) return;
      ev.preventDefault();
      const i = keys.indexOf(T.selected);
      const d = k === "ArrowRight" ? 1 : -1;
      T.selected = keys[i < 0 ? (d > 0 ? 0 : keys.length - 1) : (i + d + keys.length) % keys.length];
      focusSelected();
      return;
    }
    if (k === "Enter" || k === " ") {
      // A focused control (a card, a button, a link) is activated by the browser itself.
      if (["BUTTON", "A", "SUMMARY"].includes(ev.target.tagName)) return;
      const a = plays.find((x) => `${x.seat}:${x.card}` === T.selected);
      if (a) { ev.preventDefault(); act(a); return; }
      const hb = $("#actions button.hinted");
      if (hb) { ev.preventDefault(); hb.click(); }
      return;
    }
    const lower = k.toLowerCase();
    const rankKey = { a: "A", k: "K", q: "Q", j: "J", t: "T" }[lower] || (ev.shiftKey && /^[2-9!@#$%^&*(]$/.test(k) ? shiftDigit(ev) : null);
    if (lower === "r" && keys.some((x) => x.endsWith(":JK"))) { T.selected = keys.find((x) => x.endsWith(":JK")); focusSelected(); return; }
    if (rankKey) {
      const same = keys.filter((x) => x.split(":")[1][0] === rankKey);
      if (same.length) {
        const i = same.indexOf(T.selected);
        T.selected = same[(i + 1) % same.length];
        focusSelected();
      }
      return;
    }
    if (lower === "h") { if (!$("#hint").hidden) send({ type: "hint" }); return; }
    if (lower === "l") { toggleLast(); return; }
    if (lower === "n") { if (!$("#next").hidden && !$("#next").disabled) $("#next").click(); return; }
    if (lower === "s") { if (T.state && T.state.summary) { if ($("#summary").hidden) T.summaryClosed = null; else closeSummary(); render(); } }
  });
  function focusSelected() {
    render();
    const b = T.selected && $(`button.card[data-key="${CSS.escape(T.selected)}"]`);
    if (b) b.focus();
  }
  function shiftDigit(ev) {
    const m = /^Digit([2-9])$/.exec(ev.code || "");
    return m ? m[1] : null;
  }

  // -------------------------------------------------------------- render
  function render() {
    const st = T.state;
    if (!st || !T.G) return;
    const G = T.G, h = st.hand, me = st.you;
    const player = me.seat !== null;
    const view = player ? me.seat : G.dummy ? G.lone : 0;
    const legal = new Map();
    const busy = T.sentSeq === st.seq;
    if (!busy) for (const a of st.legal) if (a.type === "play") legal.set(`${a.seat}:${a.card}`, a);
    if (T.selected && !legal.has(T.selected)) T.selected = null;
    let hinted = null;
    if (T.hint && hintHolds(T.hint, st) && T.hint.action && T.hint.action.type === "play") {
      hinted = `${T.hint.action.seat}:${T.hint.action.card}`;
      if (!T.selected) T.selected = hinted;
    }
    const canSit = !player && !isOver(st) && (T.config.public || params.get("invite") || store.get(`quintet:invites:${tid}`));
    const ctx = {
      G, seats: T.seats, hand: h, view, me, legal, status: st.status, onCard: act,
      selected: T.selected, hinted, flash: T.flash, showBottomHand: player,
      decisions: decisionsOf(T.log, h), sit: canSit ? sit : null,
    };
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    renderFelt(ctx);
    renderContract(G, h, T.seats);
    renderTurn(G, st);
    renderMyHand(ctx);
    renderActions(G, st, busy);
    renderTools(st);
    renderScoreboard(G, st);
    const sheetKey = JSON.stringify(T.sheet) + JSON.stringify(T.seats);
    if (T.sig.sheet !== sheetKey) { T.sig.sheet = sheetKey; $("#sheet").replaceChildren(sheetTable(G, T.sheet, T.seats)); }
    renderLog(G);
    renderPlayers();
    renderSummary(G, st);
    renderLastTrick();
    renderJoin(G);
    if (focusKey) { const f = $(`[data-key="${CSS.escape(focusKey)}"]`); if (f && !f.disabled) f.focus(); }
  }

  function renderTurn(G, st) {
    const box = $("#turnline");
    const h = st.hand;
    let text = "", mine = false;
    if (st.status === "waiting") {
      const open = T.seats.filter((s) => s.kind === "open").length;
      text = `Waiting for ${open} player${open === 1 ? "" : "s"} to sit down`;
    } else if (st.status === "finished") text = "The match is over";
    else if (st.status === "abandoned") text = "This table was closed: nobody played it for a long time";
    else if (st.status === "hand_over") text = "The hand is over";
    else if (h && h.turn !== null) {
      const controls = st.you.controls || [];
      if (controls.includes(h.turn)) {
        mine = true;
        const what = { doubling: "pass, double or redouble", auction: "bid or pass", trump: "name trump", nil: "declare nil or not", meld: "meld or decline", play: "play a card" }[h.phase] || "decide";
        text = h.turn !== st.you.seat ? `Your turn: play from the dummy (${G.label(h.turn)})` : `Your turn: ${what}`;
      } else {
        const row = T.seats[h.turn];
        const who = displayName(T.seats, G, h.turn);
        if (row && row.kind === "person" && !row.connected) text = `Waiting for ${who} (away)`;
        else text = `${who} to ${h.phase === "play" ? "play" : "decide"}`;
      }
    }
    box.textContent = text;
    box.classList.toggle("mine", mine);
  }

  function renderMyHand(ctx) {
    const box = $("#myhand");
    const st = T.state, h = st.hand, me = st.you;
    if (me.seat === null || !h || !h.hands[me.seat]) {
      if (T.sig.hand !== "none") { box.replaceChildren(); T.sig.hand = "none"; }
      box.hidden = me.seat === null;
      return;
    }
    box.hidden = false;
    const cards = h.hands[me.seat];
    const sig = JSON.stringify([cards, [...ctx.legal.keys()], ctx.selected, ctx.hinted, me.seat]);
    if (sig === T.sig.hand && box.firstChild) return;
    T.sig.hand = sig;
    const node = handNode(ctx, me.seat, cards, "");
    node.setAttribute("aria-label", "your hand");
    box.replaceChildren(node);
  }

  function renderActions(G, st, busy) {
    const box = $("#actions");
    const prompt = $("#prompt");
    const h = st.hand;
    const legal = (st.legal || []).filter((a) => a.type !== "play");
    const hint = T.hint && hintHolds(T.hint, st) ? T.hint.action : null;
    const sig = JSON.stringify([legal, busy, hint, st.seq]);
    if (sig === T.sig.actions) return;
    T.sig.actions = sig;
    box.replaceChildren();
    prompt.textContent = "";
    if (!legal.length || !h) return;
    let n = 0;
    const button = (a, label, cls = "") => {
      n += 1;
      const b = el("button", {
        type: "button", class: `${cls}${sameAction(a, hint) ? " hinted" : ""}`, "data-act": actionKey(a), "data-seat": a.seat,
        ...(n <= 9 ? { "data-n": `${n}`, "aria-keyshortcuts": `${n}` } : {}), onclick: () => act(a), disabled: busy,
      }, n <= 9 ? el("span", { class: "key", "aria-hidden": "true", text: `${n}` }) : null, label);
      return b;
    };
    const main = legal.filter((a) => a.type !== "signal");
    const signals = legal.filter((a) => a.type === "signal");
    if (main.length) {
      const group = el("div", { class: "group", role: "group", "aria-label": "decision" });
      const phase = h.phase;
      if (phase === "doubling") {
        const doubled = h.multiplier > 1;
        prompt.textContent = doubled ? `Doubling round: ${G.label(h.doubled_by)} doubled` : "Doubling round: once round the table";
      } else if (phase === "auction") {
        prompt.textContent = h.high_bid ? `Auction: the high bid is ${h.high_bid}` : "Auction: bid (30 to 120) or pass";
      } else if (phase === "trump") prompt.textContent = "You are the quintus: name trump";
      else if (phase === "nil") prompt.textContent = "Declare nil? (closed: win no J, Q, K or A; open: and show your hand)";
      else if (phase === "meld") prompt.textContent = `Your trick holds a ${h.meld}: meld it or decline`;
      const bids = main.filter((a) => a.type === "bid");
      for (const a of main.filter((x) => x.type !== "bid")) {
        let label;
        if (a.type === "trump") label = a.suit === "NT" ? "No trump" : el("span", {}, el("span", { class: `sym-${a.suit}`, text: SUIT_SYM[a.suit] }), ` ${SUIT_WORD[a.suit]}`);
        else if (a.type === "nil") label = { none: "No nil", closed: "Closed nil", open: "Open nil" }[a.kind];
        else if (a.type === "meld") label = `Meld the ${a.combo} (+${a.combo === "court" ? 10 : 25})`;
        else label = a.type[0].toUpperCase() + a.type.slice(1);
        group.append(button(a, label, a.type === "trump" ? `suit-${a.suit}` : ""));
        if (a.type === "pass" && bids.length) {
          for (const b of bids.slice(0, 6)) group.append(button(b, `Bid ${b.amount}`));
        }
      }
      if (bids.length > 6) {
        const rest = bids.slice(6);
        const sel = el("select", { "aria-label": "a higher bid", id: "bidsel" }, ...rest.map((b) => el("option", { value: `${b.amount}`, text: `${b.amount}` })));
        const go = el("button", { type: "button", id: "bidgo", disabled: busy, onclick: () => act(rest.find((b) => `${b.amount}` === sel.value)) }, "Bid");
        if (hint && hint.type === "bid" && rest.some((b) => b.amount === hint.amount)) { sel.value = `${hint.amount}`; go.classList.add("hinted"); }
        group.append(el("span", { class: "glabel", text: "or" }), sel, go);
      }
      box.append(group);
    }
    if (signals.length) {
      const partner = h.quintus !== null && h.quintus !== undefined ? G.teamsOf(h.quintus).find((t) => t.includes(st.you.seat)) : null;
      const mate = partner ? partner.find((s) => s !== st.you.seat) : null;
      const group = el("div", { class: "group signals", role: "group", "aria-label": "signal" },
        el("span", { class: "glabel", text: mate !== null ? `signal to ${displayName(T.seats, G, mate)}:` : "signal:" }));
      for (const a of signals) group.append(button(a, { up: "↑ up", down: "↓ down", ask: "? ask" }[a.signal], "signal"));
      box.append(group);
    }
  }

  function renderTools(st) {
    const player = st.you.seat !== null;
    const h = st.hand;
    $("#hint").hidden = !player || !(st.legal && st.legal.length) || st.status !== "playing";
    const over = st.status === "hand_over";
    const ready = st.ready && st.ready.includes(st.you.seat);
    $("#next").hidden = !(over && player);
    $("#next").disabled = !!ready;
    $("#summarybtn").hidden = !st.summary;
    $("#leave").hidden = !player || isOver(st);
    $("#lastbtn").disabled = !(st.last_trick || (h && h.tricks_played));
    const ht = $("#hinttext");
    if (T.hint && hintHolds(T.hint, st)) {
      const a = T.hint.action;
      ht.textContent = a ? `Hint: ${a.type === "play" ? `play the ${Cards.name(a.card)}` : actionText(a)} (Enter)` : "Hint: no signal now";
    } else ht.textContent = "";
  }

  function renderScoreboard(G, st) {
    const box = $("#scoreboard");
    const h = st.hand;
    const sig = JSON.stringify([h && h.score, h && h.tricks_won, h && h.points, h && h.number, T.sheet && T.sheet.totals, T.sheet && T.sheet.games_won, T.seats]);
    if (sig === T.sig.score) return;
    T.sig.score = sig;
    box.replaceChildren();
    if (G.quinto) {
      const names = G.sideNames(T.sheet);
      const t = el("table", {});
      t.append(el("tr", {}, el("th", { text: "" }), el("th", { text: "score" }), el("th", { text: "tricks" }),
        T.sheet && T.sheet.kind === "rubber" ? el("th", { text: "games" }) : null));
      const target = h ? h.target : (T.config.options && T.config.options.target) || 250;
      for (const i of G.sideOrder) {
        const score = h ? h.score[i] : 0;
        t.append(el("tr", { "data-side": i },
          el("td", {}, names[i], el("div", { class: "bar" }, el("span", { style: `width:${Math.min(100, 100 * score / target)}%` }))),
          el("td", { class: "big", text: `${score}` }),
          el("td", { text: h ? `${h.tricks_won[i]}` : "0" }),
          T.sheet && T.sheet.kind === "rubber" ? el("td", { text: `${T.sheet.games_won[i]}` }) : null));
      }
      box.append(t, el("p", { class: "muted small", text: `game to ${target}${T.sheet && T.sheet.kind === "rubber" ? `; the rubber: two games won (bonus ${T.sheet.rubber_bonus})` : ""}` }));
    } else {
      const totals = T.sheet ? T.sheet.totals : [0, 0, 0, 0, 0];
      const t = el("table", {});
      t.append(el("tr", {}, el("th", { text: "" }), el("th", { text: "total" })));
      totals.forEach((x, s) => t.append(el("tr", { "data-seat": s }, el("td", { text: whoText(T.seats, G, s) }), el("td", { class: "big", text: `${x}` }))));
      box.append(t);
      if (T.sheet) box.append(el("p", { class: "muted small", text: `hand ${Math.min(T.sheet.hands_played + 1, T.sheet.hands_to_play)} of ${T.sheet.hands_to_play}` }));
    }
  }

  function renderLog(G) {
    const sig = `${T.logHand}:${T.log.length}:${T.seats.map((s) => s.name).join()}`;
    if (sig === T.sig.log) return;
    T.sig.log = sig;
    const box = $("#log");
    box.replaceChildren(...T.log.map((e) => {
      let text = e.text;
      if (e.kind === "action" && e.action) text = `${displayName(T.seats, G, e.seat)}: ${e.action.type === "play" ? Cards.name(e.action.card) : actionText(e.action)}`;
      else if (e.kind === "trick") text = `${displayName(T.seats, G, e.seat)} wins the trick${e.points ? ` (${e.points} points)` : ""}`;
      return el("li", { class: e.kind, text });
    }));
    box.scrollTop = box.scrollHeight;
  }

  function renderPlayers() {
    const st = T.state, G = T.G;
    if (!st || !G) return;
    const box = $("#players");
    const player = st.you.seat !== null;
    const sig = JSON.stringify([T.seats, player, T.invites, st.status]);
    if (sig === T.sig.players) return;
    T.sig.players = sig;
    const rows = el("div", { class: "players" });
    for (const s of T.seats) {
      const ctl = el("span", { class: "ctl" });
      const replaceable = player && !isOver(st) && s.seat !== st.you.seat &&
        (s.kind === "open" || (s.kind === "person" && !s.connected));
      if (replaceable) {
        const sel = el("select", { "aria-label": `bot level for ${G.label(s.seat)}` }, ...T.levels.map((l) => el("option", { value: l, text: l })));
        ctl.append(sel, el("button", { type: "button", onclick: () => send({ type: "replace", seat: s.seat, level: sel.value }) }, "give to a bot"));
      }
      rows.append(el("div", { class: "prow", "data-seat": s.seat },
        el("span", {}, el("strong", { text: G.label(s.seat) }), " ", s.kind === "open" ? "open" : s.name || "",
          s.kind === "bot" ? el("span", { class: "tag bot", text: s.level }) : null,
          s.kind === "person" ? el("span", { class: "tag", text: s.connected ? "here" : "away" }) : null), ctl));
    }
    box.replaceChildren(rows);
    const base = `${location.protocol}//${location.host}`;
    const link = (label, url) => el("div", { class: "linkrow" }, el("span", { text: label }),
      el("input", { readonly: true, value: base + url, "aria-label": label, onfocus: (ev) => ev.target.select() }),
      el("button", { type: "button", onclick: () => copy(base + url) }, "copy"));
    box.append(el("h3", { class: "small", text: "Links" }), link("watch", `/table/${tid}`));
    if (T.invites) for (const s of T.invites.seats) if (s.kind !== "dummy") box.append(link(`invite ${G.label(s.seat)}`, s.url));
  }
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text);
  }

  function renderSummary(G, st) {
    const box = $("#summary");
    const sm = st.summary;
    const show = !!sm && T.summaryClosed !== (st.hand && st.hand.number);
    if (!show) { box.hidden = true; return; }
    const sig = JSON.stringify([sm, st.ready, st.status, T.sheet, T.seats, st.you.seat]);
    const wasHidden = box.hidden;
    box.hidden = false;
    if (sig !== T.sig.summary) {
      T.sig.summary = sig;
      const body = $("#summary-body");
      body.replaceChildren(summaryNode(G, sm, T.seats, T.sheet));
      const buttons = el("div", { class: "buttons" });
      if (st.status === "finished" || st.status === "abandoned") {
        if (st.status === "finished") $("#summary-h", body).after(finalResult(G, T.sheet, T.seats));
        const q = accessQuery(params);
        buttons.append(el("a", { class: "button", id: "record-link", href: `/api/games/${tid}/record${q}`, download: `quintet-${tid}.json` }, "Download the record"),
          el("a", { class: "button", href: `/replay/${tid}${q}` }, "Replay with analysis"),
          el("a", { class: "button", href: "/" }, "Back to the lobby"));
      } else if (st.you.seat !== null) {
        const ready = st.ready.includes(st.you.seat);
        const waiting = T.seats.filter((s) => s.kind === "person" && s.connected && !st.ready.includes(s.seat) && s.seat !== st.you.seat);
        buttons.append(el("button", { type: "button", class: "primary", id: "summary-next", disabled: ready, onclick: () => send({ type: "next" }) }, ready ? "Ready" : "Next hand (n)"));
        if (ready && waiting.length) buttons.append(el("span", { class: "muted", text: `waiting for ${waiting.map((s) => s.name).join(", ")}` }));
      } else buttons.append(el("span", { class: "muted", text: "The next hand is dealt when the players are ready." }));
      $(".deal-h", body).before(buttons);
    }
    if (wasHidden) { const b = $("#summary-next") || $("#record-link"); if (b) b.focus(); }
  }

  function renderLastTrick() {
    const box = $("#lasttrick");
    if (box.hidden || !T.state) return;
    const lt = T.state.last_trick, G = T.G;
    if (!lt) { box.replaceChildren(el("p", { class: "muted", text: "No trick completed yet in this hand." })); return; }
    box.replaceChildren(el("h2", { text: `Last trick: ${displayName(T.seats, G, lt.winner)} won it${lt.points ? ` (${lt.points} points)` : ""}` }),
      el("div", { class: "cards" }, ...lt.cards.map((t) => el("figure", { class: t.seat === lt.winner ? "winner" : "" },
        Cards.node(t.card, { size: "mid", label: `${G.label(t.seat)}: ${Cards.name(t.card)}` }),
        el("figcaption", { text: displayName(T.seats, G, t.seat) })))));
  }

  function renderJoin(G) {
    const box = $("#joinbox");
    const st = T.state;
    const seat = T.joinSeat;
    const row = seat !== null && T.seats[seat];
    const ok = st.you.seat === null && row && (row.kind === "open" || (row.kind === "bot" && inviteFor(seat))) && !isOver(st);
    if (!ok) { box.hidden = true; return; }
    const wasHidden = box.hidden;
    box.hidden = false;
    $("#join-seat").textContent = `${G.label(seat)}${row.kind === "bot" ? ` (now a ${row.level} bot)` : ""}`;
    if (wasHidden) {
      const input = $("#join-name");
      if (!input.value) input.value = store.get("quintet:name") || "";
    }
  }

  connect();
}

// --------------------------------------------------------------- the replay

async function replayPage() {
  fourColourToggle();
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const q = accessQuery(new URLSearchParams(location.search));
  $("#download").href = `/api/games/${tid}/record${q}`;
  $("#download").setAttribute("download", `quintet-${tid}.json`);
  const r = await fetch(`/api/games/${tid}/replay${q}`);
  if (!r.ok) {
    let msg = "This game cannot be replayed.";
    try { msg = (await r.json()).error.message; } catch (e) { /* keep */ }
    $("#note").textContent = msg;
    return;
  }
  const data = await r.json();
  const G = Game(data.config);
  const seats = data.players;
  let analysis = data.analysis;
  $("#title").textContent = `replay · ${data.config.title ? data.config.title + " · " : ""}${data.config.game} · ${data.config.variant}`;
  $("#hand").replaceChildren(...data.hands.map((h, i) => el("option", { value: `${i}`, text: `hand ${i + 1}` })));
  const stepInput = $("#step");

  const cur = () => data.hands[Number($("#hand").value)];
  const noteOf = (hand, idx) => analysis ? analysis.plays.find((p) => p.hand === hand && p.action === idx) : null;

  function show() {
    const hand = cur();
    const k = Math.min(Number(stepInput.value), hand.steps.length - 1);
    stepInput.max = `${hand.steps.length - 1}`;
    stepInput.value = `${k}`;
    const st = hand.steps[k];
    const next = hand.steps[k + 1];
    // The best cards (double dummy) for the seat about to play, and the card it chose.
    const marks = {};
    if (next && next.action && next.action.type === "play") {
      const n = noteOf(hand.hand, k);
      if (n && n.best_cards) for (const c of n.best_cards) marks[c] = "best";
    }
    const view = G.dummy ? G.lone : 0;
    // A step whose card ends a trick shows that whole trick and its winner (its own
    // table is already the next, empty trick); the next step clears it.
    const done = st.completed_trick || null;
    renderFelt({ G, seats, hand: st, view, me: null, legal: new Map(), status: "playing", faceUp: true, marks, decisions: {}, replay: true, done });
    const caption = $("#trickwon");
    caption.hidden = !done;
    if (done) {
      const pts = done.points ? ` (quints: ${done.points} points)` : "";
      caption.replaceChildren(`Trick ${st.tricks_played} won by `, el("strong", { text: whoText(seats, G, done.winner) }), pts);
    } else caption.replaceChildren();
    renderContract(G, st, seats);
    $("#turnline").textContent = st.turn !== null && st.turn !== undefined ? `${displayName(seats, G, st.turn)} to ${st.phase === "play" ? "play" : "decide"}` : "end of the hand";
    $("#stepinfo").textContent = `step ${k} of ${hand.steps.length - 1}` + (st.action ? ` · ${displayName(seats, G, st.action.seat)}: ${st.action.type === "play" ? Cards.name(st.action.card) : actionText(st.action)}` : " · the deal");
    const note = $("#note");
    note.replaceChildren();
    if (st.action && st.action.type === "play") {
      const n = noteOf(hand.hand, k - 1);
      const who = displayName(seats, G, st.action.seat);
      if (!analysis) note.append(`${who} played the ${Cards.name(st.action.card)}. The double-dummy analysis is running…`);
      else if (!n || n.value === null) note.append(`${who} played the ${Cards.name(st.action.card)}: not analysed (${n && n.gave_up ? "the position was too big for the server's solver limit" : `only the last ${analysis.tricks} tricks of a hand are solved`}).`);
      else {
        note.append(`${who} played the ${Cards.name(st.action.card)}: double-dummy value ${n.value}, best ${n.best} `,
          el("span", {}, `(${n.best_cards.map(Cards.short).join(" ")})`), " — ",
          n.cost ? el("span", { class: "bad", text: `cost ${n.cost} points` }) : el("span", { class: "good", text: "a best play" }));
      }
    } else if (st.action) note.append(`${displayName(seats, G, st.action.seat)}: ${actionText(st.action)}`);
    else note.append("The deal: every hand is shown. Step with ← and →, Home and End.");
    if (Object.keys(marks).length) note.append(el("div", { class: "muted small", text: "Cards outlined in green are the best double-dummy plays for the seat to play." }));
    const inline = $("#summary-inline");
    inline.hidden = k !== hand.steps.length - 1;
    if (!inline.hidden) inline.replaceChildren(summaryNode(G, hand.result, seats, null));
    renderPlays(hand, k);
  }

  function renderPlays(hand, k) {
    const box = $("#plays");
    const plays = [];
    hand.steps.forEach((st, i) => { if (st.action && st.action.type === "play") plays.push({ step: i, seat: st.action.seat, card: st.action.card }); });
    const per = G.n;
    const t = el("table", {});
    t.append(el("tr", {}, el("th", { text: "trick" }), ...Array.from({ length: per }, (_, i) => el("th", { text: i === 0 ? "lead" : `${i + 1}` }))));
    for (let i = 0; i < plays.length; i += per) {
      const row = el("tr", {}, el("td", { text: `${i / per + 1}` }));
      for (const p of plays.slice(i, i + per)) {
        const n = noteOf(hand.hand, p.step - 1);
        const b = el("button", {
          type: "button", class: `pc sym-${p.card[1] || "S"}${p.step === k ? " cur" : ""}`,
          title: `${G.label(p.seat)}: ${Cards.name(p.card)}`, "aria-label": `${G.label(p.seat)} ${Cards.name(p.card)}`,
          onclick: () => { stepInput.value = `${p.step}`; show(); },
        }, Cards.short(p.card));
        const tag = n && n.value !== null ? (n.cost ? el("span", { class: "cost", text: `−${n.cost}` }) : el("span", { class: "ok", text: "✓" })) : null;
        row.append(el("td", {}, b, tag));
      }
      t.append(row);
    }
    box.replaceChildren(t);
    const seatsBox = $("#an-seats");
    seatsBox.replaceChildren();
    if (analysis && analysis.seats) {
      const st = el("table", { class: "sheet" });
      st.append(el("tr", {}, el("th", { text: "seat" }), el("th", { text: "analysed" }), el("th", { text: "errors" }), el("th", { text: "cost" })));
      analysis.seats.forEach((x, s) => st.append(el("tr", {}, el("td", { text: whoText(seats, G, s) }), el("td", { text: `${x.analysed}` }), el("td", { text: `${x.errors}` }), el("td", { text: `${x.cost}` }))));
      seatsBox.append(el("h3", { class: "small", text: "The whole match" }), st);
    }
  }

  const step = (d) => { stepInput.value = `${Number(stepInput.value) + d}`; show(); };
  $("#hand").addEventListener("change", () => { stepInput.value = "0"; show(); });
  stepInput.addEventListener("input", show);
  $("#prev").addEventListener("click", () => step(-1));
  $("#fwd").addEventListener("click", () => step(1));
  $("#first").addEventListener("click", () => { stepInput.value = "0"; show(); });
  $("#last").addEventListener("click", () => { stepInput.value = stepInput.max; show(); });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowLeft") { ev.preventDefault(); step(-1); }
    if (ev.key === "ArrowRight") { ev.preventDefault(); step(1); }
    if (ev.key === "Home") { ev.preventDefault(); $("#first").click(); }
    if (ev.key === "End") { ev.preventDefault(); $("#last").click(); }
  });
  const res = $("#result");
  res.append(el("p", { text: resultText(data.config.game, data.score, seats) }));
  show();
  const status = $("#an-status");
  status.textContent = analysis ? "" : "The analysis is running (it solves every card of every hand)…";
  while (!analysis) {
    let a;
    try { a = await fetch(`/api/games/${tid}/analysis${q}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }); } catch (e) { a = null; }
    if (a && a.status === 200) { analysis = (await a.json()).analysis; break; }
    if (a && a.status !== 202) { status.textContent = "The analysis failed."; return; }
    await new Promise((ok) => setTimeout(ok, 2000));
  }
  status.textContent = `Cards marked −n cost n points against the best double-dummy play; ✓ was a best play. The last ${analysis.tricks} tricks of each hand are solved.`;
  show();
}

// ------------------------------------------------------------------- start

const page = document.body.dataset.page;
if (page === "lobby") lobbyPage();
else if (page === "table") tablePage();
else if (page === "replay") replayPage();
