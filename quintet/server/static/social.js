// quintet: the table's social side (in <section id="social">): the Invite button with the
// link's QR code (and, signed in, an invitation to a friend), the chat, take-back and
// claim requests and the answers to them, the turn clock, the rematch, the series, the
// draw and the signals' meanings. table.js hands it the messages it does not handle
// itself and every state. Whatever people write is put in the page as text
// (textContent), never as markup.

import { $, el, store, tokenKey, setHidden, setText, setDisabled } from "./dom.js";
import { resultText } from "./sheet.js";

export class Social {
  constructor({ send, tid, T }) {
    this.send = send;
    this.tid = tid;
    this.T = T;
    this.params = new URLSearchParams(location.search);
    this.root = $("#social");
    this.clock = null;      // {seat, left, at}
    this.rematch = null;    // the rematch message
    this.inviteShown = null;
    this.chatMax = 300;
    this.seenChat = new Set();
    this.build();
    fetch("/api/info").then((r) => r.json()).then((info) => {
      this.chatMax = info.chat_length || 300;
      this.chatInput.maxLength = this.chatMax;
    }).catch(() => {});
    setInterval(() => this.tick(), 250);
  }

  label(s) {
    const G = this.T.G;
    return G ? G.label(s) : `seat ${s}`;
  }

  build() {
    const r = this.root;
    if (!r) return;
    this.inviteBtn = el("button", { type: "button", id: "invite-btn", class: "invite-btn", "aria-expanded": "false", "aria-controls": "invite-box",
      onclick: () => this.toggleInvite() }, "Invite");
    this.inviteBox = el("div", { id: "invite-box", class: "invite-box", hidden: true });
    this.clockLine = el("p", { id: "clock", class: "clock", "aria-live": "polite", hidden: true });
    this.question = el("div", { id: "question", class: "question", role: "alertdialog", "aria-live": "assertive", hidden: true });
    this.takebackBtn = el("button", { type: "button", id: "takeback-btn", title: "Ask to take back your last decision",
      onclick: () => this.send({ type: "takeback" }) }, "Take back");
    this.claimBtn = el("button", { type: "button", id: "claim-btn", title: "Claim every remaining trick for your side",
      onclick: () => this.send({ type: "claim" }) }, "Claim the rest");
    this.note = el("p", { id: "social-note", class: "social-note", "aria-live": "polite" });
    this.rematchBtn = el("button", { type: "button", id: "rematch-btn", class: "primary", hidden: true,
      onclick: () => this.send({ type: "rematch" }) }, "Rematch");
    this.rematchLink = el("a", { id: "rematch-link", class: "button primary", hidden: true, href: "#" }, "Go to the rematch");
    this.series = el("div", { id: "series", class: "series small", hidden: true });
    this.drawn = el("p", { id: "drawn", class: "drawn small", hidden: true });
    this.signals = el("details", { id: "signals", class: "signals", hidden: true });
    this.chatLog = el("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite", "aria-label": "the table's chat" });
    this.chatInput = el("input", { id: "chat-input", name: "chat", autocomplete: "off", maxlength: "300", placeholder: "Say something to the table", "aria-label": "chat message" });
    this.chatForm = el("form", { id: "chat-form", class: "chat-form" }, this.chatInput, el("button", { type: "submit", id: "chat-send" }, "Send"));
    this.chatForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = this.chatInput.value.trim();
      if (!text) return;
      if (this.send({ type: "chat", text })) this.chatInput.value = "";
    });
    r.replaceChildren(
      el("div", { class: "social-bar" }, this.inviteBtn, this.takebackBtn, this.claimBtn, this.rematchBtn, this.rematchLink),
      this.inviteBox, this.question, this.clockLine, this.note, this.series, this.drawn, this.signals,
      el("h2", { class: "chat-h", text: "Chat" }), this.chatLog, this.chatForm);
  }

  // ---------------------------------------------------------------- messages
  onMessage(m) {
    switch (m.type) {
      case "chat":
        for (const line of m.lines) this.addChat(line);
        return true;
      case "rematch":
        this.rematch = m;
        if (m.token) store.set(tokenKey(m.table), m.token);
        this.rematchLink.href = m.url;
        setHidden(this.rematchLink, false);
        setHidden(this.rematchBtn, true);
        if (this.T.state) this.endScreen(this.T.state.status === "finished" && this.T.me.role === "player", null);
        this.say(m.token ? "The rematch is ready: your seat is kept for you." : "A rematch has started.");
        return true;
      case "claim_result":
        this.say(m.text);
        return true;
      case "moved":
        this.say(`The draw moved you to ${this.label(m.seat)}.`);
        return true;
      default:
        return false;
    }
  }

  say(text) { setText(this.note, text); }

  addChat(line) {
    if (this.seenChat.has(line.n)) return;
    this.seenChat.add(line.n);
    const when = new Date(line.at);
    const time = isNaN(when) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    const who = line.seat === null ? line.name : `${line.name} (${this.label(line.seat)})`;
    const li = el("li", { "data-n": `${line.n}` },
      el("span", { class: "chat-who", text: who }), " ",
      el("span", { class: "chat-text", text: line.text }), " ",
      el("time", { class: "chat-time muted", text: time }));
    this.chatLog.append(li);
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
  }

  // ------------------------------------------------------------------- state
  onState(m) {
    if (!this.root) return;
    const soc = m.social || {};
    const me = m.you || {};
    const seated = me.role === "player";
    const playing = m.status === "playing";
    const openSeats = (this.T.seats || []).filter((s) => s.kind === "open").length;
    // Invite: prominent while seats wait for people.
    this.inviteBtn.classList.toggle("primary", openSeats > 0);
    setText(this.inviteBtn, openSeats > 0 ? `Invite a friend (${openSeats} open seat${openSeats > 1 ? "s" : ""})` : "Invite to watch");
    if (!this.inviteBox.hidden && this.inviteShown !== openSeats) this.showInvite();
    // Requests.
    setHidden(this.takebackBtn, !(seated && playing));
    setHidden(this.claimBtn, !(seated && playing && m.hand && m.hand.phase === "play"));
    setDisabled(this.takebackBtn, !!soc.question);
    setDisabled(this.claimBtn, !!soc.question);
    this.renderQuestion(soc.question, me);
    // The clock.
    this.clock = soc.clock ? { ...soc.clock, at: Date.now() } : null;
    this.tick();
    // Rematch.
    const finished = m.status === "finished";
    if (soc.rematch && !this.rematch) {
      this.rematchLink.href = soc.rematch.url;
      setHidden(this.rematchLink, false);
    }
    setHidden(this.rematchBtn, !(finished && seated && !soc.rematch && !this.rematch));
    if (finished && seated && soc.rematch && !this.rematch) {
      // A reload after the rematch was made: ask again for this seat's link there.
      this.rematch = { pending: true };
      this.send({ type: "rematch" });
    }
    this.endScreen(finished && seated, soc.rematch);
    this.renderSeries();
    this.renderDrawn(soc.drawn);
    this.renderSignals();
  }

  // The end screen (the final summary, drawn by table.js) gets the rematch button too.
  endScreen(show, made) {
    this.lastEnd = { show, made };
    const buttons = document.querySelector("#summary-body .buttons");
    const old = document.querySelector("#rematch-end");
    if (!show || !buttons) { if (old) old.remove(); return; }
    const link = this.rematch && this.rematch.url ? this.rematch.url : made ? made.url : null;
    const want = link ? "link" : "button";
    if (old && old.dataset.kind === want) return;
    if (old) old.remove();
    const node = link
      ? el("a", { id: "rematch-end", class: "button primary", href: link, "data-kind": "link" }, "Go to the rematch")
      : el("button", { type: "button", id: "rematch-end", class: "primary", "data-kind": "button", onclick: () => this.send({ type: "rematch" }) }, "Rematch: the same seats again");
    buttons.prepend(node);
  }

  // table.js draws the summary again (after the last trick's pause, or when it
  // changes): the rematch button goes back in.
  refreshEnd() {
    if (this.lastEnd) this.endScreen(this.lastEnd.show, this.lastEnd.made);
  }

  renderQuestion(q, me) {
    if (!q) { setHidden(this.question, true); this.questionN = null; return; }
    const mine = me.seat !== null && q.waiting.includes(me.seat);
    const key = `${q.n}:${mine}:${q.waiting.join(",")}`;
    setHidden(this.question, false);
    if (this.questionKey === key) return;
    this.questionKey = key;
    const waiting = q.waiting.map((s) => this.label(s)).join(", ");
    const kids = [el("p", { class: "q-text", text: `${q.text}.` })];
    if (mine) {
      kids.push(el("div", { class: "q-buttons" },
        el("button", { type: "button", id: "q-accept", class: "primary", onclick: () => this.send({ type: "answer", question: q.n, accept: true }) }, "Accept"),
        el("button", { type: "button", id: "q-refuse", onclick: () => this.send({ type: "answer", question: q.n, accept: false }) }, "Refuse")));
    } else {
      kids.push(el("p", { class: "muted small", text: `Waiting for ${waiting}.` }));
    }
    this.question.replaceChildren(...kids);
  }

  tick() {
    const c = this.clock;
    if (!c || !this.clockLine) { if (this.clockLine) setHidden(this.clockLine, true); return; }
    const left = Math.max(0, c.left - (Date.now() - c.at) / 1000);
    setHidden(this.clockLine, false);
    this.clockLine.classList.toggle("late", left < 10);
    setText(this.clockLine, `${this.label(c.seat)} to play: ${Math.ceil(left)} s left (then the bot plays)`);
  }

  renderSeries() {
    const cfg = this.T.config;
    const s = cfg && cfg.series;
    if (!s) { setHidden(this.series, true); return; }
    if (this.seriesFor === s.number) return;
    this.seriesFor = s.number;
    setHidden(this.series, false);
    const rows = (s.games || []).map((g, i) => el("li", {},
      `Game ${s.number - s.games.length + i}`, g.lone_seat !== null && g.lone_seat !== undefined ? ` (${this.label(g.lone_seat)} alone)` : "",
      `: ${this.T.G && g.result ? resultText(this.T.G, g.result, this.T.seats || []) : "not finished"}`));
    this.series.replaceChildren(el("p", { class: "series-h", text: `Game ${s.number} of a series` }), el("ol", { class: "series-games" }, ...rows));
  }

  renderDrawn(drawn) {
    if (!drawn || !drawn.length) { setHidden(this.drawn, true); return; }
    setHidden(this.drawn, false);
    setText(this.drawn, `The draw for partners: ${drawn.map((d) => `${this.label(d.seat)} ${d.card}`).join(", ")}.`);
  }

  renderSignals() {
    const cfg = this.T.config;
    const sig = cfg && cfg.signals;
    if (!sig) { setHidden(this.signals, true); return; }
    if (this.signalsShown) return;
    this.signalsShown = true;
    setHidden(this.signals, false);
    const marks = { up: "↑", down: "↓", ask: "?" };
    this.signals.open = true;
    this.signals.replaceChildren(
      el("summary", { text: "Signals (agreed before play)" }),
      el("dl", { class: "signal-list" }, ...Object.entries(sig).flatMap(([k, v]) => [
        el("dt", { text: `${marks[k] || ""} ${k}` }), el("dd", { text: v })])));
  }

  // ------------------------------------------------------------------ invite
  toggleInvite() {
    const open = this.inviteBox.hidden;
    setHidden(this.inviteBox, !open);
    this.inviteBtn.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) this.showInvite(true);
  }

  async showInvite(copy = false) {
    const token = store.get(tokenKey(this.tid));
    const openSeat = (this.T.seats || []).find((s) => s.kind === "open");
    this.inviteShown = (this.T.seats || []).filter((s) => s.kind === "open").length;
    let path = null, seat = null;
    if (token && openSeat) {
      try {
        const r = await fetch(`/api/tables/${this.tid}/invites`, { headers: { "x-seat-token": token } });
        if (r.ok) {
          const inv = await r.json();
          const row = inv.seats.find((x) => x.seat === openSeat.seat);
          if (row) { path = row.url; seat = row.seat; }
          else path = inv.spectate;
        }
      } catch (e) { /* the watch link below */ }
    }
    const access = new URLSearchParams();
    if (this.params.get("key")) access.set("key", this.params.get("key"));
    if (!path) path = `/table/${this.tid}${access.toString() ? `?${access}` : ""}`;
    const url = new URL(path, location.origin).href;
    const qs = new URLSearchParams(access);
    if (seat !== null) qs.set("seat", `${seat}`);
    const img = el("img", { id: "invite-qr", class: "invite-qr", alt: `QR code of the link ${url}`, width: "180", height: "180",
      src: `/api/tables/${this.tid}/qr.svg${qs.toString() ? `?${qs}` : ""}` });
    const input = el("input", { id: "invite-url", class: "invite-url", readonly: true, value: url, "aria-label": "the invite link" });
    const copied = el("span", { class: "copied small", "aria-live": "polite" });
    const copyBtn = el("button", { type: "button", id: "invite-copy", onclick: () => this.copy(url, input, copied) }, "Copy link");
    const what = seat !== null ? `Invite someone to ${this.label(seat)}` : "Invite someone to watch";
    this.inviteBox.replaceChildren(el("p", { class: "invite-what", text: what }), el("div", { class: "invite-row" }, input, copyBtn), copied,
      img, el("p", { class: "muted small", text: "Or scan it with the phone next to you." }));
    if (copy) this.copy(url, input, copied);
    this.friendInvite();
  }

  // "Invite a friend": a player signed in picks a friend (both asked each other) and an
  // open seat or a bot's; the invitation waits in the friend's lobby with the seat's link.
  async friendInvite() {
    const n = (this.friendInviteN = (this.friendInviteN || 0) + 1);
    const token = store.get(tokenKey(this.tid));
    const seats = (this.T.seats || []).filter((s) => s.kind === "open" || s.kind === "bot");
    if (!token || !seats.length) return;
    let data;
    try {
      const me = await (await fetch("/api/account")).json();
      if (!me.account) return; // a guest: no friends to invite
      const r = await fetch("/api/friends");
      if (!r.ok) return;
      data = await r.json();
    } catch (e) { return; }
    if (n !== this.friendInviteN || this.inviteBox.hidden) return;
    const old = $("#friend-invite");
    if (old) old.remove();
    const friends = data.friends || [];
    const form = el("form", { id: "friend-invite", class: "friend-invite" }, el("p", { class: "invite-what", text: "Invite a friend to a seat" }));
    if (!friends.length) {
      form.append(el("p", { class: "muted small", text: "Once you and a friend have asked each other (the lobby's Friends panel), you invite them here." }));
      this.inviteBox.append(form);
      return;
    }
    const who = el("select", { id: "invite-friend", name: "friend", "aria-label": "the friend to invite" },
      ...friends.map((f) => el("option", { value: f.name, text: f.online ? `${f.name} (online)` : f.name })));
    const open = seats.find((s) => s.kind === "open");
    const where = el("select", { id: "invite-seat", name: "seat", "aria-label": "the seat" },
      ...seats.map((s) => el("option", { value: `${s.seat}`, text: s.kind === "bot" ? `${this.label(s.seat)} (now a ${s.level} bot)` : `${this.label(s.seat)} (open)` })));
    if (open) where.value = `${open.seat}`;
    const said = el("p", { id: "invite-friend-note", class: "small", role: "status" });
    const button = el("button", { type: "submit", id: "invite-friend-btn", class: "primary" }, "Invite");
    form.append(el("div", { class: "invite-row" }, who, where, button), said);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      button.disabled = true;
      const seat = Number(where.value), friend = who.value;
      try {
        const r = await fetch(`/api/tables/${this.tid}/invite`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-seat-token": store.get(tokenKey(this.tid)) || "" },
          body: JSON.stringify({ seat, friend }),
        });
        const out = await r.json().catch(() => ({}));
        said.classList.toggle("bad", !r.ok);
        setText(said, r.ok
          ? `${friend} is invited to ${this.label(seat)}: the invitation waits in ${friend}'s lobby.`
          : (out.error && out.error.message) || `The server said ${r.status}.`);
      } catch (e) {
        said.classList.add("bad");
        setText(said, "The server did not answer; try again.");
      } finally {
        button.disabled = false;
      }
    });
    this.inviteBox.append(form);
  }

  async copy(url, input, copied) {
    try {
      await navigator.clipboard.writeText(url);
      setText(copied, "Link copied.");
    } catch (e) {
      input.select();
      setText(copied, "Select the link and copy it.");
    }
  }
}
