// quintet: the first-hand lesson. A table opened with ?learn=1 (the lobby's "Learn"
// buttons make one: you and heuristic bots) explains each decision as it comes, in the
// box under the decisions: what the rules allow now and why (the doubling, the lead,
// following suit, the auction, trump, nil, a premium), and what just happened when a
// trick scores (a quint, a premium) or the hand ends. The words are
// /static/guide.json's, per game; this module only picks the sentence and fills in the
// suit, the cards and the side. It shows nothing the state message does not.

import { $, el, store, tokenKey } from "./dom.js";
import { serverInfo, displayName, SUIT_WORD } from "./game.js";

let guide = null;

export async function loadGuide() {
  if (!guide) guide = await (await fetch("/static/guide.json")).json();
  return guide;
}

// Whether this table is a lesson: ?learn=1 once marks it for this browser.
export function isLesson(tid, params) {
  const key = `quintet:learn:${tid}`;
  if (params.get("learn") === "1") store.set(key, "1");
  if (params.get("learn") === "0") store.del(key);
  return store.get(key) === "1";
}

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
// Whether seats s and w play on one side this hand (a partnership, or a Quintus team).
const sameSide = (G, s, w, h) =>
  s === w ||
  (G.partnerships
    ? G.partnerships.some((p) => p.includes(s) && p.includes(w))
    : (G.teamsOf(h && h.quintus) || []).some((t) => t.includes(s) && t.includes(w)));
const suitOf = (code) => (code === "JK" ? null : code[code.length - 1]);

// The lesson's sentence for the state message `st` ({G, seats, flash, target} from the page).
export function lessonText(st, { G, seats, flash, target }) {
  const g = guide && G && guide[G.desc.name];
  if (!g || !st) return "";
  const h = st.hand;
  const values = { target: target || (G.desc.options && G.desc.options.target) || "" };
  // What a trick that just ended scored (the finished trick on the felt), then the
  // decision now, if it is the player's.
  let event = "";
  if (flash && flash.detail) {
    const key = g.events.quint ? "quint" : "premium";
    const mine = ((st.you && st.you.controls) || []).some((s) => sameSide(G, s, flash.winner, h));
    const side = mine ? "your side" : `the side of ${displayName(seats, G, flash.winner)}`;
    event = fill(g.events[key], { ...values, cards: flash.detail.replace(/^quints? /, ""), side });
  }
  const now = decisionText(g, st, values);
  return [event, now].filter(Boolean).join("\n");
}

function decisionText(g, st, values) {
  const h = st.hand;
  if (st.status === "hand_over" || st.status === "finished") return fill(g.events.hand, values);
  if (!h || st.status !== "playing") return g.intro;
  const controls = (st.you && st.you.controls) || [];
  const legal = (st.legal || []).filter((a) => a.type !== "signal");
  if (h.turn === null || !controls.includes(h.turn) || !legal.length) return "";
  if (h.phase !== "play") return g.phases[h.phase] || "";
  const mine = (h.hands && h.hands[h.turn]) || [];
  if (!h.trick.length) {
    if (g.phases.joker_lead && mine.length === 1 && mine[0] === "JK") return g.phases.joker_lead;
    return g.phases.lead;
  }
  const led = suitOf(h.trick[0].card);
  if (led === null) return g.phases.joker_led || g.phases.void.replace("{suit}", "the suit led");
  const word = SUIT_WORD[led] || led;
  const follows = mine.some((c) => suitOf(c) === led);
  return fill(follows ? g.phases.follow : g.phases.void, { suit: word });
}

// The lobby's buttons: a private table of this game with you at seat 0 and heuristic
// bots in the other seats, opened as a lesson.
export async function mountLessons() {
  const box = $("#lessons");
  if (!box) return;
  const info = await serverInfo();
  for (const [name, d] of Object.entries(info.games || {})) {
    const button = el("button", { type: "button", class: "ghost", "data-lesson": name, text: `Learn ${d.title}: a first hand` });
    button.addEventListener("click", () => startLesson(name, d, button));
    box.append(button);
  }
}

async function startLesson(name, d, button) {
  const err = $("#lessons-error");
  err.textContent = "";
  const seats = [{ kind: "open" }];
  for (let s = 1; s < d.seats; s++) seats.push({ kind: "bot", level: "heuristic" });
  const body = {
    game: name, variant: d.variants[0], options: {}, seats, public: false,
    title: `First hand of ${d.title}`, join: { seat: 0, name: store.get("quintet:name") || "You" },
  };
  button.disabled = true;
  try {
    const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const out = await r.json();
    if (!r.ok) { err.textContent = out.error ? out.error.message : "the table could not be made"; return; }
    if (out.token) store.set(tokenKey(out.id), out.token);
    store.set(`quintet:invites:${out.id}`, JSON.stringify(out.seats));
    const url = new URL(out.url, location.href);
    url.searchParams.set("learn", "1");
    location.href = url.pathname + url.search;
  } catch (e) {
    err.textContent = "The server did not answer; try again.";
  } finally {
    button.disabled = false;
  }
}
