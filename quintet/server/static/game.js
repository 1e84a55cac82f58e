// quintet: what the pages know of the games, all of it from the server's description
// (/api/info, fetched once per page): seats and their labels, variants, sides. Nothing
// here (nor anywhere in the client) asks which game a table plays by its name.

import { el } from "./dom.js";
import { Cards } from "./cards.js";

let info = null;

// The server's description of itself and of its games: /api/info, asked once per page
// (again after a failure, a few times, as the server may be restarting).
export function serverInfo() {
  if (!info) {
    info = fetchInfo();
    info.catch(() => { info = null; });
  }
  return info;
}

async function fetchInfo() {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await fetch("/api/info");
      if (r.ok) return await r.json();
    } catch (e) { /* try again */ }
    if (attempt >= 4) throw new Error("the server did not describe its games");
    await new Promise((ok) => setTimeout(ok, 400 * 2 ** attempt));
  }
}

// A table's shape: its game's description (an entry of /api/info's games) and its
// configuration (welcome.table, replay.config or a lobby row).
export function Game(config, desc) {
  const d = desc || {};
  const n = config.num_seats || d.seats || 0;
  const labels = d.seat_labels || [];
  const label = (s) => labels[s] || `seat ${s}`;
  const variant = (d.variant_info || {})[config.variant] || {};
  const dummy = !!variant.lone_seat && config.lone_seat !== null && config.lone_seat !== undefined;
  const lone = dummy ? config.lone_seat : null;
  // Two fixed partnerships (their seats), or null.
  const partnerships = d.sides === "partnerships" ? d.partnerships : null;
  const sideOf = (s) => (partnerships ? partnerships.findIndex((p) => p.includes(s)) : -1);
  const loneSide = dummy ? sideOf(lone) : -1;
  return {
    n, desc: d, label, partnerships, dummy, lone,
    dummySeat: dummy && d.dummy_of ? d.dummy_of[lone] : null,
    // A lone seat against two teams that change with it (teams_of[q]).
    withTeams: !!d.teams_of,
    teamsOf: (q) => (q === null || q === undefined || !d.teams_of ? null : d.teams_of[q]),
    // Partnerships shown lone player first in the dummy game (as the record scores them).
    sideOrder: loneSide === 1 ? [1, 0] : [0, 1],
    // The verb of a side in a result: "N-S win", "lone North wins".
    sideVerb: (i) => (dummy && i === loneSide ? "wins" : "win"),
    sideNames: (sheet) => {
      if (sheet && sheet.sides) return sheet.sides;
      if (!partnerships) return [];
      if (dummy) return partnerships.map((_, i) => (i === loneSide ? `lone ${label(lone)}` : "opponents"));
      return partnerships.map((p) => p.map((s) => label(s)[0]).join("-"));
    },
  };
}

// How a seat is named in lines of text: a person by name, a bot by its place.
export function displayName(seats, G, s) {
  const row = seats && seats[s];
  if (!row) return G.label(s);
  if (row.kind === "dummy") return `dummy (${G.label(s)})`;
  if (row.kind === "open") return `${G.label(s)} (open)`;
  if (row.kind === "bot") return `${G.label(s)} (bot)`;
  return row.name || G.label(s);
}
export function whoText(seats, G, s) {
  const row = seats && seats[s];
  return row && row.kind === "person" ? `${row.name} (${G.label(s)})` : displayName(seats, G, s);
}
export function shortName(seats, G, s) {
  const row = seats && seats[s];
  if (!row || row.kind !== "person") return G.label(s);
  return row.name.length > 8 ? row.name.slice(0, 7) + "…" : row.name;
}

// ------------------------------------------------------------ actions

export const SUIT_WORD = { S: "spades", C: "clubs", D: "diamonds", H: "hearts", NT: "sans atout" };
export const SUIT_SYM = Cards.SUIT_SYMBOLS;
export const SIGNAL_TEXT = { up: "↑ up", down: "↓ down", ask: "? ask" };
export const NIL_TEXT = { none: "no nil", closed: "closed nil", open: "open nil" };

export function suitSpan(s) {
  if (s === "NT") return el("span", { text: "sans atout" });
  return el("span", { class: `sym-${s}`, text: SUIT_SYM[s], title: SUIT_WORD[s] });
}

// A trump as people say it: "trump ♥", or "sans atout" (the rulebook's word, as the
// terminal says it).
export function trumpText(s) {
  return s === "NT" ? "sans atout" : `trump ${SUIT_SYM[s]}`;
}

// A team of two by its members for this hand: "Ann & seat 3".
export function teamText(seats, G, team) {
  return [...team].sort((a, b) => a - b).map((s) => shortName(seats, G, s)).join(" & ");
}

// A hand's cards as the terminal sorts them (quintet/tui/render.py hand_order): by suit,
// hearts, clubs, diamonds, spades (the colours alternate), the trump suit first; high
// cards first; the joker last.
const SUIT_RANK = { H: 0, C: 1, D: 2, S: 3 };
const RANK_ORDER = "23456789TJQKA";
export function sortHand(cards, trump = null) {
  const key = (c) => {
    if (c === "JK") return 1000;
    const suit = c[1] === trump ? -1 : SUIT_RANK[c[1]];
    return (suit + 1) * 20 + (12 - RANK_ORDER.indexOf(c[0]));
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}

// How an action reads in a bubble, a log line or a hint.
export function actionText(a) {
  switch (a.type) {
    case "play": return Cards.short(a.card);
    case "bid": return `bid ${a.amount}`;
    case "trump": return trumpText(a.suit);
    case "nil": return NIL_TEXT[a.kind];
    case "meld": return `meld ${a.combo}`;
    case "signal": return `signal ${SIGNAL_TEXT[a.signal]}`;
    default: return a.type;
  }
}
// The text form the server also accepts: "pass", "bid 40", "trump NT", "QS".
export function actionKey(a) {
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
export function sameAction(a, b) { return a && b && a.seat === b.seat && actionKey(a) === actionKey(b); }
// A hint stands while the table is where it was asked, or while the action it names is
// still legal (another seat's signal changes the table, not this seat's choice).
export function hintHolds(hint, st) {
  if (hint.seq === st.seq) return true;
  return !!hint.action && (st.legal || []).some((l) => sameAction(l, hint.action));
}
// A table that is over: finished, or closed by the server as abandoned.
export function isOver(st) { return st.status === "finished" || st.status === "abandoned"; }
