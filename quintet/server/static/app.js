// quintet: a first working browser page (lobby, table, replay). No build step.
// The protocol is described in docs/server.md; this page is deliberately plain.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "text") e.textContent = v;
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};
const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const QUINTO_SEATS = ["North", "East", "South", "West"];
const tokenKey = (tid) => `quintet:token:${tid}`;

function cardLabel(code) {
  if (code === "JK") return "JK";
  const rank = code[0] === "T" ? "10" : code[0];
  return rank + SUITS[code[1]];
}
function cardNode(code, tag = "span", extra = {}) {
  const cls = "card" + (code === "JK" ? " joker" : "DH".includes(code[1]) ? " red" : "");
  return el(tag, { ...extra, class: `${extra.class || ""} ${cls}`.trim() }, cardLabel(code));
}
function actionText(a) {
  switch (a.type) {
    case "play": return cardLabel(a.card);
    case "bid": return `bid ${a.amount}`;
    case "trump": return `trump ${a.suit === "NT" ? "NT" : SUITS[a.suit]}`;
    case "nil": return `nil ${a.kind}`;
    case "meld": return `meld ${a.combo}`;
    case "signal": return `signal ${a.signal}`;
    default: return a.type;
  }
}

// --------------------------------------------------------------------- lobby

async function lobby() {
  const game = $("#game"), variant = $("#variant");
  const variants = { quinto: ["partnership", "dummy"], quintus: ["base", "bidding"] };
  function seatsForm() {
    const g = game.value, n = g === "quinto" ? 4 : 5;
    const dummy = g === "quinto" && variant.value === "dummy";
    const lone = Number($("#lone").value || 0);
    $("#target-row").hidden = g !== "quinto";
    $("#hands-row").hidden = g !== "quintus";
    $("#lone-row").hidden = !dummy;
    const fs = $("#seats");
    fs.replaceChildren(el("legend", { text: "Seats" }));
    const mine = $("#myseat");
    const keep = mine.value;
    mine.replaceChildren();
    for (let s = 0; s < n; s++) {
      const name = g === "quinto" ? QUINTO_SEATS[s] : `seat ${s}`;
      if (dummy && s === (lone + 2) % 4) {
        fs.append(el("label", { text: `${name}: dummy (played by the lone player)` }));
        continue;
      }
      const sel = el("select", { name: `seat${s}` },
        el("option", { value: "open", text: "a person" }),
        ...["random", "heuristic", "pimc", "ismcts"].map((l) =>
          el("option", { value: l, text: `bot: ${l}`, selected: s > 0 && l === "heuristic" })));
      fs.append(el("label", {}, `${name}: `, sel));
      mine.append(el("option", { value: s, text: name }));
    }
    if ([...mine.options].some((o) => o.value === keep)) mine.value = keep;
  }
  function variantsForm() {
    variant.replaceChildren(...variants[game.value].map((v) => el("option", { value: v, text: v })));
    $("#lone").replaceChildren(...QUINTO_SEATS.map((s, i) => el("option", { value: i, text: s })));
    seatsForm();
  }
  game.addEventListener("change", variantsForm);
  variant.addEventListener("change", seatsForm);
  $("#lone").addEventListener("change", seatsForm);
  variantsForm();
  $("#create input[name=name]").value = localStorage.getItem("quintet:name") || "";

  $("#create").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const g = f.get("game"), n = g === "quinto" ? 4 : 5;
    const seats = [];
    for (let s = 0; s < n; s++) {
      const v = f.get(`seat${s}`);
      seats.push(!v || v === "open" ? { kind: "open" } : { kind: "bot", level: v });
    }
    const seat = Number(f.get("seat"));
    seats[seat] = { kind: "open" };
    const options = g === "quinto" ? { target: Number(f.get("target")) } : { hands: Number(f.get("hands")) };
    const body = {
      game: g, variant: f.get("variant"), options, seats, public: f.get("public") === "on",
      title: f.get("title") || "", join: { seat, name: f.get("name") },
    };
    if (g === "quinto" && f.get("variant") === "dummy") body.lone_seat = Number(f.get("lone_seat"));
    localStorage.setItem("quintet:name", f.get("name"));
    const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const out = await r.json();
    if (!r.ok) { $("#create-error").textContent = out.error.message; return; }
    localStorage.setItem(tokenKey(out.id), out.token);
    localStorage.setItem(`quintet:invites:${out.id}`, JSON.stringify(out.seats));
    location.href = out.url;
  });

  async function refresh() {
    try {
      const t = await (await fetch("/api/tables")).json();
      $("#tables").replaceChildren(...(t.tables.length ? t.tables.map((x) => el("li", {},
        el("a", { href: `/table/${x.id}` }, `${x.title || x.game + " " + x.variant}`),
        ` — ${x.status}, ${x.seats.map((s) => s.name || (s.kind === "open" ? "(open)" : s.kind)).join(", ")}`,
        ...x.open_seats.map((s) => el("a", { href: `/table/${x.id}?seat=${s}`, class: "join" }, ` [sit at ${x.seats[s].label}]`)),
      )) : [el("li", { text: "none yet" })]));
      const g = await (await fetch("/api/games")).json();
      $("#games").replaceChildren(...(g.games.length ? g.games.map((x) => el("li", {},
        el("a", { href: x.replay }, `${x.title || x.game + " " + x.variant}`),
        ` — ${x.players.map((p) => p.name).join(", ")} `,
        el("a", { href: x.record, download: "" }, "record"),
      )) : [el("li", { text: "none yet" })]));
    } catch (e) { /* server restarting: try again */ }
  }
  refresh();
  setInterval(refresh, 4000);
}

// --------------------------------------------------------------------- table

function tablePage() {
  const tid = location.pathname.split("/").pop();
  const params = new URLSearchParams(location.search);
  let ws = null, state = {}, config = null, welcome = null, backoff = 500, closedForGood = false;
  let seats = [], sheet = null, log = [], logHand = -1, nextId = 1;

  function connect() {
    $("#conn").textContent = "connecting…";
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    ws.onopen = () => {
      backoff = 500;
      $("#conn").textContent = "connected";
      const token = localStorage.getItem(tokenKey(tid));
      ws.send(JSON.stringify({ type: "hello", v: 1, table: tid, ...(token ? { token } : {}) }));
    };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = (ev) => {
      $("#conn").textContent = "disconnected";
      if (closedForGood || ev.code === 4001) { $("#conn").textContent = "this seat is open in another tab"; return; }
      setTimeout(connect, backoff);  // reconnect by itself (the server may be restarting)
      backoff = Math.min(backoff * 2, 8000);
    };
  }
  const send = (msg) => { if (ws && ws.readyState === 1) ws.send(JSON.stringify({ id: nextId++, ...msg })); };

  function onMessage(m) {
    if (m.type === "welcome") {
      welcome = m; config = m.table;
      $("#title").textContent = `${config.title || config.game + " " + config.variant}`;
      if (m.seat === null) offerJoin();
      else $("#join").hidden = true;
    } else if (m.type === "joined") {
      localStorage.setItem(tokenKey(tid), m.token);
      $("#join").hidden = true;
    } else if (m.type === "left") {
      localStorage.removeItem(tokenKey(tid));
    } else if (m.type === "error") {
      if (m.code === "bad_token") { localStorage.removeItem(tokenKey(tid)); send({ type: "hello", v: 1, table: tid }); }
      if (m.code === "taken_over") closedForGood = true;
      $("#error").textContent = m.message;
      setTimeout(() => { $("#error").textContent = ""; }, 5000);
    } else if (m.type === "hint") {
      $("#hinttext").textContent = m.action ? `hint: ${actionText(m.action)}` : "hint: nothing to signal";
    } else if (m.type === "state") {
      if (m.seats) seats = m.seats;
      if (m.sheet) sheet = m.sheet;
      if (m.log) {
        if (m.log.hand !== logHand || m.log.from === 0) { log = []; logHand = m.log.hand; }
        log = log.slice(0, m.log.from).concat(m.log.events);
      }
      state = m;
      render();
    }
  }

  function offerJoin() {
    const seat = params.get("seat");
    if (seat === null) return;
    $("#join").hidden = false;
    $("#join-seat").textContent = seatName(Number(seat));
    const input = $("#join-form input[name=name]");
    input.value = localStorage.getItem("quintet:name") || "";
    $("#join-form").onsubmit = (ev) => {
      ev.preventDefault();
      localStorage.setItem("quintet:name", input.value);
      const msg = { type: "join", seat: Number(seat), name: input.value };
      if (params.get("invite")) msg.invite = params.get("invite");
      send(msg);
    };
  }

  const seatName = (s) => (config && config.game === "quintus") ? `seat ${s}` : QUINTO_SEATS[s];

  function render() {
    const h = state.hand, me = state.you;
    const signals = h && h.signals ? Object.fromEntries(h.signals.map((x) => [x.seat, x.signal])) : {};
    // Seats
    $("#seats").replaceChildren(...seats.map((s) => {
      const absent = s.kind === "person" && !s.connected;
      const box = el("div", { class: "seat" + (h && h.turn === s.seat ? " turn" : "") + (me.controls.includes(s.seat) ? " me" : "") },
        el("strong", { text: s.label }), " ",
        s.kind === "open" ? "(open)" : s.name || "",
        absent ? el("span", { class: "absent", text: " (away)" }) : null,
        h && h.quintus === s.seat ? " ★ quintus" : null,
        h && h.dealer === s.seat ? " (dealer)" : null,
        signals[s.seat] ? el("span", { class: "signal", text: signals[s.seat] }) : null,
        h ? ` · ${h.hand_sizes[s.seat]} cards` : null);
      if (me.seat !== null && (absent || s.kind === "open") && s.kind !== "dummy")
        box.append(" ", el("button", { onclick: () => send({ type: "replace", seat: s.seat, level: "heuristic" }) }, "bot"));
      return box;
    }));
    // Status
    let status = `${state.status}`;
    if (h) {
      status += ` · hand ${h.number + 1} · ${h.phase}`;
      if (h.turn !== null) status += ` · ${seatName(h.turn)} to ${h.phase === "play" ? "play" : "decide"}`;
      if (config.game === "quinto") status += ` · score ${h.score[0]}–${h.score[1]} (target ${h.target})` + (h.multiplier > 1 ? ` · ×${h.multiplier}` : "");
      else status += (h.trump ? ` · trump ${h.trump}` : "") + (h.nil && h.nil !== "none" ? ` · ${h.nil} nil` : "") + (h.contract ? ` · contract ${h.contract}` : "") + ` · points ${h.points.join("/")}`;
      if (h.cachette) status += ` · cachette ${h.cachette.map(cardLabel).join(" ")}`;
    }
    $("#status").textContent = status;
    // Trick and last trick
    $("#trick").replaceChildren(...(h ? h.trick.map((t) => el("span", {}, `${seatName(t.seat)} `, cardNode(t.card))) : []));
    $("#lasttrick").replaceChildren(...(state.last_trick ? [`last trick (${seatName(state.last_trick.winner)}): `,
      ...state.last_trick.cards.map((t) => cardNode(t.card))] : []));
    // Hands (own, dummy for the lone player, open nil for everyone)
    const legal = state.legal || [];
    const legalCards = new Map(legal.filter((a) => a.type === "play").map((a) => [`${a.seat}:${a.card}`, a]));
    $("#hands").replaceChildren(...(h ? h.hands.map((cards, s) => cards === null ? null :
      el("div", { class: "row" }, el("strong", { text: `${seatName(s)}: ` }),
        ...cards.map((c) => {
          const a = legalCards.get(`${s}:${c}`);
          const b = cardNode(c, "button", { class: a ? "legal" : "", disabled: !a, title: a ? `play ${c}` : c });
          if (a) b.addEventListener("click", () => act(a));
          return b;
        }))) : []));
    // Other decisions: buttons, numbered for the keyboard
    const others = legal.filter((a) => a.type !== "play");
    $("#actions").replaceChildren(...others.map((a, i) => el("button", { onclick: () => act(a), title: i < 9 ? `key ${i + 1}` : "" },
      (i < 9 ? `${i + 1}. ` : "") + (a.seat !== me.seat ? `${seatName(a.seat)}: ` : "") + actionText(a))));
    $("#next").hidden = !(state.status === "hand_over" && me.seat !== null);
    $("#leave").hidden = me.seat === null;
    $("#hint").hidden = me.seat === null || !legal.length;
    // Summary
    const sm = state.summary;
    $("#summary").hidden = !sm;
    if (sm) {
      $("#summary").replaceChildren(el("h3", { text: "End of hand" }),
        ...sm.deal.hands.map((cards, s) => el("div", {}, `${seatName(s)}: `, ...cards.map((c) => cardNode(c)))),
        sm.deal.cachette ? el("div", {}, "cachette: ", ...sm.deal.cachette.map((c) => cardNode(c))) : null,
        el("pre", { text: JSON.stringify(Object.fromEntries(Object.entries(sm).filter(([k]) => k !== "deal"))) }));
    }
    if (state.result) $("#summary").append(el("p", {}, el("strong", { text: "Match over: " }), JSON.stringify(state.result)));
    renderSheet();
    $("#log").replaceChildren(...log.map((e) => el("li", { text: e.text })));
  }

  function renderSheet() {
    if (!sheet) return;
    const rows = [];
    if (sheet.kind === "ledger") {
      rows.push(el("tr", {}, el("th", { text: "hand" }), ...[0, 1, 2, 3, 4].map((s) => el("th", { text: `seat ${s}` }))));
      for (const r of sheet.hands) rows.push(el("tr", {}, el("td", { text: `${r.hand + 1}${r.void ? " void" : ""}` }),
        ...[0, 1, 2, 3, 4].map((s) => el("td", { text: r.scores ? `${r.scores[s]} (${r.totals[s]})` : "" }))));
    } else {
      rows.push(el("tr", {}, el("th", { text: "hand" }), el("th", { text: sheet.sides[0] }), el("th", { text: sheet.sides[1] })));
      for (const g of sheet.games) for (const r of g.hands) rows.push(el("tr", {},
        el("td", { text: `game ${g.number}, hand ${r.hand + 1}` }), el("td", { text: r.score[0] }), el("td", { text: r.score[1] })));
    }
    $("#sheet").replaceChildren(el("table", { class: "sheet" }, ...rows));
  }

  function act(a) { send({ type: "act", action: a, expect: state.seq }); }

  $("#hint").onclick = () => send({ type: "hint" });
  $("#next").onclick = () => send({ type: "next" });
  $("#leave").onclick = () => send({ type: "leave" });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    const others = (state.legal || []).filter((a) => a.type !== "play");
    if (/^[1-9]$/.test(ev.key) && others[Number(ev.key) - 1]) act(others[Number(ev.key) - 1]);
    else if (ev.key === "h") send({ type: "hint" });
    else if (ev.key === "n" && state.status === "hand_over") send({ type: "next" });
  });
  connect();
}

// -------------------------------------------------------------------- replay

async function replayPage() {
  const tid = location.pathname.split("/").pop();
  $("#download").href = `/api/games/${tid}/record`;
  const r = await fetch(`/api/games/${tid}/replay`);
  if (!r.ok) { $("#note").textContent = (await r.json()).error.message; return; }
  const data = await r.json();
  let analysis = data.analysis;
  const seatName = (s) => data.config.game === "quintus" ? `seat ${s}` : QUINTO_SEATS[s];
  $("#hand").replaceChildren(...data.hands.map((h, i) => el("option", { value: i, text: `hand ${i + 1}` })));
  const show = () => {
    const hand = data.hands[Number($("#hand").value)];
    const k = Number($("#step").value);
    $("#step").max = hand.steps.length - 1;
    const st = hand.steps[k];
    $("#stepinfo").textContent = `step ${k}/${hand.steps.length - 1}` + (st.text ? ` · ${seatName(st.action.seat)}: ${st.text}` : "");
    $("#trick").replaceChildren(...st.trick.map((t) => el("span", {}, `${seatName(t.seat)} `, cardNode(t.card))));
    $("#hands").replaceChildren(...st.hands.map((cards, s) => el("div", { class: "row" }, el("strong", { text: `${seatName(s)}: ` }), ...cards.map((c) => cardNode(c)))));
    let note = "";
    if (analysis && st.action && st.action.type === "play") {
      const n = analysis.plays.find((p) => p.hand === hand.hand && p.action === k - 1);
      if (n) note = n.cost === null ? "not analysed (early in the hand)" : `double dummy: value ${n.value}, best ${n.best} (${n.best_cards.join(" ")})` + (n.cost ? `, costs ${n.cost}` : ", best play");
    }
    $("#note").textContent = note || (analysis ? "" : "analysis running…");
    $("#summary").textContent = k === hand.steps.length - 1 ? JSON.stringify(hand.result) : "";
  };
  $("#hand").onchange = () => { $("#step").value = 0; show(); };
  $("#step").oninput = show;
  $("#prev").onclick = () => { $("#step").value = Math.max(0, Number($("#step").value) - 1); show(); };
  $("#fwd").onclick = () => { $("#step").value = Number($("#step").value) + 1; show(); };
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowLeft") $("#prev").click();
    if (ev.key === "ArrowRight") $("#fwd").click();
  });
  show();
  while (!analysis) {
    const a = await fetch(`/api/games/${tid}/analysis`);
    if (a.status === 200) { analysis = (await a.json()).analysis; show(); break; }
    if (a.status !== 202) break;
    await new Promise((res) => setTimeout(res, 2000));
  }
}

const page = document.body.dataset.page;
if (page === "lobby") lobby();
else if (page === "table") tablePage();
else if (page === "replay") replayPage();
