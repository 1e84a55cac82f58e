// quintet: the table page. One websocket carries the table (docs/server.md): a whole
// `state` on connecting, then an `update` of what changed after each change, applied to
// it here (a gap in them: the page asks for the state again); every action is checked
// by the server (the engine), the page only offers what the table calls legal. On each message the sections of the page (the
// felt and its seats, the trick, the contract, the turn, the hand, the decisions, the
// tools, the scores, the sheet, the log, the players, the summary, the last trick) are
// given their inputs; each touches the DOM only where its inputs changed.
//
// Pace: state messages are shown in order, but one that shows a bot's action waits
// until the player's speed setting has passed since the one before (longer after a
// finished trick, which stays on the felt until the next card or a click).

import { $, $$, el, store, tokenKey, accessQuery, fourColourToggle, Memo, grow, setDisabled, setHidden, setText } from "./dom.js";
import { Cards } from "./cards.js";
import { Game, serverInfo, displayName, whoText, actionText, actionKey, sameAction, hintHolds, isOver, sortHand, SUIT_SYM, SUIT_WORD, SIGNAL_TEXT } from "./game.js";
import { Felt, HandView, renderContract, decisionsOf } from "./felt.js";
import { sheetTable, finalResult, summaryNode } from "./sheet.js";
import { isLesson, loadGuide, lessonText } from "./learn.js";
import { Social } from "./social.js"; // social: chat, invites, take-backs, claims, rematch

// The websocket protocol's version this page speaks (docs/server.md).
const PROTOCOL = 2;

export function tablePage() {
  fourColourToggle();
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const params = new URLSearchParams(location.search);
  const T = {
    ws: null, config: null, G: null, info: null, me: { seat: null, role: "spectator", controls: [] },
    state: null, seats: [], sheet: null, log: [], logHand: -1, nextId: 1,
    backoff: 500, closedForGood: false, retryTimer: null, lastMsg: 0,
    hint: null, selected: null, flash: null, cleared: null, sentSeq: null,
    summaryClosed: null, joinSeat: null, invites: null,
    queue: [], paceTimer: null, shownAt: 0, beeps: [], summaryHold: 0, resync: false,
  };
  window.quintet = T; // for the curious (and the browser tests)
  // A lesson (?learn=1): each decision explained as it comes (learn.js).
  T.lesson = isLesson(tid, params);
  if (T.lesson) loadGuide().then(() => render()).catch(() => { T.lesson = false; });
  // social: the social section (social.js) gets what table.js does not handle, and each state.
  let social = null;
  const memo = new Memo();
  const felt = new Felt();
  let myHand = null;
  // The bot levels this server offers (the operator may add some): heuristic first.
  T.levels = ["heuristic", "random", "pimc", "ismcts"];
  // The games' descriptions: the table is drawn once both they and the welcome are here.
  serverInfo().then((info) => {
    T.info = info;
    pump();
    T.levels = ["heuristic", ...info.levels.filter((l) => l !== "heuristic")];
    makeGame();
    render();
  }).catch(() => showError("The server did not describe its games: reload the page."));
  function makeGame() {
    if (T.config && T.info) T.G = Game(T.config, T.info.games[T.config.game]);
  }

  // ------------------------------------------------------------ settings
  // Each player's own, kept in this browser: the bot speed and the sounds.
  const paceBox = $("#pace"), soundBox = $("#sounds");
  paceBox.value = PACES[store.get("quintet:pace")] ? store.get("quintet:pace") : "table";
  paceBox.addEventListener("change", () => { store.set("quintet:pace", paceBox.value); pump(); });
  soundBox.checked = store.get("quintet:sounds") === "1";
  soundBox.addEventListener("change", () => {
    store.set("quintet:sounds", soundBox.checked ? "1" : "0");
    if (soundBox.checked) beep("on");
  });
  // Seconds a bot's action waits after the state before it, and after a finished trick.
  function pace() {
    const p = PACES[paceBox.value] || PACES.table;
    if (p.card !== null) return p;
    const d = T.info && typeof T.info.bot_delay === "number" ? T.info.bot_delay : 0.8;
    return { card: d, trick: 3 * d };
  }
  let audio = null;
  // A short tone (WebAudio, no sound files), only when the player turned sounds on.
  function beep(kind) {
    if (!soundBox.checked) return;
    const tone = TONES[kind];
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!tone || !Ctx) return;
    try {
      if (!audio) audio = new Ctx();
      const t0 = audio.currentTime;
      tone.forEach(([freq, at, len]) => {
        const osc = audio.createOscillator(), gain = audio.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, t0 + at);
        gain.gain.exponentialRampToValueAtTime(0.15, t0 + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
        osc.connect(gain).connect(audio.destination);
        osc.start(t0 + at);
        osc.stop(t0 + at + len + 0.02);
      });
      T.beeps.push(kind);
    } catch (e) { /* no audio device: silence */ }
  }

  // ---------------------------------------------------------- connection
  function setConn(state, text) {
    $("#conn").dataset.state = state;
    $("#conn-text").textContent = text;
  }
  function connect() {
    clearTimeout(T.retryTimer);
    if (T.ws && (T.ws.readyState === 0 || T.ws.readyState === 1)) return;
    setConn("connecting", "connecting…");
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    T.ws = ws;
    ws.onopen = () => {
      T.backoff = 500;
      T.lastMsg = Date.now();
      setConn("open", "connected");
      const token = store.get(tokenKey(tid));
      const access = {};
      for (const k of ["key", "invite"]) if (params.get(k)) access[k] = params.get(k);
      T.resync = false;
      ws.send(JSON.stringify({ type: "hello", v: PROTOCOL, table: tid, id: T.nextId++, ...access, ...(token ? { token } : {}) }));
    };
    ws.onmessage = (ev) => { T.lastMsg = Date.now(); onMessage(JSON.parse(ev.data)); };
    ws.onclose = (ev) => {
      if (T.ws !== ws) return;
      T.ws = null;
      if (T.closedForGood || ev.code === 4001) {
        T.closedForGood = true;
        setConn("closed", "your seat is open in another tab");
        showError("This seat was taken over by another tab or window.", "Take it back here", () => { T.closedForGood = false; connect(); });
        return;
      }
      const wait = T.backoff;
      T.backoff = Math.min(T.backoff * 2, 8000);
      setConn("retry", `disconnected: reconnecting in ${Math.round(wait / 100) / 10} s`);
      T.retryTimer = setTimeout(connect, wait);
    };
  }
  function send(msg) {
    if (T.ws && T.ws.readyState === 1) { T.ws.send(JSON.stringify({ id: T.nextId++, ...msg })); return true; }
    return false;
  }
  social = new Social({ send, tid, T }); // social
  // A dead connection (a laptop asleep, a network change) is noticed by the pings.
  setInterval(() => {
    if (!T.ws || T.ws.readyState !== 1) return;
    if (Date.now() - T.lastMsg > 45000) { T.ws.close(); return; }
    send({ type: "ping", t: Date.now() });
  }, 15000);
  window.addEventListener("online", () => { if (!T.ws && !T.closedForGood) connect(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !T.ws && !T.closedForGood) connect();
  });

  let errTimer = null;
  function showError(text, button, action) {
    const box = $("#error");
    box.replaceChildren(text);
    if (button) box.append(" ", el("button", { type: "button", onclick: () => { box.replaceChildren(); action(); } }, button));
    clearTimeout(errTimer);
    if (!button) errTimer = setTimeout(() => box.replaceChildren(), 6000);
  }

  // ------------------------------------------------------------ messages
  function onMessage(m) {
    switch (m.type) {
      case "welcome":
        T.config = m.table;
        makeGame();
        T.me = { seat: m.seat, role: m.role, controls: [] };
        document.title = `quintet — ${m.table.title || `${m.table.game} ${m.table.variant}`}`;
        $("#title").textContent = `${m.table.title ? m.table.title + " · " : ""}${m.table.game} · ${m.table.variant}${m.table.rated ? " · rated" : ""}`;
        if (m.seat !== null) { $("#joinbox").hidden = true; fetchInvites(); }
        else if (params.get("seat") !== null && T.joinSeat === null) T.joinSeat = Number(params.get("seat"));
        break;
      case "joined":
        store.set(tokenKey(tid), m.token);
        T.joinSeat = null;
        $("#joinbox").hidden = true;
        if (params.has("invite") || params.has("seat")) history.replaceState(null, "", `/table/${tid}`);
        fetchInvites();
        break;
      case "left":
        store.del(tokenKey(tid));
        T.invites = null;
        break;
      case "hint": {
        T.hint = m;
        if (m.action && m.action.type === "play") T.selected = `${m.action.seat}:${m.action.card}`;
        render();
        // Focus the suggestion: Enter (or Space) takes it.
        const f = $("#actions button.hinted") || $("button.card.hinted");
        if (f && !f.disabled) f.focus();
        break;
      }
      case "error":
        if (m.code === "bad_token") { store.del(tokenKey(tid)); send({ type: "hello", v: PROTOCOL, table: tid }); return; }
        if (m.code === "taken_over") { T.closedForGood = true; return; }
        if (m.code === "stale" || m.code === "not_your_turn") { T.sentSeq = null; return; }
        T.sentSeq = null;
        showError(m.message || m.code);
        break;
      case "state":
        T.resync = false;
        T.queue.push(m);
        pump();
        break;
      case "update":
        if (T.resync) break; // the whole state asked for is on its way
        T.queue.push(m);
        pump();
        break;
      default:
        if (social) social.onMessage(m); // social
        break;
    }
  }

  // Show the waiting state messages in order, each one showing a bot's action only once
  // its wait (the speed setting) since the last one shown has passed.
  function pump() {
    clearTimeout(T.paceTimer);
    T.paceTimer = null;
    while (T.queue.length) {
      const wait = holdFor(T.queue[0]);
      const due = T.shownAt + 1000 * wait - Date.now();
      if (due > 0) { T.paceTimer = setTimeout(pump, due); return; }
      const m = T.queue.shift();
      if (m.type === "update" && !fits(m)) {
        // An update that does not continue what this page holds: ask for the whole state.
        T.queue = [];
        T.resync = true;
        send({ type: "state" });
        return;
      }
      onState(m);
      T.shownAt = Date.now();
    }
  }
  // Whether an update continues the table this page holds (its log without a gap).
  function fits(m) {
    if (!T.state) return false;
    return !m.log || m.log.from === 0 || (m.log.hand === T.logHand && m.log.from <= T.log.length);
  }
  // How long a message waits after the one before: a bot's action waits the card delay,
  // or the trick delay while a finished trick lies on the felt.
  function holdFor(m) {
    // Not a whole log (after hello) nor a new hand: those show at once.
    if (!T.info || !T.state || !m.log || !m.log.from || !m.hand || !T.state.hand) return 0;
    if (m.hand.number !== undefined && m.hand.number !== T.state.hand.number) return 0;
    const seats = m.seats || T.seats;
    const acts = m.log.events.filter((e) => e.kind === "action" && e.action);
    if (!acts.length) return 0;
    const a = acts[acts.length - 1];
    const row = seats[a.seat];
    const lone = T.G && T.G.dummy ? seats[T.G.lone] : null;
    const bot = row && (row.kind === "bot" || (row.kind === "dummy" && lone && lone.kind === "bot"));
    if (!bot || (T.me.controls || []).includes(a.seat)) return 0;
    const p = pace();
    return T.flash && a.action.type === "play" ? p.trick : p.card;
  }

  // The table after a message: a state is the whole of it; an update's hand fields
  // replace the hand's, its other fields the table's (its log continues T.log, below).
  function applied(prev, m) {
    if (m.type === "state") return m;
    const next = { ...prev, type: "state" };
    for (const [k, v] of Object.entries(m)) {
      if (k === "type") continue;
      next[k] = k === "hand" && v !== null ? { ...(prev.hand || {}), ...v } : v;
    }
    return next;
  }

  function onState(msg) {
    const prev = T.state;
    const m = applied(prev, msg);
    if (m.seats) T.seats = m.seats;
    if (m.sheet) T.sheet = m.sheet;
    if (msg.log) {
      if (msg.log.hand !== T.logHand || msg.log.from === 0) { T.log = []; T.logHand = msg.log.hand; }
      T.log = T.log.slice(0, msg.log.from).concat(msg.log.events);
    } else if (msg.log === null) { T.log = []; T.logHand = -1; }
    T.me = m.you;
    const h = m.hand;
    sounds(prev, m);
    // The summary opens once the hand's last trick has been seen (or clicked away).
    if (prev && prev.status === "playing" && m.status !== "playing" && m.summary) {
      T.summaryHold = Date.now() + 1000 * pace().trick;
      setTimeout(render, 1000 * pace().trick + 20);
    }
    // A finished trick stays on the felt, with its winner and what it scored, until the
    // next card is played or the player clicks it.
    const key = h ? `${h.number}:${h.tricks_played}` : null;
    T.flash = h && !h.trick.length && h.tricks_played > 0 && m.last_trick && T.cleared !== key
      ? { ...m.last_trick, detail: trickDetail(T.log), key } : null;
    if (!prev || prev.seq !== m.seq) T.sentSeq = null;
    if (T.hint && !hintHolds(T.hint, m)) T.hint = null;
    T.state = m;
    document.body.dataset.seq = `${m.seq}`;
    document.body.dataset.status = m.status;
    render();
    if (social) social.onState(m); // social: each state as it is shown
  }

  // What the hand's last finished trick scored, from its log: Quinto's quints (the
  // engine's words after the colon: "quints 5♥ 20"), a Quintus premium melded or
  // declined after it.
  function trickDetail(log) {
    let i = log.length - 1;
    while (i >= 0 && log[i].kind !== "trick") i--;
    if (i < 0) return "";
    const e = log[i];
    const out = [];
    if (e.points && e.text.includes(": ")) out.push(e.text.slice(e.text.indexOf(": ") + 2));
    for (const x of log.slice(i + 1)) {
      if (x.kind === "premium") out.push(`${x.action ? actionText(x.action) : "premium"}: +${x.points}`);
      else if (x.kind === "action" && x.action && x.action.type === "decline") out.push("premium declined");
      else if (x.kind === "nil" || x.kind === "cachette") out.push(x.text);
    }
    return out.join(" · ");
  }
  function clearTrick() {
    if (!T.flash) return;
    T.cleared = T.flash.key;
    T.flash = null;
    T.shownAt = 0; // a bot's card held back for the trick comes now
    T.summaryHold = 0;
    render();
    pump();
  }
  // The sounds of a change: a card played, the player's turn, a trick won by his side.
  function sounds(prev, m) {
    if (!soundBox.checked || !prev || !prev.hand || !m.hand || prev.hand.number !== m.hand.number) return;
    const a = prev.hand, b = m.hand;
    if (b.tricks_played > a.tricks_played) {
      const w = m.last_trick ? m.last_trick.winner : null;
      const mine = w !== null && T.G && (m.you.controls || []).some((s) => sameSide(s, w, b));
      beep(mine ? "won" : "trick");
    } else if (b.trick.length > a.trick.length) beep("card");
    const myTurn = (x) => x.status === "playing" && x.hand && (x.you.controls || []).includes(x.hand.turn) && (x.legal || []).length > 0;
    if (myTurn(m) && !myTurn(prev)) beep("turn");
  }
  function sameSide(s, w, h) {
    const G = T.G;
    if (s === w) return true;
    if (G.partnerships) return G.partnerships.some((p) => p.includes(s) && p.includes(w));
    const teams = G.teamsOf(h.quintus);
    return !!teams && teams.some((t) => t.includes(s) && t.includes(w));
  }

  // ------------------------------------------------------------- actions
  function act(a) {
    if (!T.state || T.sentSeq === T.state.seq) return;
    if (send({ type: "act", action: a, expect: T.state.seq })) {
      T.sentSeq = T.state.seq;
      T.selected = null;
      render(); // nothing more to click until the answer
    }
  }
  function legalPlays() {
    const legal = (T.state && T.state.legal) || [];
    return legal.filter((a) => a.type === "play");
  }
  // The invite code for a seat: from the link, or kept by the browser that created the table.
  function inviteFor(seat) {
    if (params.get("invite") && Number(params.get("seat")) === seat) return params.get("invite");
    try {
      const kept = JSON.parse(store.get(`quintet:invites:${tid}`) || "[]");
      const row = kept.find((x) => x.seat === seat);
      return row && row.invite ? row.invite : null;
    } catch (e) { return null; }
  }
  function sit(seat) {
    T.joinSeat = seat;
    render();
    $("#join-name").focus();
  }
  async function fetchInvites() {
    const token = store.get(tokenKey(tid));
    if (!token) return;
    try {
      const r = await fetch(`/api/tables/${tid}/invites`, { headers: { "x-seat-token": token } });
      if (r.ok) { T.invites = await r.json(); render(); }
    } catch (e) { /* later */ }
  }

  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("#join-name").value.trim();
    if (!name || T.joinSeat === null) return;
    store.set("quintet:name", name);
    const msg = { type: "join", seat: T.joinSeat, name };
    const invite = inviteFor(T.joinSeat);
    if (invite) msg.invite = invite;
    send(msg);
  });
  $("#join-cancel").addEventListener("click", () => { T.joinSeat = null; render(); });
  $("#hint").addEventListener("click", () => send({ type: "hint" }));
  $("#next").addEventListener("click", () => send({ type: "next" }));
  $("#leave").addEventListener("click", () => {
    if (confirm("Leave your seat? It becomes open; you stay and watch.")) send({ type: "leave" });
  });
  $("#lastbtn").addEventListener("click", () => toggleLast());
  $("#summarybtn").addEventListener("click", () => { T.summaryClosed = null; render(); });
  $("#summary-close").addEventListener("click", () => closeSummary());
  $("#keys-btn").addEventListener("click", () => { $("#keys").hidden = false; $("#keys-close").focus(); });
  $("#keys-close").addEventListener("click", () => { $("#keys").hidden = true; });

  function closeSummary() {
    if (T.state && T.state.hand) T.summaryClosed = T.state.hand.number;
    render();
  }
  function toggleLast() {
    const box = $("#lasttrick");
    box.hidden = !box.hidden;
    $("#lastbtn").setAttribute("aria-expanded", String(!box.hidden));
    renderLastTrick();
  }

  // ------------------------------------------------------------ keyboard
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const k = ev.key;
    if (k === "Escape") { $("#keys").hidden = true; if (!$("#summary").hidden) closeSummary(); if (!$("#lasttrick").hidden) toggleLast(); return; }
    if (k === "?") { $("#keys").hidden = !$("#keys").hidden; return; }
    if (/^[1-9]$/.test(k) && !ev.shiftKey) {
      const b = $$("#actions button[data-n]").find((x) => x.dataset.n === k);
      if (b && !b.disabled) { ev.preventDefault(); b.click(); }
      return;
    }
    const plays = legalPlays();
    const keys = plays.map((a) => `${a.seat}:${a.card}`);
    if (k === "ArrowRight" || k === "ArrowLeft") {
      if (!keys.length) return;
      ev.preventDefault();
      const i = keys.indexOf(T.selected);
      const d = k === "ArrowRight" ? 1 : -1;
      T.selected = keys[i < 0 ? (d > 0 ? 0 : keys.length - 1) : (i + d + keys.length) % keys.length];
      focusSelected();
      return;
    }
    if (k === "Enter" || k === " ") {
      // A focused control (a card, a button, a link) is activated by the browser itself.
      if (["BUTTON", "A", "SUMMARY"].includes(ev.target.tagName)) return;
      const a = plays.find((x) => `${x.seat}:${x.card}` === T.selected);
      if (a) { ev.preventDefault(); act(a); return; }
      const hb = $("#actions button.hinted");
      if (hb) { ev.preventDefault(); hb.click(); }
      return;
    }
    const lower = k.toLowerCase();
    const rankKey = { a: "A", k: "K", q: "Q", j: "J", t: "T" }[lower] || (ev.shiftKey && /^[2-9!@#$%^&*(]$/.test(k) ? shiftDigit(ev) : null);
    if (lower === "r" && keys.some((x) => x.endsWith(":JK"))) { T.selected = keys.find((x) => x.endsWith(":JK")); focusSelected(); return; }
    if (rankKey) {
      const same = keys.filter((x) => x.split(":")[1][0] === rankKey);
      if (same.length) {
        const i = same.indexOf(T.selected);
        T.selected = same[(i + 1) % same.length];
        focusSelected();
      }
      return;
    }
    if (lower === "h") { if (!$("#hint").hidden) send({ type: "hint" }); return; }
    if (lower === "l") { toggleLast(); return; }
    if (lower === "n") { if (!$("#next").hidden && !$("#next").disabled) $("#next").click(); return; }
    if (lower === "s") { if (T.state && T.state.summary) { if ($("#summary").hidden) T.summaryClosed = null; else closeSummary(); render(); } }
  });
  function focusSelected() {
    render();
    const b = T.selected && $(`button.card[data-key="${CSS.escape(T.selected)}"]`);
    if (b) b.focus();
  }
  function shiftDigit(ev) {
    const m = /^Digit([2-9])$/.exec(ev.code || "");
    return m ? m[1] : null;
  }

  // -------------------------------------------------------------- render
  function render() {
    const st = T.state;
    if (!st || !T.G) return;
    const G = T.G, h = st.hand, me = st.you;
    const player = me.seat !== null;
    const view = player ? me.seat : G.dummy ? G.lone : 0;
    const legal = new Map();
    const busy = T.sentSeq === st.seq;
    if (!busy) for (const a of st.legal) if (a.type === "play") legal.set(`${a.seat}:${a.card}`, a);
    if (T.selected && !legal.has(T.selected)) T.selected = null;
    let hinted = null;
    if (T.hint && hintHolds(T.hint, st) && T.hint.action && T.hint.action.type === "play") {
      hinted = `${T.hint.action.seat}:${T.hint.action.card}`;
      if (!T.selected) T.selected = hinted;
    }
    const canSit = !player && !isOver(st) && (T.config.public || params.get("invite") || store.get(`quintet:invites:${tid}`));
    const ctx = {
      G, seats: T.seats, hand: h, view, me, legal, status: st.status, onCard: act,
      selected: T.selected, hinted, flash: T.flash, showBottomHand: player,
      decisions: decisionsOf(T.log, h), sit: canSit ? sit : null, onTrick: clearTrick,
    };
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    felt.render(ctx);
    renderContract($("#contract"), G, h, T.seats);
    renderTurn(G, st);
    renderMyHand(ctx);
    renderActions(G, st, busy);
    renderLesson(G, st);
    renderTools(st);
    renderScoreboard(G, st);
    if (memo.changed("sheet", JSON.stringify([T.sheet, T.seats]))) $("#sheet").replaceChildren(sheetTable(G, T.sheet, T.seats));
    renderLog(G);
    renderPlayers();
    renderSummary(G, st);
    renderLastTrick();
    renderJoin(G);
    // A card that had the focus and was made again (a new hand) gets it back.
    if (focusKey) {
      const f = $(`[data-key="${CSS.escape(focusKey)}"]`);
      if (f && !f.disabled && document.activeElement !== f) f.focus();
    }
  }

  function renderLesson(G, st) {
    const box = $("#lesson");
    const target = T.config && T.config.options ? T.config.options.target : null;
    const text = T.lesson ? lessonText(st, { G, seats: T.seats, flash: T.flash, target }) : "";
    setText(box, text);
    setHidden(box, !text);
  }

  function renderTurn(G, st) {
    const box = $("#turnline");
    const h = st.hand;
    let text = "", mine = false;
    if (st.status === "waiting") {
      const open = T.seats.filter((s) => s.kind === "open").length;
      text = `Waiting for ${open} player${open === 1 ? "" : "s"} to sit down`;
    } else if (st.status === "finished") text = "The match is over";
    else if (st.status === "abandoned") text = "This table was closed: nobody played it for a long time";
    else if (st.status === "hand_over") text = "The hand is over";
    else if (h && h.turn !== null) {
      const controls = st.you.controls || [];
      if (controls.includes(h.turn)) {
        mine = true;
        const what = h.phase === "doubling" ? doublingWords(st.legal) : PHASE_WHAT[h.phase] || "decide";
        text = h.turn !== st.you.seat ? `Your turn: play from the dummy (${G.label(h.turn)})` : `Your turn: ${what}`;
      } else {
        const row = T.seats[h.turn];
        const who = displayName(T.seats, G, h.turn);
        if (row && row.kind === "person" && !row.connected) text = `Waiting for ${who} (away)`;
        else if (G.withTeams && h.turn === h.quintus && (h.phase === "trump" || h.phase === "nil")) text = `${who}, the quintus, to ${PHASE_WHAT[h.phase]}`;
        else text = `${who} to ${h.phase === "play" ? "play" : "decide"}`;
      }
    }
    setText(box, text);
    box.classList.toggle("mine", mine);
  }

  // The viewer's own hand below the felt: kept, a card played leaves it.
  function renderMyHand(ctx) {
    const box = $("#myhand");
    const st = T.state, h = st.hand, me = st.you;
    const cards = me.seat !== null && h ? h.hands[me.seat] : null;
    setHidden(box, me.seat === null);
    if (!cards) {
      if (myHand) { box.replaceChildren(); myHand = null; }
      return;
    }
    if (!myHand || myHand.seat !== me.seat) {
      myHand = new HandView(me.seat, "", "your hand");
      box.replaceChildren(myHand.node);
    }
    // Phones lay the hand out in rows of --cols cards (style.css).
    const cols = `${cards.length > 7 ? Math.ceil(cards.length / 2) : Math.max(cards.length, 1)}`;
    if (myHand.node.style.getPropertyValue("--cols") !== cols) myHand.node.style.setProperty("--cols", cols);
    myHand.update(ctx, sortHand(cards, h.trump));
  }

  // The decisions other than a card (pass, double, bid, trump, nil, meld, signal): made
  // again when they, the hint, the prompt or the waiting for an answer change.
  function renderActions(G, st, busy) {
    const box = $("#actions");
    const prompt = $("#prompt");
    const h = st.hand;
    const legal = h ? (st.legal || []).filter((a) => a.type !== "play") : [];
    const hint = T.hint && hintHolds(T.hint, st) ? T.hint.action : null;
    const main = legal.filter((a) => a.type !== "signal");
    const signals = legal.filter((a) => a.type === "signal");
    let text = "";
    if (main.length) {
      const phase = h.phase;
      if (phase === "doubling") {
        text = h.multiplier > 1 ? `Doubling round: ${G.label(h.doubled_by)} doubled` : "Doubling round: once round the table";
      } else if (phase === "auction") {
        text = h.high_bid ? `Auction: the high bid is ${h.high_bid}` : "Auction: bid (30 to 120) or pass";
      } else if (phase === "trump") text = "You are the quintus: name trump";
      else if (phase === "nil") text = "Declare nil? (closed: win no J, Q, K or A; open: and show your hand)";
      else if (phase === "meld") text = `Your trick holds a ${h.meld}: meld it or decline`;
    }
    let signalLabel = "signal:";
    if (signals.length) {
      const team = G.teamsOf(h.quintus);
      const partner = team ? team.find((t) => t.includes(st.you.seat)) : null;
      const mate = partner ? partner.find((s) => s !== st.you.seat) : null;
      if (mate !== null && mate !== undefined) signalLabel = `signal to ${displayName(T.seats, G, mate)}:`;
    }
    if (!memo.changed("actions", JSON.stringify([legal, busy, hint, text, signalLabel]))) return;
    setText(prompt, text);
    box.replaceChildren();
    if (!legal.length) return;
    let n = 0;
    const button = (a, label, cls = "") => {
      n += 1;
      return el("button", {
        type: "button", class: `${cls}${sameAction(a, hint) ? " hinted" : ""}`, "data-act": actionKey(a), "data-seat": a.seat,
        ...(n <= 9 ? { "data-n": `${n}`, "aria-keyshortcuts": `${n}` } : {}), onclick: () => act(a), disabled: busy,
      }, n <= 9 ? el("span", { class: "key", "aria-hidden": "true", text: `${n}` }) : null, label);
    };
    if (main.length) {
      const group = el("div", { class: "group", role: "group", "aria-label": "decision" });
      const bids = main.filter((a) => a.type === "bid");
      for (const a of main.filter((x) => x.type !== "bid")) {
        let label;
        if (a.type === "trump") label = a.suit === "NT" ? "Sans atout" : el("span", {}, el("span", { class: `sym-${a.suit}`, text: SUIT_SYM[a.suit] }), ` ${SUIT_WORD[a.suit]}`);
        else if (a.type === "nil") label = { none: "No nil", closed: "Closed nil", open: "Open nil" }[a.kind];
        else if (a.type === "meld") label = `Meld the ${a.combo} (+${a.combo === "court" ? 10 : 25})`;
        else label = a.type[0].toUpperCase() + a.type.slice(1);
        group.append(button(a, label, a.type === "trump" ? `suit-${a.suit}` : ""));
        if (a.type === "pass" && bids.length) {
          for (const b of bids.slice(0, 6)) group.append(button(b, `Bid ${b.amount}`));
        }
      }
      if (bids.length > 6) {
        const rest = bids.slice(6);
        const sel = el("select", { "aria-label": "a higher bid", id: "bidsel" }, ...rest.map((b) => el("option", { value: `${b.amount}`, text: `${b.amount}` })));
        const go = el("button", { type: "button", id: "bidgo", disabled: busy, onclick: () => act(rest.find((b) => `${b.amount}` === sel.value)) }, "Bid");
        if (hint && hint.type === "bid" && rest.some((b) => b.amount === hint.amount)) { sel.value = `${hint.amount}`; go.classList.add("hinted"); }
        group.append(el("span", { class: "glabel", text: "or" }), sel, go);
      }
      box.append(group);
    }
    if (signals.length) {
      const group = el("div", { class: "group signals", role: "group", "aria-label": "signal" },
        el("span", { class: "glabel", text: signalLabel }));
      for (const a of signals) group.append(button(a, SIGNAL_TEXT[a.signal], "signal"));
      box.append(group);
    }
  }

  function renderTools(st) {
    const player = st.you.seat !== null;
    const h = st.hand;
    setHidden($("#hint"), !player || !(st.legal && st.legal.length) || st.status !== "playing");
    const over = st.status === "hand_over";
    const ready = st.ready && st.ready.includes(st.you.seat);
    setHidden($("#next"), !(over && player));
    setDisabled($("#next"), !!ready);
    setHidden($("#summarybtn"), !st.summary);
    setHidden($("#leave"), !player || isOver(st));
    setDisabled($("#lastbtn"), !(st.last_trick || (h && h.tricks_played)));
    let hint = "";
    if (T.hint && hintHolds(T.hint, st)) {
      const a = T.hint.action;
      hint = a ? `Hint: ${a.type === "play" ? `play the ${Cards.name(a.card)}` : actionText(a)} (Enter)` : "Hint: no signal now";
      // The hint bot's reason, in one sentence (its rule, or its value over its deals).
      if (T.hint.reason) hint += ` — ${T.hint.reason}.`;
    }
    setText($("#hinttext"), hint);
  }

  // The score: partnerships' scores, tricks and games, or every seat's total.
  function renderScoreboard(G, st) {
    const h = st.hand;
    const sheet = T.sheet;
    let model;
    if (G.partnerships) {
      const names = G.sideNames(sheet);
      const rubber = !!sheet && sheet.kind === "rubber";
      const target = h ? h.target : (T.config.options && T.config.options.target) || (G.desc.options || {}).target;
      model = {
        rubber, target,
        rows: G.sideOrder.map((i) => ({
          i, name: names[i], score: h ? h.score[i] : 0, tricks: h ? h.tricks_won[i] : 0, games: rubber ? sheet.games_won[i] : null,
        })),
        note: `game to ${target}${rubber ? `; the rubber: two games won (bonus ${sheet.rubber_bonus})` : ""}`,
      };
    } else {
      const totals = sheet && sheet.totals ? sheet.totals : Array.from({ length: G.n }, () => 0);
      model = {
        totals: totals.map((x, s) => [whoText(T.seats, G, s), x]),
        note: sheet ? `hand ${Math.min(sheet.hands_played + 1, sheet.hands_to_play)} of ${sheet.hands_to_play}` : null,
      };
    }
    if (!memo.changed("score", JSON.stringify(model))) return;
    const box = $("#scoreboard");
    const t = el("table", {});
    if (model.rows) {
      t.append(el("tr", {}, el("th", { text: "" }), el("th", { text: "score" }), el("th", { text: "tricks" }),
        model.rubber ? el("th", { text: "games" }) : null));
      for (const r of model.rows) {
        t.append(el("tr", { "data-side": r.i },
          el("td", {}, r.name, el("div", { class: "bar" }, el("span", { style: `width:${Math.min(100, 100 * r.score / model.target)}%` }))),
          el("td", { class: "big", text: `${r.score}` }),
          el("td", { text: `${r.tricks}` }),
          model.rubber ? el("td", { text: `${r.games}` }) : null));
      }
      box.replaceChildren(t, el("p", { class: "muted small", text: model.note }));
    } else {
      t.append(el("tr", {}, el("th", { text: "" }), el("th", { text: "total" })));
      model.totals.forEach(([who, x], s) => t.append(el("tr", { "data-seat": s }, el("td", { text: who }), el("td", { class: "big", text: `${x}` }))));
      box.replaceChildren(t);
      if (model.note) box.append(el("p", { class: "muted small", text: model.note }));
    }
  }

  // The log of the hand: a new event is added at its end, the others stay.
  function renderLog(G) {
    const lines = T.log.map((e) => {
      let text = e.text;
      if (e.kind === "action" && e.action) text = `${displayName(T.seats, G, e.seat)}: ${e.action.type === "play" ? Cards.name(e.action.card) : actionText(e.action)}`;
      else if (e.kind === "trick") {
        const what = e.points && e.text.includes(": ") ? `: ${e.text.slice(e.text.indexOf(": ") + 2)}` : "";
        text = `${displayName(T.seats, G, e.seat)} wins the trick${what}${e.points ? ` (${e.points} points)` : ""}`;
      }
      return { kind: e.kind, text };
    });
    const box = $("#log");
    if (grow(box, lines, (x) => `${x.kind}\n${x.text}`, (x) => el("li", { class: x.kind, text: x.text }))) box.scrollTop = box.scrollHeight;
  }

  function renderPlayers() {
    const st = T.state, G = T.G;
    if (!st || !G) return;
    const box = $("#players");
    const player = st.you.seat !== null;
    if (!memo.changed("players", JSON.stringify([T.seats, player, st.you.seat, T.invites, st.status, T.levels]))) return;
    const rows = el("div", { class: "players" });
    for (const s of T.seats) {
      const ctl = el("span", { class: "ctl" });
      const replaceable = player && !isOver(st) && s.seat !== st.you.seat &&
        (s.kind === "open" || (s.kind === "person" && !s.connected));
      if (replaceable) {
        const sel = el("select", { "aria-label": `bot level for ${G.label(s.seat)}` }, ...T.levels.map((l) => el("option", { value: l, text: l })));
        ctl.append(sel, el("button", { type: "button", onclick: () => send({ type: "replace", seat: s.seat, level: sel.value }) }, "give to a bot"));
      }
      rows.append(el("div", { class: "prow", "data-seat": s.seat },
        el("span", {}, el("strong", { text: G.label(s.seat) }), " ", s.kind === "open" ? "open" : s.name || "",
          s.kind === "bot" ? el("span", { class: "tag bot", text: s.level }) : null,
          s.kind === "person" ? el("span", { class: "tag", text: s.connected ? "here" : "away" }) : null), ctl));
    }
    box.replaceChildren(rows);
    const base = `${location.protocol}//${location.host}`;
    const link = (label, url) => el("div", { class: "linkrow" }, el("span", { text: label }),
      el("input", { readonly: true, value: base + url, "aria-label": label, onfocus: (ev) => ev.target.select() }),
      el("button", { type: "button", onclick: () => copy(base + url) }, "copy"));
    box.append(el("h3", { class: "small", text: "Links" }), link("watch", `/table/${tid}`));
    if (T.invites) for (const s of T.invites.seats) if (s.kind !== "dummy") box.append(link(`invite ${G.label(s.seat)}`, s.url));
  }
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text);
  }

  function renderSummary(G, st) {
    const box = $("#summary");
    const sm = st.summary;
    const show = !!sm && T.summaryClosed !== (st.hand && st.hand.number) && !(T.summaryHold > Date.now());
    if (!show) { setHidden(box, true); return; }
    const wasHidden = box.hidden;
    setHidden(box, false);
    if (memo.changed("summary", JSON.stringify([sm, st.ready, st.status, T.sheet, T.seats, st.you.seat]))) {
      const body = $("#summary-body");
      body.replaceChildren(summaryNode(G, sm, T.seats, T.sheet, scoredTricks(T.log)));
      const buttons = el("div", { class: "buttons" });
      if (st.status === "finished" || st.status === "abandoned") {
        if (st.status === "finished") $("#summary-h", body).after(finalResult(G, T.sheet, T.seats));
        const q = accessQuery(params);
        buttons.append(el("a", { class: "button", id: "record-link", href: `/api/games/${tid}/record${q}`, download: `quintet-${tid}.json` }, "Download the record"),
          el("a", { class: "button", href: `/replay/${tid}${q}` }, "Replay with analysis"),
          el("a", { class: "button", href: "/" }, "Back to the lobby"));
      } else if (st.you.seat !== null) {
        const ready = st.ready.includes(st.you.seat);
        const waiting = T.seats.filter((s) => s.kind === "person" && s.connected && !st.ready.includes(s.seat) && s.seat !== st.you.seat);
        buttons.append(el("button", { type: "button", class: "primary", id: "summary-next", disabled: ready, onclick: () => send({ type: "next" }) }, ready ? "Ready" : "Next hand (n)"));
        if (ready && waiting.length) buttons.append(el("span", { class: "muted", text: `waiting for ${waiting.map((s) => s.name).join(", ")}` }));
      } else buttons.append(el("span", { class: "muted", text: "The next hand is dealt when the players are ready." }));
      $(".deal-h", body).before(buttons);
      if (social) social.refreshEnd(); // social: the rematch button on the end screen
    }
    if (wasHidden) { const b = $("#summary-next") || $("#record-link"); if (b) b.focus(); }
  }

  // The tricks of the hand that scored (quints, premiums), from its log, for the summary.
  function scoredTricks(log) {
    const out = [];
    let n = 0;
    for (let i = 0; i < log.length; i++) {
      const e = log[i];
      if (e.kind === "trick") {
        n += 1;
        if (e.points) out.push({ trick: n, seat: e.seat, points: e.points, what: e.text.includes(": ") ? e.text.slice(e.text.indexOf(": ") + 2) : "" });
      } else if (e.kind === "premium") out.push({ trick: n, seat: e.seat, points: e.points, what: e.action ? actionText(e.action) : "premium" });
      else if (e.kind === "cachette" && e.points) out.push({ trick: null, side: e.seat, points: e.points, what: e.text.includes(": ") ? e.text.slice(e.text.indexOf(": ") + 2) : "" });
    }
    return out;
  }

  function renderLastTrick() {
    const box = $("#lasttrick");
    if (box.hidden || !T.state || !T.G) return;
    const lt = T.state.last_trick, G = T.G;
    if (!memo.changed("lasttrick", JSON.stringify([lt, T.seats]))) return;
    if (!lt) { box.replaceChildren(el("p", { class: "muted", text: "No trick completed yet in this hand." })); return; }
    box.replaceChildren(el("button", { type: "button", class: "close ghost", "aria-label": "Close the last trick", onclick: () => toggleLast() }, "×"),
      el("h2", { text: `Last trick: ${displayName(T.seats, G, lt.winner)} won it${lt.points ? ` (${lt.points} points)` : ""}` }),
      el("div", { class: "cards" }, ...lt.cards.map((t) => el("figure", { class: t.seat === lt.winner ? "winner" : "" },
        Cards.node(t.card, { size: "mid", label: `${G.label(t.seat)}: ${Cards.name(t.card)}` }),
        el("figcaption", { text: displayName(T.seats, G, t.seat) })))));
  }

  function renderJoin(G) {
    const box = $("#joinbox");
    const st = T.state;
    const seat = T.joinSeat;
    const row = seat !== null && T.seats[seat];
    const ok = st.you.seat === null && row && (row.kind === "open" || (row.kind === "bot" && inviteFor(seat))) && !isOver(st);
    if (!ok) { setHidden(box, true); return; }
    const wasHidden = box.hidden;
    setHidden(box, false);
    setText($("#join-seat"), `${G.label(seat)}${row.kind === "bot" ? ` (now a ${row.level} bot)` : ""}`);
    if (wasHidden) {
      const input = $("#join-name");
      if (!input.value) input.value = store.get("quintet:name") || "";
    }
  }

  connect();
}

// The bot speeds (seconds a bot's action waits, and a bot's lead after a finished
// trick); "table" follows the server's bot delay.
const PACES = {
  table: { card: null, trick: null },
  fast: { card: 0.3, trick: 1 },
  normal: { card: 0.8, trick: 2.5 },
  slow: { card: 1.5, trick: 4 },
};
// Each sound's tones: [frequency, start, length] in Hz and seconds.
const TONES = {
  on: [[660, 0, 0.08]],
  card: [[420, 0, 0.05]],
  turn: [[660, 0, 0.09], [880, 0.11, 0.12]],
  trick: [[330, 0, 0.12]],
  won: [[523, 0, 0.09], [784, 0.1, 0.16]],
};
const PHASE_WHAT = { auction: "bid or pass", trump: "name trump", nil: "declare nil or not", meld: "meld or decline", play: "play a card" };
// The doubling round's choices as they stand: "pass or double", "pass or redouble".
function doublingWords(legal) {
  const kinds = [...new Set((legal || []).map((a) => a.type))];
  if (kinds.length < 2) return kinds.length ? kinds[0] : "decide";
  return `${kinds.slice(0, -1).join(", ")} or ${kinds[kinds.length - 1]}`;
}
