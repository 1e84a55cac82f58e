// quintet: the lobby. The form of a new table (its games, variants, seats and labels
// from /api/info; each game's rule inputs are marked in index.html with data-game and
// data-variant), the open tables and the finished games.

import { $, $$, el, store, tokenKey } from "./dom.js";
import { Game, serverInfo } from "./game.js";
import { resultText } from "./sheet.js";

export async function lobbyPage() {
  let info;
  try { info = await serverInfo(); } catch (e) {
    $("#create-error").textContent = "The server did not answer: reload the page to try again.";
    return;
  }
  const games = info.games;
  const form = $("#create");
  const game = $("#game"), variant = $("#variant"), lone = $("#lone");
  const desc = () => games[game.value];
  const vinfo = () => (desc().variant_info || {})[variant.value] || {};
  const label = (s) => desc().seat_labels[s];

  game.replaceChildren(...Object.values(games).map((d) => el("option", { value: d.name, text: `${d.title} (${d.seats} players)` })));

  function showOptions() {
    for (const node of $$("[data-game]", form)) {
      const okGame = node.dataset.game === game.value;
      const okVar = !node.dataset.variant || node.dataset.variant === variant.value;
      node.hidden = !(okGame && okVar);
    }
  }
  function seatsForm() {
    const n = desc().seats;
    const dummySeat = vinfo().lone_seat && desc().dummy_of ? desc().dummy_of[Number(lone.value || 0)] : null;
    const rows = $("#seat-rows");
    const kept = Object.fromEntries($$("select", rows).map((s) => [s.name, s.value]));
    const mine = $("#myseat");
    const keepMine = mine.value;
    rows.replaceChildren();
    mine.replaceChildren();
    for (let s = 0; s < n; s++) {
      if (s === dummySeat) {
        rows.append(el("div", { class: "seatrow" }, el("span", { text: label(s) }), el("span", { class: "muted", text: `dummy, played by ${label(Number(lone.value))}` })));
        continue;
      }
      const sel = el("select", { name: `seat${s}`, "aria-label": `${label(s)}: who plays` },
        el("option", { value: "open", text: "a person (open seat)" }),
        ...info.levels.map((l) => el("option", { value: l, text: `bot: ${l}` })));
      sel.value = kept[`seat${s}`] || (s === 0 ? "open" : "heuristic");
      rows.append(el("div", { class: "seatrow" }, el("label", { for: `seat-sel-${s}`, text: label(s) }), sel));
      sel.id = `seat-sel-${s}`;
      mine.append(el("option", { value: `${s}`, text: label(s) }));
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
    const d = desc();
    variant.replaceChildren(...d.variants.map((v) => el("option", { value: v, text: d.variant_info[v].title })));
    if (d.variants.includes(keep)) variant.value = keep;
    const keepLone = lone.value;
    lone.replaceChildren(...d.seat_labels.map((s, i) => el("option", { value: `${i}`, text: s })));
    lone.value = keepLone && Number(keepLone) < d.seats ? keepLone : "0";
    showOptions();
    seatsForm();
  }
  game.addEventListener("change", variantsForm);
  variant.addEventListener("change", () => { showOptions(); seatsForm(); });
  lone.addEventListener("change", seatsForm);
  $("#myseat").addEventListener("change", syncMine);
  variantsForm();
  form.elements.name.value = store.get("quintet:name") || "";

  // The rules: each option of the game (in /api/info's order) whose input is shown for
  // this game and variant, read as its input's type says.
  function options() {
    const out = {};
    for (const name of Object.keys(desc().options || {})) {
      const input = $$(`[name="${CSS.escape(name)}"]`, $("#options")).find((x) => !x.closest("[hidden]"));
      if (!input) continue;
      out[name] = input.type === "checkbox" ? input.checked : input.type === "number" ? Number(input.value) : input.value;
    }
    return out;
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("#create-error").textContent = "";
    const f = form.elements;
    const n = desc().seats;
    const mine = $("#myseat").value;
    const seats = [];
    for (let s = 0; s < n; s++) {
      const sel = form.elements[`seat${s}`];
      const v = sel ? sel.value : "open";
      seats.push(v === "open" || mine === `${s}` ? { kind: "open" } : { kind: "bot", level: v });
    }
    const body = { game: game.value, variant: variant.value, options: options(), seats, public: f.public.checked, title: f.title.value.trim() };
    if (vinfo().lone_seat) body.lone_seat = Number(lone.value);
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

  const gameOf = (x) => Game(x, games[x.game]);
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
        const G = gameOf(x);
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
        el("div", { class: "meta result" }, resultText(gameOf(x), x.result, x.players)),
        el("div", { class: "links" }, el("a", { href: x.replay }, "replay"), el("a", { href: x.record, download: "" }, "download record")),
      )) : [el("li", { class: "muted", text: "No finished game yet." })]));
    } catch (e) { /* next time */ }
  }
  refresh();
  setInterval(refresh, 4000);
}
