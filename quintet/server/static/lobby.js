// quintet: the lobby. The form of a new table (its games, variants, seats and labels
// from /api/info; each game's rule inputs are marked in index.html with data-game and
// data-variant), the open tables and the finished games.

import { $, $$, el, store, tokenKey } from "./dom.js";
import { Game, serverInfo } from "./game.js";
import { resultText } from "./sheet.js";
import { Account } from "./account.js";

export async function lobbyPage() {
  let info;
  try { info = await serverInfo(); } catch (e) {
    $("#create-error").textContent = "The server did not answer: reload the page to try again.";
    return;
  }
  const games = info.games;
  const form = $("#create");
  // Signed in: the Friends panel, and the "Rated" box on the form.
  const account = new Account({ onChange: (acc) => {
    $("#rated-row").hidden = !acc;
    if (!acc) $("#rated").checked = false;
    if (acc && !form.elements.name.value) form.elements.name.value = acc.name;
  } });
  account.start();
  rulesLink();
  socialFields(form, info);
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
    const auto = new Set($$("select", rows).filter((s) => s.dataset.auto).map((s) => s.name));
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
        el("option", { value: "you", text: "you", hidden: true }),
        el("option", { value: "open", text: "a person (open seat: invite them)" }),
        ...info.levels.map((l) => el("option", { value: l, text: `bot: ${l}` })));
      // Every seat but yours is a bot unless you choose a person for it: no seat waits
      // for a player nobody was invited to.
      const was = kept[`seat${s}`];
      sel.value = was && was !== "you" ? was : "heuristic";
      if (auto.has(sel.name)) sel.dataset.auto = "1";
      rows.append(el("div", { class: "seatrow" }, el("label", { for: `seat-sel-${s}`, text: label(s) }), sel));
      sel.id = `seat-sel-${s}`;
      mine.append(el("option", { value: `${s}`, text: label(s) }));
    }
    mine.append(el("option", { value: "watch", text: "none: create and watch" }));
    mine.value = [...mine.options].some((o) => o.value === keepMine) ? keepMine : "0";
    syncMine();
  }
  function syncMine() {
    let open = 0;
    const watch = $("#myseat").value === "watch";
    for (const sel of $$("#seat-rows select")) {
      const s = sel.name.slice(4);
      const me = $("#myseat").value === s;
      if (me && sel.value !== "you") { sel.dataset.before = sel.dataset.auto ? "heuristic" : sel.value; sel.value = "you"; delete sel.dataset.auto; }
      // The seat you leave: a bot again, or (if you only watch) open for you to take at
      // the table. An open seat the form chose (not you) goes back to a bot when you sit.
      if (!me && sel.value === "you") {
        if (watch) { sel.value = "open"; sel.dataset.auto = "1"; }
        else sel.value = sel.dataset.before && sel.dataset.before !== "open" ? sel.dataset.before : "heuristic";
      } else if (!me && !watch && sel.dataset.auto) { sel.value = "heuristic"; delete sel.dataset.auto; }
      sel.disabled = me;
      if (me) sel.title = "you sit here";
      else sel.removeAttribute("title");
      if (!me && sel.value === "open") open++;
    }
    const note = $("#open-note");
    if (note) note.textContent = open ? `${open} seat${open > 1 ? "s" : ""} for people: the table starts when they sit down (the table's Invite button gives the link).` : "";
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
  // A seat you set yourself is yours to keep: the form no longer changes it.
  $("#seat-rows").addEventListener("change", (ev) => { if (ev.target.dataset) delete ev.target.dataset.auto; syncMine(); });
  if (!$("#open-note")) $("#seat-rows").after(el("p", { id: "open-note", class: "muted small", "aria-live": "polite" }));
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
      if (v === "you" && mine !== `${s}`) { seats.push({ kind: "bot", level: "heuristic" }); continue; }
      seats.push(v === "open" || mine === `${s}` ? { kind: "open" } : { kind: "bot", level: v });
    }
    const body = { game: game.value, variant: variant.value, options: options(), seats, public: f.public.checked, title: f.title.value.trim(), ...socialBody(desc(), info) };
    if (vinfo().lone_seat) body.lone_seat = Number(lone.value);
    if (!$("#rated-row").hidden && $("#rated").checked) body.rated = true;
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
          x.rated ? el("span", { class: "tag rated", text: "rated", title: "people with accounts only; ratings change at the end" }) : null,
          el("div", { class: "meta" }, x.seats.map((s) => `${G.label(s.seat)}: ${s.kind === "open" ? "open" : s.name}`).join(" · "),
            x.hands_dealt ? ` · hand ${x.hands_dealt}` : "", x.spectators ? ` · ${x.spectators} watching` : ""),
          firstLine(x, G, games[x.game]),
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

// social: a link to the rules in the header.
function rulesLink() {
  const header = $("header.top");
  if (header && !$("#rules-link") && !$("header.top a[href='/rules']")) header.append(el("span", { class: "spacer" }), el("a", { id: "rules-link", class: "button", href: "/rules" }, "Rules"));
}

// social: who deals first, who is quintus first (or "by auction", or "after the draw"), the series.
function firstLine(x, G, desc) {
  const f = x.first;
  if (!f) return null;
  const who = (s) => { const row = x.seats[s]; return row && row.kind === "person" && row.name ? `${row.name} (${G.label(s)})` : G.label(s); };
  const bits = [];
  if (!f.decided) bits.push("seats and first deal by the draw");
  else {
    bits.push(`${who(f.dealer)} deals first`);
    if (f.quintus !== null) bits.push(`${who(f.quintus)} is quintus first`);
    else if (desc && desc.teams_of) bits.push("the auction decides the quintus");
  }
  if (x.series) bits.push(`game ${x.series.number} of a series`);
  if (x.turn_seconds) bits.push(`${x.turn_seconds} s a turn`);
  return el("div", { class: "meta first", text: bits.join(" · ") });
}

// social: the turn clock, the draw for partners and the signals' meanings on the form.
function socialFields(form, info) {
  if ($("#social-fields")) return;
  const [lo, hi] = info.turn_seconds || [10, 600];
  const clock = el("label", {}, `Turn clock in seconds (${lo}–${hi}; empty: none)`,
    el("input", { name: "turn_seconds", id: "turn-seconds", type: "number", min: `${lo}`, max: `${hi}`, placeholder: "none" }));
  const draw = el("label", { class: "check", id: "draw-row" }, el("input", { type: "checkbox", name: "draw", id: "draw" }), "Draw for partners and the first deal");
  const sigs = el("fieldset", { id: "signal-meanings", hidden: true }, el("legend", { text: "What the signals mean (agreed before play)" }));
  const box = el("div", { id: "social-fields" }, clock, draw, sigs);
  const opts = $("#options");
  (opts || form).after(box);
  const sync = () => {
    const d = info.games[$("#game").value];
    const partners = !!(d && d.partnerships);
    $("#draw-row").hidden = !partners;
    const sig = info.signals && info.signals[$("#game").value];
    sigs.hidden = !sig;
    if (sig && !sigs.dataset.game) {
      sigs.dataset.game = $("#game").value;
      for (const [k, v] of Object.entries(sig)) sigs.append(el("label", {}, k, el("input", { name: `signal_${k}`, maxlength: "80", placeholder: v })));
    }
  };
  $("#game").addEventListener("change", sync);
  sync();
}

function socialBody(d, info) {
  const out = {};
  const secs = $("#turn-seconds").value.trim();
  if (secs) out.turn_seconds = Number(secs);
  if (d.partnerships && $("#draw").checked) out.draw = true;
  const sig = info.signals && info.signals[d.name];
  if (sig) {
    const meanings = {};
    for (const k of Object.keys(sig)) {
      const v = (document.querySelector(`[name="signal_${k}"]`) || {}).value;
      if (v && v.trim()) meanings[k] = v.trim();
    }
    if (Object.keys(meanings).length) out.signals = meanings;
  }
  return out;
}
