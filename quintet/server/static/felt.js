// quintet: the felt. The seats around the table (the viewer at the bottom), their hands,
// the trick in the middle and the contract above it; each drawn again only where what
// it shows has changed (the table page calls render on every state message).

import { $, $$, el, setAttr, setClass, setText, Parts, keyed, Memo } from "./dom.js";
import { Cards } from "./cards.js";
import { displayName, actionText, trumpText, teamText, sortHand, suitSpan, NIL_TEXT, SIGNAL_TEXT } from "./game.js";

// Where each seat's card lies on the trick (percent of its box), by the seat's place
// round the table from the viewer; by the number of seats.
const TRICK_POS = {
  4: [[50, 77], [17, 50], [50, 23], [83, 50]],
  5: [[50, 77], [13, 56], [31, 23], [69, 23], [87, 56]],
};

// ctx: {G, seats, hand, view, me, legal (Map "seat:card" → action), status, faceUp (all
//       hands face up), decisions, onCard, selected, hinted, marks, flash (a finished
//       trick left on the felt: {winner, cards, points, detail}), done (replay: a
//       completed trick), showBottomHand, sit, replay, onTrick (a click on the trick)}
export class Felt {
  constructor(root = $("#felt")) {
    this.root = root;
    this.center = $("#center", root);
    this.trick = $("#trick", root);
    this.gone = $("#trickgone", root);
    this.msg = $("#trickmsg", root); // the table page's line naming a finished trick's winner
    this.shown = null; // the finished trick on the felt: its cards go to the winner when it leaves
    this.trick.addEventListener("click", () => { if (this.onTrick) this.onTrick(); });
    this.seats = [];
    this.n = null;
  }

  render(ctx) {
    const { G } = ctx;
    if (this.n !== G.n) {
      this.n = G.n;
      for (const old of $$(".seat", this.root)) old.remove();
      this.seats = [];
      for (let s = 0; s < G.n; s++) {
        const view = new SeatView(s);
        this.seats.push(view);
        this.root.insertBefore(view.box, this.center);
      }
      this.root.classList.toggle("n4", G.n === 4);
      this.root.classList.toggle("n5", G.n === 5);
    }
    const h = ctx.hand;
    const signals = h && h.signals ? Object.fromEntries(h.signals.map((x) => [x.seat, x.signal])) : {};
    for (const v of this.seats) v.render(ctx, signals[v.seat]);
    this.onTrick = ctx.onTrick || null;
    const finished = renderTrick(this.trick, ctx);
    if (this.msg) renderTrickMsg(this.msg, ctx);
    // A finished trick leaving the felt (the next card, a click, the next step): its
    // cards slide to the winner's seat and fade (not with prefers-reduced-motion).
    if (this.shown && this.shown.key !== (finished && finished.key)) this.collect(this.shown, ctx);
    this.shown = finished;
  }

  collect(was, ctx) {
    const { G } = ctx;
    if (!this.gone || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const to = TRICK_POS[G.n][(was.winner - ctx.view + G.n) % G.n];
    for (const node of was.nodes) {
      if (node.isConnected) continue; // still on the felt (a replay step back)
      node.classList.add("going");
      this.gone.append(node);
      void node.offsetWidth; // the start of the transition
      node.style.left = `${to[0]}%`;
      node.style.top = `${to[1]}%`;
      node.classList.add("gone");
      setTimeout(() => node.remove(), 600);
    }
  }
}

// One seat: its box's attributes set in place, its parts (name, badges, count, hand,
// bubble, signal, the sit button) each made again only when it changed.
class SeatView {
  constructor(seat) {
    this.seat = seat;
    this.box = el("section", { class: "seat", "data-seat": seat });
    this.parts = new Parts(this.box, ["who", "badges", "info", "hand", "bubble", "signal", "sit"]);
    this.hand = null;
    this.sit = null;
  }

  render(ctx, signal) {
    const s = this.seat;
    const { G, seats, hand: h, me } = ctx;
    const pos = (s - ctx.view + G.n) % G.n;
    const row = (seats && seats[s]) || { kind: "open", label: G.label(s) };
    const mine = !!(me && me.controls && me.controls.includes(s));
    const isTurn = !!h && h.turn === s && ctx.status === "playing";
    const open = !!(h && h.hands[s] && !(ctx.showBottomHand && pos === 0));
    setClass(this.box, `seat${isTurn ? " turn" : ""}${mine ? " me" : ""}${open ? " shown" : ""}`);
    setAttr(this.box, "data-pos", pos);
    if (this.box.style.gridArea !== `p${pos}`) this.box.style.gridArea = `p${pos}`; // CSSOM: allowed by the CSP
    setAttr(this.box, "aria-label", `${G.label(s)}: ${displayName(seats, G, s)}${isTurn ? ", to play" : ""}`);

    const dot = row.kind === "dummy" || ctx.replay ? null : {
      cls: row.kind === "open" || row.kind === "dummy" ? "open" : row.connected ? "" : "away",
      title: row.kind === "open" ? "open" : row.connected ? "connected" : "away",
    };
    const who = {
      dot,
      name: row.kind === "person" ? row.name : row.kind === "open" ? "open seat" : row.kind === "dummy" ? "dummy" : G.label(s),
      label: row.kind === "bot" ? null : G.label(s),
    };
    this.parts.set("who", JSON.stringify(who), () => el("div", { class: "who" },
      who.dot ? el("span", { class: `status-dot ${who.dot.cls}`, title: who.dot.title }) : null,
      el("span", { class: "name", text: who.name }),
      who.label === null ? null : el("span", { class: "label", text: who.label })));

    const badges = seatBadges(ctx, s, row, mine, isTurn);
    this.parts.set("badges", JSON.stringify(badges), () => (badges.length ? el("div", { class: "badges" },
      ...badges.map(([cls, text, title]) => el("span", { class: cls, text, title }))) : null));

    let info = null;
    if (h) {
      info = `${h.hand_sizes[s]} card${h.hand_sizes[s] === 1 ? "" : "s"}`;
      if (h.taken) info += ` · ${h.taken[s] / G.n} tricks`;
    }
    this.parts.set("info", JSON.stringify(info), () => (info === null ? null : el("div", { class: "info", text: info })));

    // The hand: face up if this viewer may see it (own hand below the felt), else backs.
    let handKey = "none";
    const cards = open ? sortHand(h.hands[s], h.trump) : null;
    if (cards) handKey = `cards:${ctx.faceUp ? "small" : "mid"}`;
    else if (h && !(ctx.showBottomHand && pos === 0) && h.hand_sizes[s] > 0) handKey = `backs:${h.hand_sizes[s]}`;
    this.parts.set("hand", handKey, () => {
      this.hand = null;
      if (handKey === "none") return null;
      if (cards) {
        this.hand = new HandView(s, ctx.faceUp ? "small" : "mid");
        return this.hand.node;
      }
      const backs = el("div", { class: "hand backs small-hand", "aria-label": `${h.hand_sizes[s]} cards` });
      for (let i = 0; i < Math.min(h.hand_sizes[s], 12); i++) backs.append(Cards.back({ size: "tiny" }));
      return backs;
    });
    if (cards && this.hand) this.hand.update(ctx, cards);

    const dec = ctx.decisions && ctx.decisions[s];
    this.parts.set("bubble", JSON.stringify(dec || null), () => (dec ? el("span", {
      class: `bubble${dec.strong ? " strong" : ""}`, text: dec.text, "aria-label": `${G.label(s)}: ${dec.text}`,
    }) : null));
    this.parts.set("signal", signal || "", () => (signal ? el("span", {
      class: "signal-ind", "data-signal": signal, text: SIGNAL_TEXT[signal], role: "status", "aria-label": `${G.label(s)} signals ${signal}`,
    }) : null));
    this.sit = ctx.sit;
    const canSit = !!ctx.sit && row.kind === "open";
    this.parts.set("sit", String(canSit), () => (canSit ? el("button", {
      type: "button", class: "sit primary", "data-sit": s, onclick: () => { if (this.sit) this.sit(s); },
    }, "Sit here") : null));
  }
}

// The badges of a seat as [class, text, title] (the bot, you, the dealer, the lone
// player and the dummy, the quintus and the teams, whose turn).
function seatBadges(ctx, s, row, mine, isTurn) {
  const { G, seats, hand: h, me } = ctx;
  const out = [];
  if (row.kind === "bot") out.push(["badge bot", `bot · ${row.level}`, null]);
  if (row.kind === "person" && !row.connected && !ctx.replay) out.push(["badge away", "away", null]);
  if (mine && me.seat === s) out.push(["badge", "you", null]);
  if (h && h.dealer === s) out.push(["badge dealer", "dealer", "dealer"]);
  if (G.dummy && s === G.lone) out.push(["badge lone", "lone player", null]);
  if (G.dummy && s === G.dummySeat) out.push(["badge dummy", `played by ${G.label(G.lone)}`, null]);
  const q = h && G.withTeams ? h.quintus : null;
  if (q === s) out.push(["badge quintus", "★ quintus", null]);
  else if (q !== null && q !== undefined) {
    const teams = G.teamsOf(q);
    const t = teams[0].includes(s) ? 0 : 1;
    const mate = teams[t].find((x) => x !== s);
    out.push(["badge team", `with ${displayName(seats, G, mate)}`, `this hand's team: ${teamText(seats, G, teams[t])}`]);
  }
  if (isTurn) {
    const bot = !ctx.replay && (row.kind === "bot" || (row.kind === "dummy" && seats[G.lone] && seats[G.lone].kind === "bot"));
    out.push([`badge turn${bot ? " thinking" : ""}`, bot ? "thinking" : mine ? "your turn" : "to play", null]);
  }
  return out;
}

// One hand of cards, kept from one state to the next: a card played leaves it, the
// others stay and change only their class (legal ones are raised and outlined).
export class HandView {
  constructor(seat, size, label = null) {
    this.seat = seat;
    this.size = size;
    this.label = label;
    this.node = el("div", { role: "group" });
    this.actions = new Map();
    this.onCard = null;
  }

  update(ctx, cards) {
    const seat = this.seat, size = this.size;
    const legal = ctx.legal || new Map();
    const active = cards.some((c) => legal.has(`${seat}:${c}`));
    const mine = !!(ctx.me && ctx.me.controls && ctx.me.controls.includes(seat));
    setClass(this.node, `hand ${size === "small" ? "small-hand" : size === "mid" ? "mid-hand" : ""}${active ? " active" : ""}${mine ? " mine" : ""}`);
    setAttr(this.node, "data-hand", seat);
    setAttr(this.node, "aria-label", this.label || `${ctx.G.label(seat)}'s hand`);
    this.onCard = ctx.onCard || null;
    this.actions = new Map();
    const button = !!ctx.onCard;
    const look = (c) => {
      const key = `${seat}:${c}`;
      const a = legal.get(key);
      if (a) this.actions.set(key, a);
      let cls = a ? "legal" : "";
      if (ctx.selected === key) cls += " selected";
      if (ctx.hinted === key) cls += " hinted";
      if (ctx.marks && ctx.marks[c]) cls += ` ${ctx.marks[c]}`;
      return { key, a, cls, label: a ? `play ${Cards.name(c)}` : Cards.name(c) };
    };
    keyed(this.node, cards.map((c) => ({
      key: `${button ? "b" : "s"}:${c}`,
      make: () => {
        const x = look(c);
        if (!button) return Cards.node(c, { size, cls: x.cls });
        const b = Cards.node(c, { button: true, size, cls: x.cls, label: x.label });
        b.dataset.seat = seat;
        b.dataset.key = x.key;
        b.addEventListener("click", () => {
          const act = this.actions.get(x.key);
          if (act && this.onCard) this.onCard(act);
        });
        setPlayable(b, !!x.a);
        return b;
      },
      update: (b) => {
        const x = look(c);
        setClass(b, Cards.className(c, { size, cls: x.cls }));
        if (button) {
          setAttr(b, "aria-label", x.label);
          setPlayable(b, !!x.a);
        }
      },
    })));
  }
}

function setPlayable(b, ok) {
  if (b.disabled !== !ok) b.disabled = !ok;
  setAttr(b, "aria-disabled", ok ? null : "true");
}

// The trick in the middle: a card played joins the ones there, coming from its seat's
// side; a finished trick stays (ctx.flash) with its winner and what it scored named,
// until the next card or a click; the replay shows a completed one (ctx.done). Returns
// the finished trick shown ({key, winner, nodes}), or null.
function renderTrick(box, ctx) {
  const { G, hand: h } = ctx;
  let plays = h ? h.trick : [];
  let winner = null;
  const done = (h && ctx.done) || null;
  let flash = null;
  if (done) {
    plays = done.cards;
    winner = done.winner;
  } else if (h && !plays.length && ctx.flash) {
    flash = ctx.flash;
    plays = flash.cards;
    winner = flash.winner;
  }
  box.classList.toggle("done", !!done);
  box.classList.toggle("flash", !!flash);
  setAttr(box, "title", flash ? "click: clear the trick" : null);
  setAttr(box, "aria-label", winner !== null ? `the trick, won by ${G.label(winner)}` : "the trick");
  const pos = TRICK_POS[G.n];
  const finished = done || flash;
  const items = plays.map((t, i) => {
    const p = pos[(t.seat - ctx.view + G.n) % G.n];
    const won = winner === t.seat;
    const by = finished && won ? `★ ${G.label(t.seat)}` : G.label(t.seat);
    const label = `${G.label(t.seat)} played ${Cards.name(t.card)}${finished && won ? ", winning the trick" : ""}`;
    const cls = `played${won ? " winner" : ""}`;
    return {
      // The same card stays the same node when its trick is won (no second entrance).
      key: JSON.stringify([t.seat, t.card, i, p]),
      make: () => el("div", {
        class: cls, "data-seat": t.seat,
        // --fx, --fy: where the card comes from (its seat's side of the trick).
        style: `left:${p[0]}%;top:${p[1]}%;z-index:${i + 1};--fx:${(p[0] - 50) * 3}px;--fy:${(p[1] - 50) * 4}px`,
      }, el("span", { class: "by", text: by }), Cards.node(t.card, { size: "mid", label })),
      update: (node) => {
        setClass(node, cls);
        setText(node.firstChild, by);
        setAttr(node.lastChild, "aria-label", label);
      },
    };
  });
  keyed(box, items);
  if (!finished) return null;
  return { key: JSON.stringify([h.number, finished.cards, winner]), winner, nodes: [...box.querySelectorAll(".played")] };
}

// The line under the trick naming a finished trick's winner and what it scored.
function renderTrickMsg(box, ctx) {
  const f = ctx.hand && !ctx.hand.trick.length ? ctx.flash : null;
  const text = f ? `${displayName(ctx.seats, ctx.G, f.winner)} wins the trick${f.points ? ` · ${f.points} points` : ""}` : "";
  const detail = f && f.detail ? f.detail : "";
  if (box.dataset.key === `${text}\n${detail}`) return;
  box.dataset.key = `${text}\n${detail}`;
  box.replaceChildren(...(text ? [el("span", { class: "won", text }), detail ? el("span", { class: "detail", text: detail }) : ""] : []));
}

// ------------------------------------------------------------ the contract

// Chips above the trick: the hand, the doubling, the trick value and the cachette of
// partnerships; the auction, the quintus, trump, nil, a meld and the card points of a
// lone seat against teams. A chip is [class, ...parts]: text, {suit} or {cards}.
function contractChips(G, h, seats) {
  if (!h) return [];
  const out = [["chip", `hand ${h.number + 1}`]];
  const has = (x) => x !== null && x !== undefined;
  if (G.partnerships) {
    if (h.multiplier > 1) {
      out.push(["chip big", `×${h.multiplier} `, h.multiplier === 2 ? "doubled" : "redoubled",
        has(h.doubled_by) ? ` by ${G.label(h.doubled_by)}` : ""]);
    }
    out.push(["chip", `trick value ${5 * h.multiplier}`]);
    if (h.cachette) out.push(["chip", "cachette ", { cards: h.cachette }]);
    return out;
  }
  if (h.void) out.push(["chip big", "void hand: all passed"]);
  if (h.phase === "auction" && h.high_bid) out.push(["chip big", `high bid ${h.high_bid}`]);
  if (has(h.quintus)) out.push(["chip big", `★ quintus: ${displayName(seats, G, h.quintus)}`]);
  if (h.contract) out.push(["chip", `contract ${h.contract}`]);
  if (h.trump) out.push(h.trump === "NT" ? ["chip big", trumpText(h.trump)] : ["chip big", "trump ", { suit: h.trump }]);
  if (h.nil && h.nil !== "none") out.push(["chip big", NIL_TEXT[h.nil]]);
  if (h.meld) out.push(["chip big", `${h.meld} to meld?`]);
  if (h.points && has(h.quintus) && G.teamsOf(h.quintus)) {
    const t = G.teamsOf(h.quintus);
    out.push(["chip", `card points: quintus ${h.points[0]} · ${teamText(seats, G, t[0])} ${h.points[1]} · ${teamText(seats, G, t[1])} ${h.points[2]}`]);
  }
  return out;
}

const CONTRACTS = new WeakMap();

// The contract's chips in `box`, made again only when one of them changed.
export function renderContract(box, G, h, seats) {
  const chips = contractChips(G, h, seats);
  const memo = CONTRACTS.get(box) || new Memo();
  CONTRACTS.set(box, memo);
  if (!memo.changed("chips", JSON.stringify(chips))) return;
  box.replaceChildren(...chips.map(([cls, ...parts]) => el("span", { class: cls }, ...parts.map((p) => {
    if (typeof p === "string") return p;
    if (p.suit) return suitSpan(p.suit);
    return p.cards.map((x) => Cards.node(x, { size: "tiny" }));
  }))));
}

// The latest decision of each seat in this hand, for the bubbles by the seats.
export function decisionsOf(events, h) {
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

