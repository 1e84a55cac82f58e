// quintet: a player's page: ratings, statistics per game and variant, finished games.
// Everything shown comes from /api/players/{name} (and /api/info for the games' and
// variants' titles); text is set with textContent only.

import { $, el } from "./dom.js";
import { serverInfo } from "./game.js";

const fmt = (x) => (x === null || x === undefined ? "–" : typeof x === "number" && !Number.isInteger(x) ? x.toFixed(2) : String(x));

function titleOf(info, game, variant) {
  const g = (info && info.games && info.games[game]) || null;
  if (!g) return `${game} · ${variant}`;
  const v = (g.variant_info || {})[variant];
  return `${g.title} · ${v ? v.title : variant}`;
}

function table(head, rows) {
  return el("table", { class: "sheet" },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", { text: fmt(c) }))))));
}

function resultWords(g) {
  if (g.won === true) return "won";
  if (g.won === false) return g.place ? `lost (place ${g.place})` : "lost";
  return "no winner";
}

function ratingChange(g) {
  if (!g.rating) return null;
  const d = g.rating.after.conservative - g.rating.before.conservative;
  return `rating ${fmt(g.rating.after.conservative)} (${d >= 0 ? "+" : ""}${d.toFixed(2)})`;
}

function gameItem(info, g) {
  const who = g.players.map((p) => (p.kind === "bot" ? `${p.level} bot` : p.name || p.kind)).join(", ");
  const when = new Date(g.finished_at).toLocaleString();
  const line = [titleOf(info, g.game, g.variant), `${g.seat_label}: ${resultWords(g)}`, `${fmt(g.points)} points in ${g.hands} hands`];
  const change = ratingChange(g);
  if (change) line.push(change);
  return el("li", {},
    el("div", {}, el("strong", { text: g.title || line[0] }), g.rated ? el("span", { class: "tag", text: "rated" }) : null,
      g.public ? null : el("span", { class: "tag", text: "private" })),
    el("div", { class: "meta", text: `${(g.title ? line : line.slice(1)).join(" · ")} · ${when}` }),
    el("div", { class: "meta", text: who }),
    el("div", { class: "links" },
      el("a", { href: g.replay, text: "replay" }),
      el("a", { href: g.record, text: "record", download: `quintet-${g.id}.json` })));
}

export async function playerPage() {
  const name = decodeURIComponent(location.pathname.split("/").pop());
  $("#who").textContent = name;
  document.title = `quintet — ${name}`;
  let info = null;
  try { info = await serverInfo(); } catch (e) { /* titles fall back to the names */ }
  const r = await fetch(`/api/players/${encodeURIComponent(name)}`);
  if (!r.ok) {
    let msg = "This player cannot be shown.";
    try { msg = (await r.json()).error.message; } catch (e) { /* keep */ }
    $("#error").textContent = msg;
    return;
  }
  const data = await r.json();
  $("#who").textContent = data.player.name + (data.me ? " (you)" : "");

  $("#ratings-panel").hidden = false;
  $("#ratings").replaceChildren(data.ratings.length
    ? table(["game", "conservative", "mu", "sigma", "rated games"],
      data.ratings.map((x) => [titleOf(info, x.game, x.variant), x.conservative, x.mu, x.sigma, x.games]))
    : el("p", { class: "muted", text: "No rated game yet." }));

  $("#stats-panel").hidden = false;
  $("#stats").replaceChildren(...(data.statistics.length ? data.statistics.map((s) => el("div", {},
    el("h3", { text: titleOf(info, s.game, s.variant) }),
    table(["", ""], [
      ["games", s.games], ["wins", s.wins], ["hands", s.hands], ["points per hand", s.points_per_hand],
      ...s.figures.map((f) => [f.label, f.value]),
    ]))) : [el("p", { class: "muted", text: "No finished game yet." })]));

  $("#games-panel").hidden = false;
  const list = $("#games");
  let shown = 0;
  const add = (games, total) => {
    if (!shown && !games.length) list.replaceChildren(el("li", { class: "muted", text: "No finished game yet." }));
    list.append(...games.map((g) => gameItem(info, g)));
    shown += games.length;
    $("#more").hidden = shown >= total;
  };
  add(data.games, data.total);
  $("#more").addEventListener("click", async () => {
    const more = await fetch(`/api/players/${encodeURIComponent(name)}/games?offset=${shown}`);
    if (!more.ok) { $("#error").textContent = "More games could not be loaded."; return; }
    const page = await more.json();
    add(page.games, page.total);
  });
}

playerPage();
