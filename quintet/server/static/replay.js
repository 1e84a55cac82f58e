// quintet: the replay of a finished game, step by step, every hand face up, with the
// double-dummy analysis of every card (asked of the server, then polled).

import { $, el, accessQuery, fourColourToggle } from "./dom.js";
import { Cards } from "./cards.js";
import { Game, serverInfo, displayName, whoText, shortName, actionText } from "./game.js";
import { Felt, renderContract } from "./felt.js";
import { summaryNode, resultText } from "./sheet.js";

export async function replayPage() {
  fourColourToggle();
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const described = serverInfo();
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
  let info;
  try { info = await described; } catch (e) {
    $("#note").textContent = "The server did not describe its games: reload the page.";
    return;
  }
  const G = Game(data.config, info.games[data.config.game]);
  const felt = new Felt();
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
    felt.render({ G, seats, hand: st, view, me: null, legal: new Map(), status: "playing", faceUp: true, marks, decisions: {}, replay: true, done });
    const caption = $("#trickwon");
    caption.hidden = !done;
    if (done) {
      const pts = done.points ? ` (quints: ${done.points} points)` : "";
      caption.replaceChildren(`Trick ${st.tricks_played} won by `, el("strong", { text: whoText(seats, G, done.winner) }), pts);
    } else caption.replaceChildren();
    renderContract($("#contract"), G, st, seats);
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
    if (!inline.hidden) inline.replaceChildren(summaryNode(G, hand.result, seats, null, scoredOf(hand)));
    renderPlays(hand, k);
  }

  // The tricks of a hand that scored: Quinto's quints (each completed trick's points),
  // a Quintus premium (what its meld added to the melder's side's card points).
  function scoredOf(hand) {
    const out = [];
    let n = 0;
    hand.steps.forEach((st, i) => {
      if (st.completed_trick) {
        n += 1;
        if (st.completed_trick.points) out.push({ trick: n, seat: st.completed_trick.winner, points: st.completed_trick.points, what: "quints" });
      }
      if (st.action && st.action.type === "meld" && i > 0 && st.points && hand.steps[i - 1].points) {
        const gained = st.points.reduce((x, v, j) => x + v - hand.steps[i - 1].points[j], 0);
        out.push({ trick: n, seat: st.action.seat, points: gained, what: actionText(st.action) });
      }
    });
    return out;
  }

  // The hand's tricks, one row each, a column per seat: who led (a dot) and who won (★).
  function renderPlays(hand, k) {
    const box = $("#plays");
    const tricks = [];
    let cur = [];
    hand.steps.forEach((st, i) => {
      if (st.action && st.action.type === "play") cur.push({ step: i, seat: st.action.seat, card: st.action.card });
      if (st.completed_trick) { tricks.push({ plays: cur, winner: st.completed_trick.winner }); cur = []; }
    });
    if (cur.length) tricks.push({ plays: cur, winner: null });
    const t = el("table", {});
    t.append(el("tr", {}, el("th", { text: "trick" }),
      ...Array.from({ length: G.n }, (_, s) => el("th", { "data-seat": s, title: whoText(seats, G, s), text: shortName(seats, G, s) }))));
    tricks.forEach((tr, i) => {
      const row = el("tr", { "data-trick": i + 1 }, el("td", { text: `${i + 1}` }));
      for (let s = 0; s < G.n; s++) {
        const p = tr.plays.find((x) => x.seat === s);
        if (!p) { row.append(el("td", {})); continue; }
        const n = noteOf(hand.hand, p.step - 1);
        const lead = tr.plays[0] === p, won = tr.winner === s;
        const b = el("button", {
          type: "button", class: `pc sym-${p.card[1] || "S"}${p.step === k ? " cur" : ""}`,
          title: `${G.label(p.seat)}: ${Cards.name(p.card)}${lead ? ", led" : ""}${won ? ", won the trick" : ""}`,
          "aria-label": `${G.label(p.seat)} ${Cards.name(p.card)}${lead ? ", led" : ""}${won ? ", won the trick" : ""}`,
          onclick: () => { stepInput.value = `${p.step}`; show(); },
        }, lead ? el("span", { class: "lead", "aria-hidden": "true", text: "•" }) : null, Cards.short(p.card), won ? el("span", { class: "star", "aria-hidden": "true", text: "★" }) : null);
        const tag = n && n.value !== null ? (n.cost ? el("span", { class: "cost", text: `−${n.cost}` }) : el("span", { class: "ok", text: "✓" })) : null;
        row.append(el("td", { class: won ? "won" : "", "data-seat": s }, b, tag));
      }
      t.append(row);
    });
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
  res.append(el("p", { text: resultText(G, data.score, seats) }));
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
