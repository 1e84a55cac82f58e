// quintet: the leaderboard, one tab per game and variant (from /api/info), a page of
// players at a time by conservative rating (/api/leaderboard), and the bots' fixed
// ratings. Text is set with textContent only.

import { $, el } from "./dom.js";
import { serverInfo } from "./game.js";

const fmt = (x) => (typeof x === "number" && !Number.isInteger(x) ? x.toFixed(2) : String(x));

function table(head, rows) {
  return el("table", { class: "sheet" },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c instanceof Node ? c : fmt(c)))))));
}

export async function leaderboardPage() {
  let info;
  try { info = await serverInfo(); } catch (e) {
    $("#error").textContent = "The server did not answer: reload the page to try again.";
    return;
  }
  const q = new URLSearchParams(location.search);
  const tabs = [];
  for (const g of Object.values(info.games)) {
    for (const v of g.variants) tabs.push({ game: g.name, variant: v, title: `${g.title} · ${(g.variant_info[v] || {}).title || v}` });
  }
  let current = tabs.find((t) => t.game === q.get("game") && t.variant === q.get("variant")) || tabs[0];
  let offset = 0;
  let limit = 0; // the page size the server serves

  const buttons = tabs.map((t) => el("button", { type: "button", role: "tab", text: t.title, onclick: () => { current = t; offset = 0; show(); } }));
  $("#tabs").setAttribute("role", "tablist");
  $("#tabs").replaceChildren(...buttons);

  async function show() {
    tabs.forEach((t, i) => buttons[i].setAttribute("aria-selected", t === current ? "true" : "false"));
    history.replaceState(null, "", `/leaderboard?game=${encodeURIComponent(current.game)}&variant=${encodeURIComponent(current.variant)}`);
    const r = await fetch(`/api/leaderboard?game=${encodeURIComponent(current.game)}&variant=${encodeURIComponent(current.variant)}&offset=${offset}`);
    if (!r.ok) { $("#error").textContent = "The leaderboard could not be loaded."; return; }
    $("#error").textContent = "";
    const data = await r.json();
    limit = data.limit;
    $("#board").replaceChildren(data.players.length
      ? table(["rank", "player", "conservative", "mu", "sigma", "rated games"], data.players.map((p) => [
        p.rank, el("a", { href: p.url, text: p.name }), p.conservative, p.mu, p.sigma, p.games]))
      : el("p", { class: "muted", text: "Nobody has played a rated game of this yet." }));
    $("#bots").replaceChildren(table(["bot level", "conservative", "mu", "sigma"],
      data.bots.map((b) => [b.level, b.conservative, b.mu, b.sigma])));
    const last = Math.min(data.total, offset + data.players.length);
    $("#page").textContent = data.total ? `${offset + 1}–${last} of ${data.total}` : "";
    $("#prev").disabled = offset === 0;
    $("#next").disabled = last >= data.total;
  }
  $("#prev").addEventListener("click", () => { offset = Math.max(0, offset - limit); show(); });
  $("#next").addEventListener("click", () => { offset += limit; show(); });
  show();
}

leaderboardPage();
