// The score pad page (/pad, /pad/{id}): start a pad, enter hands, see the sheets.
//
// The page computes no score: it draws what the server's pad model gives (`view`, with
// its `offers` deciding which buttons show) and sends entries; the server applies them
// with the model and answers a refusal with the model's reason, which is shown as it is.
// Readers of a shared link see changes by polling the pad's version every few seconds.
import { $, el } from "/static/dom.js";

const SUITS = { H: "♥", D: "♦", C: "♣", S: "♠" };
const RED = new Set(["H", "D"]);
const TRUMP_WORDS = { H: "♥ hearts", D: "♦ diamonds", C: "♣ clubs", S: "♠ spades", NT: "sans atout" };
const NIL_WORDS = { none: "no nil", closed: "closed nil", open: "open nil" };

const url = new URL(location.href);
const CODES = {};
for (const name of ["key", "token"]) {
  const v = url.searchParams.get(name);
  if (v) CODES[name] = v;
}
const padId = (location.pathname.match(/^\/pad\/([A-Za-z0-9_-]+)/) || [])[1] || null;

let info = null;       // /api/info
let data = null;       // the server's pad state
let draft = {};        // the entry being composed
let editing = null;    // the index of the entry being corrected, or null
let pollTimer = null;

// ------------------------------------------------------------------ helpers

function withCodes(path) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(CODES)) u.searchParams.set(k, v);
  return u.pathname + u.search;
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (method !== "GET") {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body ?? {});
  }
  const r = await fetch(withCodes(path), opts);
  let out = null;
  try { out = await r.json(); } catch { out = null; }
  if (!r.ok) {
    const e = (out && out.error) || { message: `the server answered ${r.status}` };
    const err = new Error(e.message);
    err.info = e;
    err.status = r.status;
    throw err;
  }
  return out;
}

function say(text) { $("#message").textContent = text || ""; }

function refusalText(e) {
  const i = e.info || {};
  const where = i.entry != null ? `entry ${i.entry + 1}: ` : "";
  return `Refused — ${where}${e.message}`;
}

function cardLabel(code) {
  // "5H" -> 5♥, "TH" -> 10♥, "JK" -> Quint Royal, "AH+4H" -> A♥+4♥
  if (code === "JK") return "Quint Royal";
  return code.split("+").map((c) => {
    const r = c.slice(0, -1), s = c.slice(-1);
    return (r === "T" ? "10" : r) + (SUITS[s] || s);
  }).join("+");
}

function cardNode(code) {
  const s = code.slice(-1);
  return el("span", { class: RED.has(s) ? "suit-red" : "" }, cardLabel(code));
}

function button(text, onclick, attrs = {}) {
  const b = el("button", { type: "button", ...attrs }, ...(Array.isArray(text) ? text : [text]));
  b.addEventListener("click", onclick);
  return b;
}

function toggle(text, pressed, onclick, attrs = {}) {
  return button(text, onclick, { "aria-pressed": pressed ? "true" : "false", ...attrs });
}

function gameInfo() { return info.games[data.pad.game]; }
function seat(s) { return data.seats[s]; }
function initials(seats) { return seats.map((s) => gameInfo().seat_labels[s][0]).join("-"); }

function sideName(side) {
  // Quinto's sides are its partnerships (a fact of /api/info), named N-S / E-W.
  const seats = gameInfo().partnerships[side];
  const names = data.pad.players ? ` (${seats.map(seat).join(" & ")})` : "";
  return initials(seats) + names;
}

function teamName(lone, team) {
  return "team " + gameInfo().teams_of[lone][team].map(seat).join(" & ");
}

// --------------------------------------------------------------- start page

async function home() {
  $("#home").hidden = false;
  $("#mine").hidden = false;
  const games = Object.keys(info.games);
  const form = { game: games[0], variant: info.games[games[0]].variants[0] };

  function draw() {
    const g = info.games[form.game];
    const vi = g.variant_info[form.variant];
    $("#np-game").replaceChildren(...games.map((name) =>
      toggle(info.games[name].title, name === form.game, () => {
        form.game = name;
        form.variant = info.games[name].variants[0];
        draw();
      }, { "data-game": name })));
    $("#np-variant").replaceChildren(...g.variants.map((v) =>
      toggle(g.variant_info[v].title, v === form.variant, () => { form.variant = v; draw(); },
        { "data-variant": v })));
    const opts = g.option_schema.filter((o) => !o.variants || o.variants.includes(form.variant));
    $("#np-options").replaceChildren(el("legend", {}, "Rules"), ...opts.map((o) => {
      if (o.kind === "bool") {
        return el("label", { class: "check" },
          el("input", { type: "checkbox", name: o.name, ...(o.default ? { checked: "" } : {}) }),
          " " + o.help);
      }
      if (o.kind === "choice") {
        return el("label", {}, o.help + " ",
          el("select", { name: o.name }, ...o.choices.map((c) =>
            el("option", { value: c, ...(c === o.default ? { selected: "" } : {}) }, c))));
      }
      return el("label", {}, o.help + " ",
        el("input", { type: "number", name: o.name, value: String(o.default), min: String(o.minimum ?? 0),
          inputmode: "numeric" }));
    }));
    $("#np-players").replaceChildren(...g.seat_labels.map((label, s) =>
      el("label", {}, label + " ", el("input", { name: `player${s}`, maxlength: "40", placeholder: label }))));
    $("#np-dealer").replaceChildren(...g.seat_labels.map((label, s) => el("option", { value: String(s) }, label)));
    $("#np-lone-label").hidden = !vi.lone_seat;
    $("#np-lone").replaceChildren(...g.seat_labels.map((label, s) => el("option", { value: String(s) }, label)));
  }

  $("#new-pad").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const g = info.games[form.game];
    const body = { game: form.game, variant: form.variant, options: {}, title: $("#np-title").value };
    for (const o of g.option_schema) {
      if (o.variants && !o.variants.includes(form.variant)) continue;
      const input = $(`#np-options [name=${o.name}]`);
      if (!input) continue;
      if (o.kind === "bool") body.options[o.name] = input.checked;
      else if (o.kind === "int") body.options[o.name] = Number(input.value);
      else body.options[o.name] = input.value;
    }
    const names = g.seat_labels.map((_, s) => $(`#np-players [name=player${s}]`).value.trim());
    if (names.some((n) => n)) body.players = names.map((n, s) => n || g.seat_labels[s]);
    body.first_dealer = Number($("#np-dealer").value);
    if (g.variant_info[form.variant].lone_seat) body.lone_seat = Number($("#np-lone").value);
    try {
      const out = await api("POST", "/api/pads", body);
      location.assign(`/pad/${out.id}`);
    } catch (e) {
      $("#np-error").textContent = e.message;
    }
  });
  draw();
  try {
    const mine = await api("GET", "/api/pads");
    $("#mine-list").replaceChildren(...(mine.pads.length ? mine.pads.map((p) =>
      el("li", {}, el("a", { href: p.url }, p.title || `${info.games[p.game].title}, ${p.variant}`),
        ` — ${p.entries} entries${p.players ? ", " + p.players.join(", ") : ""}`))
      : [el("li", { class: "muted" }, "none yet")]));
  } catch (e) {
    $("#mine-list").replaceChildren(el("li", { class: "error" }, e.message));
  }
}

// ------------------------------------------------------------------ the pad

function show(state) {
  if (data && state.id === data.id && state.version < data.version) return; // an older answer
  data = state;
  const v = data.view;
  document.title = `quintet — ${data.title || "score pad"}`;
  $("#pad-title").textContent = data.title || `${gameInfo().title} score pad (${data.pad.variant})`;
  $("#status").textContent = v.status;
  drawEntry();
  drawSheets();
  drawEntries();
  drawShare();
}

async function reload() {
  show(await api("GET", `/api/pads/${padId}`));
}

let busy = false; // a change on its way: polling waits, so the answer lands first

async function send(method, path, body) {
  say("");
  busy = true;
  try {
    const state = await api(method, path, { ...body, version: data.version });
    draft = {};
    editing = null;
    show(state);
    return true;
  } catch (e) {
    if (e.status === 409) await reload().catch(() => {});
    say(refusalText(e));
    return false;
  } finally {
    busy = false;
  }
}

function addEntry(entry) {
  if (editing != null) return send("PUT", `/api/pads/${padId}/entries/${editing}`, { entry });
  return send("POST", `/api/pads/${padId}/entries`, { entry });
}

function drawEntry() {
  const box = $("#entry-body");
  const panel = $("#entry");
  panel.hidden = !data.can_edit;
  if (!data.can_edit) return;
  const o = data.view.offers;
  const kids = [];
  if (editing != null) {
    kids.push(el("p", { class: "correcting" }, `Correcting entry ${editing + 1}: `,
      el("strong", {}, describe(data.pad.entries[editing])), " ",
      button("Cancel", () => { editing = null; draft = {}; drawEntry(); }, { id: "cancel-edit" })));
  }
  if (o.over && editing == null) {
    kids.push(el("p", { class: "status" }, o.over));
  } else {
    kids.push(...PANELS[data.view.form](editing == null ? o : data.blank_offers));
  }
  if (data.pad.entries.length && editing == null) {
    kids.push(button("Undo the last entry", () => send("POST", `/api/pads/${padId}/undo`, {}), { id: "undo" }));
  }
  box.replaceChildren(...kids);
}

// Quinto: the doubling, quints as they fall, the cachette, the tricks.
function quintsPanel(o) {
  const out = [];
  const kind = editing != null ? data.pad.entries[editing].type : null;
  const want = (t) => kind == null || kind === t;
  if (editing == null) {
    out.push(el("p", { class: "muted" }, `Hand ${o.hand + 1}: ${seat(o.dealer)} deals.`));
  }
  if (want("doubling") && o.doubling.length) {
    out.push(el("h3", {}, "Doubling"), el("div", { class: "choice-row", id: "doubling" },
      ...o.doubling.map((d) => button(doublingWords(d), () =>
        addEntry({ type: "doubling", level: d.level, by: d.by }),
      { "data-level": d.level, "data-by": String(d.by ?? "") }))));
  }
  const sel = draft.quints || (draft.quints = editing != null ? [...(data.pad.entries[editing].quints || [])] : []);
  const quintGrid = (codes) => el("div", { class: "grid quints", id: "quints" }, ...codes.map((q) =>
    toggle(cardNode(q), sel.includes(q), () => {
      const i = sel.indexOf(q);
      if (i >= 0) sel.splice(i, 1); else sel.push(q);
      drawEntry();
    }, { "data-quint": q })));
  if (want("quint") || want("cachette")) {
    const codes = [...new Set([...o.quints, ...sel])];
    if (codes.length) {
      out.push(el("h3", {}, "Quints of this trick (tap, then who won it)"), quintGrid(codes));
    }
  }
  if (want("quint") && (o.quints.length || sel.length)) {
    out.push(el("div", { class: "choice-row", id: "quint-sides" }, ...[0, 1].map((s) =>
      button(`${sideName(s)} won the trick`, () => addEntry({ type: "quint", quints: [...sel], side: s }),
        { "data-side": String(s), ...(sel.length ? {} : { disabled: "" }) }))));
  }
  if (want("cachette") && o.cachette) {
    out.push(el("h3", {}, "The 12th trick and the cachette (with the quints tapped above)"),
      el("div", { class: "choice-row", id: "cachette" }, ...[0, 1].map((s) =>
        button(`${sideName(s)} took the cachette`, () =>
          addEntry({ type: "cachette", side: s, quints: [...sel] }), { "data-side": String(s) }))));
  }
  if (want("tricks") && (o.tricks || kind === "tricks")) {
    const total = gameInfo().tricks + 1;
    out.push(el("h3", {}, `Tricks won (the cachette counts as one): ${sideName(0)} – ${sideName(1)}`),
      el("div", { class: "grid", id: "tricks" }, ...Array.from({ length: total + 1 }, (_, n) =>
        button(`${n}–${total - n}`, () => addEntry({ type: "tricks", tricks: [n, total - n] }),
          { "data-ns": String(n) }))));
  }
  if (want("broken") && o.pairs.length) {
    out.push(el("details", { id: "broken" }, el("summary", {}, "A pair broke (one card fell without the other)"),
      el("div", { class: "grid quints" }, ...o.pairs.map((p) =>
        button(cardNode(p), () => addEntry({ type: "broken", pair: p }), { "data-pair": p })))));
  }
  return out;
}

function doublingWords(d) {
  if (d.level === "none") return "No double";
  if (d.level === "doubled") return `${sideName(d.by)} doubled`;
  return `${sideName(d.by)} doubled, ${sideName(1 - d.by)} redoubled`;
}

// Quintus: the contract (or the quintus), trump, nil, the cards or the card points, premiums.
function pointsPanel(o) {
  const d = draft;
  const entry = editing != null ? data.pad.entries[editing] : null;
  if (!d.ready) {
    Object.assign(d, { ready: true, trump: null, nil: "none", mode: "points", points: [0, 0, 0],
      nil_failed: false, bid: o.bids ? o.bids[0] + 10 : null, bidder: null, pile: 0, rest: 2,
      cards: {}, court: [0, 0, 0], straight: [0, 0, 0] });
    if (entry && entry.type === "hand") {
      Object.assign(d, { trump: entry.trump, nil: entry.nil, bid: entry.bid ?? d.bid, bidder: entry.bidder ?? null,
        nil_failed: !!entry.nil_failed });
      if (entry.points) { d.mode = "points"; d.points = [...entry.points]; }
      if (entry.cards) {
        d.mode = "cards";
        entry.cards.forEach((pile, s) => (pile || []).forEach((c) => { d.cards[c] = s; }));
      }
      if (entry.premiums) { d.court = [...entry.premiums.court]; d.straight = [...entry.premiums.straight]; }
    }
  }
  const bidding = !!o.bidding;
  const lone = bidding ? d.bidder : o.quintus ?? (entry ? data.view.hands.find((h) => h.entry === editing)?.quintus : null);
  const names = lone == null ? ["the quintus", "the first team", "the second team"]
    : [`quintus ${seat(lone)}`, teamName(lone, 0), teamName(lone, 1)];
  const out = [];
  const redraw = () => drawEntry();
  if (editing == null) {
    out.push(el("p", { class: "muted" }, `Hand ${o.hand + 1}: ${seat(o.dealer)} deals` +
      (o.quintus != null ? `; ${seat(o.quintus)} is quintus.` : ".")));
  }
  if (bidding) {
    out.push(el("h3", {}, "Contract"),
      el("div", { class: "step", id: "bid" }, el("span", { class: "what" }, "Bid"),
        button("−", () => { d.bid = Math.max(o.bids[0], d.bid - 2); redraw(); }, { "aria-label": "bid 2 less", id: "bid-down" }),
        el("output", { id: "bid-value" }, String(d.bid)),
        button("+", () => { d.bid = Math.min(o.bids[1], d.bid + 2); redraw(); }, { "aria-label": "bid 2 more", id: "bid-up" }),
        el("select", { id: "bid-select", "aria-label": "bid", onchange: (ev) => { d.bid = Number(ev.target.value); redraw(); } },
          ...Array.from({ length: (o.bids[1] - o.bids[0]) / 2 + 1 }, (_, k) => o.bids[0] + 2 * k).map((b) =>
            el("option", { value: String(b), ...(b === d.bid ? { selected: "" } : {}) }, String(b))))),
      el("div", { class: "choice-row", id: "bidder", role: "group", "aria-label": "bidder" },
        ...data.seats.map((name, s) => toggle(name, d.bidder === s, () => { d.bidder = s; redraw(); }, { "data-seat": String(s) }))),
      button("Void hand: all five passed", () => addEntry({ type: "void" }), { id: "void" }));
  }
  out.push(el("h3", {}, "Trump"), el("div", { class: "choice-row", id: "trump" },
    ...o.trumps.map((t) => toggle(TRUMP_WORDS[t] || t, d.trump === t, () => { d.trump = t; redraw(); }, { "data-trump": t }))));
  out.push(el("h3", {}, "Nil"), el("div", { class: "choice-row", id: "nil" },
    ...o.nils.map((n) => toggle(NIL_WORDS[n] || n, d.nil === n, () => { d.nil = n; redraw(); }, { "data-nil": n }))));
  out.push(el("h3", {}, "Count"), el("div", { class: "choice-row", id: "mode" },
    toggle("Card points", d.mode === "points", () => { d.mode = "points"; redraw(); }, { "data-mode": "points" }),
    toggle("Cards won (tap them)", d.mode === "cards", () => { d.mode = "cards"; redraw(); }, { "data-mode": "cards" })));
  if (d.mode === "points") {
    out.push(el("p", { class: "muted small" }, "Card points before premiums and nil: J Q K +10 for the quintus, +5 for a team; 5 to 10 −1; aces 0."));
    out.push(...names.map((name, s) => el("div", { class: "step", "data-points": String(s) },
      el("span", { class: "what" }, name),
      button("−", () => { d.points[s] -= 1; redraw(); }, { "aria-label": `${name} one less` }),
      el("input", { type: "number", inputmode: "numeric", value: String(d.points[s]), "aria-label": `${name} card points`,
        onchange: (ev) => { d.points[s] = Number(ev.target.value); } }),
      button("+", () => { d.points[s] += 1; redraw(); }, { "aria-label": `${name} one more` }))));
    if (d.nil !== "none") {
      out.push(el("div", { class: "choice-row", id: "nil-result" },
        toggle("Nil made", !d.nil_failed, () => { d.nil_failed = false; redraw(); }, { "data-failed": "false" }),
        toggle("Nil failed", d.nil_failed, () => { d.nil_failed = true; redraw(); }, { "data-failed": "true" })));
    }
  } else {
    const counts = [0, 0, 0];
    for (const s of Object.values(d.cards)) counts[s] += 1;
    out.push(el("p", { class: "muted small" }, "Pick a side, tap the cards it won; the side left as “the rest” takes every card not tapped."),
      el("div", { class: "choice-row", id: "pile" }, ...names.map((name, s) =>
        toggle(`${name} (${counts[s]})`, d.pile === s, () => { d.pile = s; redraw(); }, { "data-pile": String(s), class: `pile-${s}` }))),
      el("div", { class: "step" }, el("span", { class: "what" }, "The rest go to"),
        ...names.map((name, s) => toggle(name, d.rest === s, () => { d.rest = s; redraw(); }, { "data-rest": String(s) }))),
      el("div", { class: "grid cards", id: "cards" }, ...data.pack.map((c) =>
        toggle(cardNode(c), d.cards[c] != null, () => {
          if (d.cards[c] === d.pile) delete d.cards[c]; else d.cards[c] = d.pile;
          redraw();
        }, { "data-card": c, class: d.cards[c] != null ? `pile-${d.cards[c]}` : "" }))));
  }
  out.push(el("details", { id: "premiums", ...(d.court.some(Boolean) || d.straight.some(Boolean) ? { open: "" } : {}) },
    el("summary", {}, "Premiums melded"),
    ...["court", "straight"].flatMap((kind) => names.map((name, s) =>
      el("div", { class: "step", "data-premium": `${kind}-${s}` },
        el("span", { class: "what" }, `${kind === "court" ? "Courts (J Q K)" : "Straights (5 to 9)"}: ${name}`),
        button("−", () => { d[kind][s] = Math.max(0, d[kind][s] - 1); redraw(); }, { "aria-label": `${kind} ${name} one less` }),
        el("output", {}, String(d[kind][s])),
        button("+", () => { d[kind][s] += 1; redraw(); }, { "aria-label": `${kind} ${name} one more` }))))));
  out.push(button(editing != null ? `Correct entry ${editing + 1}` : "Enter the hand", () => addEntry(pointsEntry(d, bidding)),
    { class: "primary big", id: "enter-hand" }));
  return out;
}

function pointsEntry(d, bidding) {
  const e = { type: "hand", trump: d.trump, nil: d.nil };
  if (bidding) { e.bid = d.bid; e.bidder = d.bidder; }
  if (d.mode === "points") {
    e.points = [...d.points];
    if (d.nil !== "none") e.nil_failed = d.nil_failed;
  } else {
    e.cards = [0, 1, 2].map((s) => s === d.rest ? null : Object.keys(d.cards).filter((c) => d.cards[c] === s));
  }
  if (d.court.some(Boolean) || d.straight.some(Boolean)) e.premiums = { court: [...d.court], straight: [...d.straight] };
  return e;
}

const PANELS = { quints: quintsPanel, points: pointsPanel }; // by the view's form

// ------------------------------------------------------------------ entries

function describe(e) {
  if (!e) return "";
  switch (e.type) {
    case "doubling": return doublingWords(e);
    case "quint": return `${sideName(e.side)}: ${e.quints.map(cardLabel).join(", ")}`;
    case "broken": return `pair broken: ${cardLabel(e.pair)}`;
    case "cachette": return `cachette to ${sideName(e.side)}${e.quints.length ? " with " + e.quints.map(cardLabel).join(", ") : ""}`;
    case "tricks": return `tricks ${e.tricks.join("–")}`;
    case "void": return "void hand (all passed)";
    case "hand": {
      const parts = [TRUMP_WORDS[e.trump] || e.trump];
      if (e.bid != null) parts.push(`bid ${e.bid} by ${seat(e.bidder)}`);
      if (e.nil !== "none") parts.push(`${NIL_WORDS[e.nil]}${e.nil_failed != null ? (e.nil_failed ? " failed" : " made") : ""}`);
      if (e.points) parts.push(`card points ${e.points.map((x) => x ?? "?").join(" / ")}`);
      if (e.cards) parts.push(`cards ${e.cards.map((p) => p ? p.length : "rest").join(" / ")}`);
      if (e.premiums) {
        parts.push(`premiums: courts ${e.premiums.court.join("/")}, straights ${e.premiums.straight.join("/")}`);
      }
      return parts.join(", ");
    }
    default: return JSON.stringify(e);
  }
}

function handsOf(v) { return v.games ? v.games.flatMap((g) => g.hands) : v.hands; }

function drawEntries() {
  const rows = [];
  const entries = data.pad.entries;
  const heads = new Map();
  for (const h of handsOf(data.view)) {
    const first = h.entries ? h.entries[0] : h.entry;
    if (first != null) heads.set(first, `Hand ${h.number + 1}, ${seat(h.dealer)} deals`);
  }
  entries.forEach((e, i) => {
    if (heads.has(i)) rows.push(el("li", { class: "hand-head" }, heads.get(i)));
    const li = el("li", { "data-entry": String(i) }, el("span", { class: "n" }, `${i + 1}.`),
      el("span", { class: "what" }, describe(e)));
    if (data.can_edit) {
      li.append(button("Correct", () => { editing = i; draft = {}; say(""); drawEntry(); $("#entry").scrollIntoView(); },
        { "aria-label": `correct entry ${i + 1}`, class: "correct" }),
      button("Delete", () => send("DELETE", `/api/pads/${padId}/entries/${i}`, {}),
        { "aria-label": `delete entry ${i + 1}`, class: "delete" }));
    }
    rows.push(li);
  });
  if (!entries.length) rows.push(el("li", { class: "muted" }, "nothing entered yet"));
  $("#entries").replaceChildren(...rows);
}

// ------------------------------------------------------------------- sheets

function cell(text, attrs = {}) { return el("td", attrs, ...(Array.isArray(text) ? text : [String(text ?? "")])); }
function num(x, attrs = {}) { return cell(x ?? "", { class: "num", ...attrs }); }

function quintsSheet(v) {
  const out = [];
  for (const g of v.games) {
    const rows = g.hands.map((h) => {
      const quints = (s) => h.quints.filter((x) => x.side === s).map((x) => el("div", {}, `${x.name} ${x.value}`));
      const side = (s) => initials(gameInfo().partnerships[s]);
      const about = [`${seat(h.dealer)} deals`];
      if (h.multiplier > 1) about.push(`×${h.multiplier} (${side(h.doubled_by)} doubled)`);
      if (h.cachette) {
        about.push(`cachette ${side(h.cachette.side)}` +
          h.cachette.quints.map((x) => ` ${x.name} ${x.value}`).join(","));
      }
      if (h.tricks) about.push(`tricks ${h.tricks.join("–")} (${h.trick_points.join("–")})`);
      if (h.ended_by) about.push("game won by a quint");
      return el("tr", { "data-hand": String(h.number) }, num(h.number + 1),
        cell(about.map((t) => el("div", {}, t))),
        ...[0, 1].map((s) => num([...quints(s), el("strong", {}, String(h.score[s]))])));
    });
    const result = g.winner != null ? `${sideName(g.winner)} win` : "in play";
    rows.push(el("tr", { class: "result", "data-game-result": String(g.index) }, cell(`Game ${g.index + 1}: ${result}`, { colspan: "2" }),
      num(g.score[0], { "data-score": "0" }), num(g.score[1], { "data-score": "1" })));
    out.push(el("div", { class: "sheet-wrap" }, el("table", { class: "pad-sheet", "data-game": String(g.index) },
      el("caption", {}, `Game ${g.index + 1}${g.lone_seat != null ? `, ${seat(g.lone_seat)} alone` : ""}` +
        (g.start.some(Boolean) ? ` (starting ${g.start.join("–")})` : "") + `, to ${v.target}`),
      el("thead", {}, el("tr", {}, ...["#", "Hand", initials(gameInfo().partnerships[0]),
        initials(gameInfo().partnerships[1])].map((t) => el("th", {}, t)))),
      el("tbody", {}, ...rows))));
  }
  if (v.rubber) {
    const r = v.rubber;
    out.push(el("div", { class: "sheet-wrap" }, el("table", { class: "pad-sheet", id: "rubber" },
      el("caption", {}, "Rubber"),
      el("tbody", {},
        el("tr", {}, cell("Games won"), num(r.games_won[0], { "data-won": "0" }), num(r.games_won[1], { "data-won": "1" })),
        el("tr", {}, cell("Rubber bonus"), cell(String(r.bonus), { colspan: "2" })),
        el("tr", { class: "result" }, cell(r.winner != null ? `${sideName(r.winner)} win the rubber` : "Rubber in play"),
          num(r.score ? r.score[0] : "", { "data-rubber": "0" }), num(r.score ? r.score[1] : "", { "data-rubber": "1" }))))));
  }
  return out;
}

function quintsBoard(v) {
  // The cribbage board of the current game: a track of 40 holes a side, each hole
  // target/40 points, the front peg at the score and the back peg at the hand before.
  const g = v.games[v.games.length - 1];
  const holes = 40, step = 15, x0 = 60, w = x0 + holes * step + 20;
  const per = v.target / holes;
  const svg = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} 90" role="img" aria-label="cribbage board">`,
    `<rect x="2" y="2" width="${w - 4}" height="86" rx="10" fill="#c9a26b" stroke="#6b4a2b"/>`];
  const hands = g ? g.hands : [];
  for (let s = 0; s < 2; s += 1) {
    const y = 30 + s * 32;
    const score = g ? g.score[s] : 0;
    const before = hands.length > 1 ? hands[hands.length - 2].score[s] : (g ? g.start[s] : 0);
    const front = Math.min(holes, Math.floor(score / per));
    const back = Math.min(holes, Math.floor(before / per));
    svg.push(`<text x="8" y="${y + 5}" font-size="14" font-family="sans-serif">${initials(gameInfo().partnerships[s])}</text>`);
    for (let i = 1; i <= holes; i += 1) {
      const cx = x0 + (i - 1) * step + (Math.floor((i - 1) / 5) * 0);
      const peg = i === front ? "#b3261e" : i === back && back !== front ? "#1f4d38" : null;
      svg.push(`<circle cx="${cx}" cy="${y}" r="${peg ? 6 : 3}" fill="${peg || "#4a3520"}"${peg ? ` data-peg="${s}-${i === front ? "front" : "back"}"` : ""}/>`);
    }
    svg.push(`<text x="${w - 18}" y="${y + 5}" font-size="12" text-anchor="end" font-family="sans-serif" data-board-score="${s}"></text>`);
  }
  svg.push("</svg>");
  const box = el("div", { class: "board", id: "cribbage" });
  box.innerHTML = svg.join("");
  const scores = g ? g.score : [0, 0];
  box.append(el("p", { class: "small muted" },
    `Game ${g ? g.index + 1 : 1} to ${v.target}: ${sideName(0)} ${scores[0]}, ${sideName(1)} ${scores[1]} (one hole = ${per.toFixed(2).replace(/\.00$/, "")} points)`));
  return [box];
}

function pointsSheet(v) {
  const seats = data.seats;
  const rows = [];
  for (const h of v.hands) {
    const contract = h.void ? "void" : [h.bid != null ? `${h.bid}` : "", TRUMP_WORDS[h.trump] || h.trump,
      h.nil && h.nil !== "none" ? `${NIL_WORDS[h.nil]}${h.nil_failed ? " failed" : ""}` : ""].filter(Boolean).join(", ");
    const about = [el("strong", {}, h.quintus != null ? seat(h.quintus) : "—"), ` ${contract}`,
      el("br"), el("span", { class: "small muted" }, `${seat(h.dealer)} deals` +
        (h.points ? `; points ${h.points.join(" / ")}` : "") + (h.made == null ? "" : h.made ? "; made" : "; lost"))];
    rows.push(el("tr", { "data-hand": String(h.number) }, num(h.number + 1), cell(about),
      ...seats.map((_, s) => num([`${h.scores[s] > 0 ? "+" : ""}${h.scores[s]}`, el("br"), el("strong", {}, String(h.totals[s]))]))));
    if (h.settlement) {
      rows.push(el("tr", { class: "settlement", "data-settlement": String(h.number) },
        cell([el("ul", { class: "formula" }, ...h.settlement.formula.map((line) => el("li", {}, line)))], { colspan: String(2 + seats.length) })));
    }
  }
  rows.push(el("tr", { class: "result", id: "totals" }, cell(`Totals after ${v.counted} of ${v.session} hands`, { colspan: "2" }),
    ...v.totals.map((t, s) => num(t, { "data-total": String(s) }))));
  return [el("div", { class: "sheet-wrap" }, el("table", { class: "pad-sheet", id: "ledger" },
    el("caption", {}, "Ledger (each hand's score, the running total in bold)"),
    el("thead", {}, el("tr", {}, ...["#", "Quintus, contract", ...seats].map((t) => el("th", {}, t)))),
    el("tbody", {}, ...rows)))];
}

const SHEETS = { quints: quintsSheet, points: pointsSheet };
const BOARDS = { quints: quintsBoard, points: () => [] };

function drawSheets() {
  $("#board").replaceChildren(...BOARDS[data.view.form](data.view));
  $("#sheet").replaceChildren(...SHEETS[data.view.form](data.view));
}

function drawShare() {
  const links = [];
  const abs = (p) => location.origin + p;
  if (data.links) {
    links.push(el("p", {}, "Read-only link for the table: ", el("a", { href: data.links.view, id: "view-link" }, abs(data.links.view)), " ",
      button("Copy", () => navigator.clipboard?.writeText(abs(data.links.view)), { class: "copy" })));
    if (data.links.edit) {
      links.push(el("p", {}, "Edit link (whoever holds it can change the pad): ",
        el("a", { href: data.links.edit, id: "edit-link" }, abs(data.links.edit))));
    }
  } else {
    links.push(el("p", { class: "muted" }, "You are reading this pad: it changes as the scorer enters hands."));
  }
  $("#links").replaceChildren(...links);
  $("#exports").replaceChildren(
    ...["json", "csv", "text"].map((f) => el("a", { class: "button", href: withCodes(`/api/pads/${padId}/export?format=${f}`),
      download: "", "data-export": f }, `Export ${f.toUpperCase()}`)),
    button("Print", () => window.print(), { id: "print" }));
}

async function poll() {
  if (busy) return;
  try {
    const v = await api("GET", `/api/pads/${padId}/version`);
    $("#live").textContent = `Live: checked ${new Date().toLocaleTimeString()}`;
    if (v.version !== data.version && !busy) {
      const keep = editing;
      await reload();
      if (keep != null && keep < data.pad.entries.length) editing = keep;
    }
  } catch (e) {
    $("#live").textContent = `Live updates paused: ${e.message}`;
  }
}

async function main() {
  info = await (await fetch("/api/info")).json();
  if (!padId) {
    await home();
    return;
  }
  $("#pad").hidden = false;
  try {
    await reload();
  } catch (e) {
    $("#pad").hidden = true;
    $("#home").hidden = false;
    $("#home").replaceChildren(el("h2", {}, "No such pad"), el("p", { class: "error" }, e.message),
      el("a", { href: "/pad" }, "Start a pad"));
    return;
  }
  pollTimer = setInterval(poll, Math.max(1, data.poll_seconds) * 1000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
}

main();
