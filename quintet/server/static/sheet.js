// quintet: the score views: the score sheet (partnerships: games and rubber; a lone
// seat against teams: the ledger of every hand), the final result and the end-of-hand
// summary, and the one-line result of a finished game in the lobby.

import { el } from "./dom.js";
import { Cards } from "./cards.js";
import { displayName, whoText, shortName, teamText, trumpText, sortHand, SUIT_SYM } from "./game.js";

const seatsOf = (G) => Array.from({ length: G.n }, (_, s) => s);

export function sheetTable(G, sheet, seats) {
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
    ...seatsOf(G).map((s) => el("th", { title: whoText(seats, G, s), text: shortName(seats, G, s) }))));
  for (const r of sheet.hands) {
    let what = r.void ? "void" : "";
    if (!r.void && r.quintus !== null) {
      what = `★ ${shortName(seats, G, r.quintus)} ${r.trump ? (r.trump === "NT" ? "sans atout" : SUIT_SYM[r.trump]) : ""}`;
      if (r.nil && r.nil !== "none") what += ` ${r.nil} nil${r.nil_failed ? " failed" : ""}`;
      if (r.contract) what += ` ${r.contract}${r.made === true ? " made" : r.made === false ? " down" : ""}`;
    }
    t.append(el("tr", { class: r.in_progress ? "live" : "" },
      el("td", {}, `${r.hand + 1}`, el("span", { class: "sub", text: r.in_progress ? "in play" : what })),
      ...seatsOf(G).map((s) => el("td", {},
        r.scores ? `${r.scores[s] > 0 ? "+" : ""}${r.scores[s]}` : "",
        r.totals ? el("span", { class: "sub", text: `${r.totals[s]}` }) : null))));
  }
  t.append(el("tr", { class: "total" }, el("td", { text: `total (${sheet.hands_played}/${sheet.hands_to_play})` }),
    ...sheet.totals.map((x, s) => el("td", { class: sheet.winners && sheet.winners.includes(s) ? "won" : "", "data-seat": s, text: `${x}` }))));
  return t;
}

// The final result, taken from the score sheet (the test checks it against the
// scorer run on the downloaded record).
export function finalResult(G, sheet, seats) {
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
  box.append(el("div", { class: "headline", text: winner === null || winner === undefined ? "Match over" : `Match over: ${names[winner]} ${G.sideVerb(winner)}${sheet.kind === "rubber" ? " the rubber" : " the game"}` }));
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

// The end-of-hand summary: the result, the tricks that scored (`scored`: [{trick, seat
// or side, points, what}]: quints, premiums, the cachette's quints) and every hand as
// dealt.
export function summaryNode(G, sm, seats, sheet, scored = []) {
  const box = el("div", { class: "summary", id: "summary-content" });
  box.append(el("h2", { id: "summary-h", text: "End of the hand" }));
  if (G.partnerships) {
    const names = G.sideNames(sheet);
    const order = G.sideOrder;
    let head;
    if (sm.game_winner !== null && sm.game_winner !== undefined) head = `${names[sm.game_winner]} ${G.sideVerb(sm.game_winner)} the game`;
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
    box.append(scoredList(G, seats, scored, "quints", names));
    const deal = el("div", { class: "deal" });
    sm.deal.hands.forEach((cards, s) => deal.append(el("span", { text: whoText(seats, G, s) }), cardRow(cards)));
    if (sm.deal.cachette) deal.append(el("span", { text: `cachette${sm.cachette_side !== null && sm.cachette_side !== undefined ? ` (to ${names[sm.cachette_side]})` : " (not taken)"}` }), cardRow(sm.deal.cachette));
    box.append(el("h3", { class: "deal-h", text: "The deal" }), deal);
  } else {
    if (sm.void) box.append(el("div", { class: "headline", text: "All five passed: the hand is void and is dealt again" }));
    else {
      const q = sm.quintus;
      const teams = G.teamsOf(q);
      let head = `Quintus ${displayName(seats, G, q)}: ${trumpText(sm.trump)}`;
      if (sm.nil && sm.nil !== "none") head += `, ${sm.nil} nil ${sm.nil_failed ? "failed" : "made"}`;
      if (sm.contract) head += `, contract ${sm.contract} ${sm.made ? "made" : "not made"}`;
      box.append(el("div", { class: "headline", text: head }));
      if (sm.points) {
        const t = el("table", { class: "res" });
        t.append(el("tr", {}, el("th", { text: "card points" }), el("th", { text: `quintus ${shortName(seats, G, q)}` }),
          el("th", { text: teamText(seats, G, teams[0]) }),
          el("th", { text: teamText(seats, G, teams[1]) })));
        t.append(el("tr", {}, el("td", { text: "this hand" }), ...sm.points.map((x) => el("td", { text: `${x}` }))));
        box.append(t);
      }
      const t2 = el("table", { class: "res hand-res" });
      t2.append(el("tr", {}, el("th", { text: "" }), ...seatsOf(G).map((s) => el("th", { text: shortName(seats, G, s) }))));
      t2.append(el("tr", {}, el("td", { text: "this hand" }), ...sm.scores.map((x) => el("td", { text: `${x > 0 ? "+" : ""}${x}` }))));
      if (sheet && sheet.totals) t2.append(el("tr", {}, el("td", { text: "total" }), ...sheet.totals.map((x) => el("td", { text: `${x}` }))));
      box.append(t2);
      box.append(settlement(G, sm, seats));
      box.append(scoredList(G, seats, scored, "premiums", null));
    }
    const deal = el("div", { class: "deal" });
    sm.deal.hands.forEach((cards, s) => deal.append(el("span", { text: whoText(seats, G, s) }), cardRow(cards, sm.trump)));
    box.append(el("h3", { class: "deal-h", text: "The deal" }), deal);
  }
  return box;
}

export function cardRow(cards, trump = null) {
  const row = el("div", { class: "hand spread" });
  for (const c of sortHand(cards, trump)) row.append(Cards.node(c, { size: "small" }));
  return row;
}

// The tricks of the hand that scored, one line each ("trick 3, won by Ann: quints 5♥ 20
// — 20 points"); `names`: the sides' names, for the cachette.
function scoredList(G, seats, scored, what, names) {
  const box = el("div", { class: "scored", "data-scored": what });
  if (!scored.length) {
    box.append(el("p", { class: "muted", text: `No trick held ${what === "quints" ? "a quint" : "a premium"} this hand.` }));
    return box;
  }
  box.append(el("h3", { class: "small", text: what === "quints" ? "The quints" : "The premiums" }));
  const list = el("ul", {});
  for (const x of scored) {
    const where = x.trick === null ? `the cachette, to ${names ? names[x.side] : "its side"}` : `trick ${x.trick}, won by ${displayName(seats, G, x.seat)}`;
    list.append(el("li", { "data-trick": x.trick === null ? "cachette" : x.trick, text: `${where}: ${x.what} — ${x.points} points` }));
  }
  box.append(list);
  return box;
}

// Who paid whom, and why: the bidding variant's settlement of the bid between the two
// teams by their card points (docs/rules.md, Settlement); in the base game each side
// scores its own card points.
function settlement(G, sm, seats) {
  const box = el("div", { class: "settlement" });
  const q = sm.quintus;
  const teams = G.teamsOf(q);
  if (!teams || !sm.scores || !sm.points) return box;
  const qn = displayName(seats, G, q);
  if (sm.contract === null || sm.contract === undefined) {
    box.append(el("p", { text: `The quintus ${qn} scores his own card points (${sm.points[0]}); each player of a team scores his team's: ${teamText(seats, G, teams[0])} ${sm.points[1]} each, ${teamText(seats, G, teams[1])} ${sm.points[2]} each.` }));
    return box;
  }
  const bid = sm.contract;
  const [a, b] = [sm.points[1], sm.points[2]];
  // M: the team with more card points (on a tie, the team of the quintus's left, team 0).
  const m = b > a ? 1 : 0;
  const pay = (t) => Math.abs(sm.scores[teams[t][0]]);
  const made = !!sm.made;
  const lines = [
    `Contract ${bid} ${made ? "made" : "not made"}: the quintus ${qn} had ${sm.points[0]} card points (nil and premiums counted) against the bid of ${bid}, so he ${made ? "wins" : "loses"} ${bid}${made ? ", paid by" : ", paid to"} the four others.`,
    `The bid is shared between the teams by their card points (${teamText(seats, G, teams[0])} ${a}, ${teamText(seats, G, teams[1])} ${b}; below zero counts as zero); the smaller share is rounded to an even number.`,
    `${teamText(seats, G, teams[m])}, with ${a === b ? "as many card points (the team on the quintus's left)" : "more card points"}, ${made ? "pay" : "receive"} the smaller share: ${pay(m)} each; ${teamText(seats, G, teams[1 - m])} ${made ? "pay" : "receive"} the rest: ${pay(1 - m)} each.`,
  ];
  for (const text of lines) box.append(el("p", { text }));
  return box;
}

// A finished game's result in one line (the lobby's list): the scorer's result of its
// record (record-format.md): every seat's total, or the partnerships' games and rubber.
export function resultText(G, result, players) {
  if (!result) return "";
  if (result.totals) {
    const best = Math.max(...result.totals);
    const who = (s) => !players[s] || players[s].kind !== "person" ? G.label(s) : `${players[s].name} (${G.label(s)})`;
    return result.totals.map((x, s) => `${who(s)} ${x}${x === best ? " ★" : ""}`).join(" · ");
  }
  const games = result.games.map((g) => `${g.score[0]}–${g.score[1]}`).join(", ");
  if (result.rubber) {
    const side = result.rubber.winner === null ? "nobody" : G.sideNames(null)[result.rubber.winner];
    return `${side} won the rubber ${result.rubber.score ? result.rubber.score.join("–") : ""} (games ${games})`;
  }
  const g = result.games[result.games.length - 1];
  const side = g.winner === null ? "nobody" : g.winner === 0 ? "the lone player" : "the opponents";
  return `${side} won ${g.score[0]}–${g.score[1]}`;
}
