// quintet: the lobby's account and friends (docs/server.md, "Accounts" and "Friends").
// A guest sees the sign-in box (user name, password; each error next to its field); a
// signed-in player sees the account menu in the header (the profile, the password, log
// out) and the Friends panel: ask by user name, the friends with where they are, the
// requests to answer and the invitations to a seat, asked for every poll_seconds. Every
// name is put in the page as text (textContent), never as markup.

import { $, el, store, setHidden, setText } from "./dom.js";

const JSON_HEADERS = { "content-type": "application/json" };

// POST (or DELETE) a JSON body; return {ok, status, body} (body {} when not JSON).
export async function send(path, body = {}, method = "POST") {
  const r = await fetch(path, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
  let out = {};
  try { out = await r.json(); } catch (e) { /* no body */ }
  return { ok: r.ok, status: r.status, body: out };
}

// Who this browser is: {account: {name, created_at} or null (a guest), enabled: whether
// the server has accounts at all}.
export async function whoAmI() {
  try {
    const r = await fetch("/api/account");
    if (!r.ok) return { account: null, enabled: false };
    const out = await r.json();
    return { account: out.account || null, enabled: out.accounts !== false };
  } catch (e) { return { account: null, enabled: true }; }
}

// The signed-in account ({name, created_at}) or null for a guest.
export async function currentAccount() {
  return (await whoAmI()).account;
}

// An error's words for a person (with the wait of a 429).
function errorText(res) {
  const e = (res.body && res.body.error) || {};
  if (!e.message) return res.status ? `The server said ${res.status}: try again.` : "The server did not answer; try again.";
  const wait = e.retry_after ? ` (try again in ${e.retry_after} s)` : "";
  return `${e.message}${wait}`;
}

// Show a refusal next to its field (fields maps a field name to its error node), or in
// the form's own line.
function showError(res, fields, general) {
  for (const node of Object.values(fields)) setText(node, "");
  setText(general, "");
  const e = (res.body && res.body.error) || {};
  const node = e.field && fields[e.field];
  setText(node || general, errorText(res));
  const input = node && document.querySelector(`[aria-describedby~="${node.id}"]`);
  if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
}

// The Friends panel's line: what was done, or why not (bad).
function note(text, bad = false) {
  const n = $("#friend-error");
  setText(n, text);
  n.classList.toggle("bad", bad);
}

function clearErrors(form) {
  for (const n of form.querySelectorAll(".field-error, .error")) setText(n, "");
  for (const n of form.querySelectorAll("[aria-invalid]")) n.removeAttribute("aria-invalid");
}

export class Account {
  // onChange(account | null) is called whenever who is signed in changes.
  constructor({ onChange }) {
    this.onChange = onChange || (() => {});
    this.account = undefined;
    this.timer = null;
    this.pollSeconds = 5;
    this.signin = $("#signin");
    this.menu = $("#account-menu");
    this.panel = $("#friends-panel");
    this.bind();
  }

  async start() {
    const me = await whoAmI();
    this.enabled = me.enabled;
    this.set(me.account);
  }

  set(account) {
    const same = this.account !== undefined && JSON.stringify(this.account) === JSON.stringify(account);
    this.account = account;
    const guest = !account;
    // A server without accounts: no sign-in box at all.
    setHidden($("#account-panel"), !guest || this.enabled === false);
    setHidden($("#signin-link"), !guest || this.enabled === false);
    setHidden(this.menu, guest);
    setHidden(this.panel, guest);
    if (account) {
      setText($("#account-name"), account.name);
      $("#profile-link").href = `/players/${encodeURIComponent(account.name)}`;
      if (!store.get("quintet:name")) store.set("quintet:name", account.name);
    } else {
      this.menu.open = false;
    }
    clearTimeout(this.timer);
    this.timer = null;
    if (account) this.poll();
    if (!same) this.onChange(account);
  }

  bind() {
    const form = this.signin;
    const fields = { name: $("#acc-name-error"), password: $("#acc-password-error") };
    const general = $("#signin-error");
    const go = async (kind) => {
      clearErrors(form);
      const name = form.elements.username.value.trim();
      const password = form.elements.password.value;
      if (!name) { setText(fields.name, "Give your user name."); form.elements.username.focus(); return; }
      if (!password) { setText(fields.password, "Give your password."); form.elements.password.focus(); return; }
      for (const b of form.querySelectorAll("button")) b.disabled = true;
      try {
        const res = await send(`/api/account/${kind}`, { name, password });
        if (!res.ok) { showError(res, fields, general); return; }
        form.elements.password.value = "";
        this.set(res.body.account || (await currentAccount()));
      } catch (e) {
        setText(general, "The server did not answer; try again.");
      } finally {
        for (const b of form.querySelectorAll("button")) b.disabled = false;
      }
    };
    form.addEventListener("submit", (ev) => { ev.preventDefault(); go("login"); });
    $("#signup-btn").addEventListener("click", () => {
      form.elements.password.autocomplete = "new-password";
      go("signup");
    });
    $("#signin-link").addEventListener("click", (ev) => {
      ev.preventDefault();
      $("#account-panel").scrollIntoView({ block: "start" });
      form.elements.username.focus();
    });

    $("#logout-btn").addEventListener("click", async () => {
      await send("/api/account/logout").catch(() => null);
      this.set(await currentAccount());
    });

    const pw = $("#password-form");
    const pwFields = { old: $("#pw-old-error"), new: $("#pw-new-error") };
    pw.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      clearErrors(pw);
      const res = await send("/api/account/password", { old: pw.elements.old.value, new: pw.elements.new.value })
        .catch(() => ({ ok: false, status: 0, body: {} }));
      if (!res.ok) { showError(res, pwFields, $("#pw-error")); return; }
      pw.reset();
      setText($("#pw-error"), "Password changed: your other sessions are logged out.");
    });

    const add = $("#add-friend");
    add.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const input = $("#friend-name");
      const name = input.value.trim();
      note("");
      if (!name) { note("Give your friend's user name.", true); input.focus(); return; }
      const res = await send("/api/friends", { name }).catch(() => ({ ok: false, status: 0, body: {} }));
      if (!res.ok) { note(errorText(res), true); input.setAttribute("aria-invalid", "true"); input.focus(); return; }
      input.value = "";
      input.removeAttribute("aria-invalid");
      const f = res.body.friend;
      note(f.status === "friends" ? `You and ${f.name} are friends.` : `Asked ${f.name}: you are friends once ${f.name} asks you back.`);
      this.asked = f.status === "friends" ? null : f.name;
      this.refresh();
    });
  }

  // ------------------------------------------------------------------ friends
  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), this.pollSeconds * 1000);
    if (!document.hidden) this.refresh();
  }

  async refresh() {
    let data;
    try {
      const r = await fetch("/api/friends");
      if (r.status === 401) { this.set(null); return; }
      if (!r.ok) return;
      data = await r.json();
    } catch (e) { return; /* the server may be restarting: next time */ }
    if (!this.account) return;
    this.pollSeconds = data.poll_seconds || this.pollSeconds;
    this.render(data);
  }

  render(data) {
    this.renderInvites(data.invites || []);
    this.renderRequests(data.asking_you || []);
    this.renderFriends(data.friends || []);
    this.renderAsked(data.asked || []);
  }

  renderInvites(invites) {
    const box = $("#invitations");
    setHidden($("#invitations-h"), !invites.length);
    const key = JSON.stringify(invites.map((i) => [i.from, i.url, i.table.title]));
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...invites.map((i) => el("li", { class: "invite", "data-from": i.from },
      el("span", { class: "who", text: i.from }),
      el("span", { text: ` invites you to ${i.seat_label} at ` }),
      el("span", { class: "tname", text: i.table.title || `${i.table.game} · ${i.table.variant}` }),
      el("div", { class: "links" },
        el("a", { class: "button primary join-invite", href: i.url, onclick: () => { if (!store.get("quintet:name") && this.account) store.set("quintet:name", this.account.name); } }, "Join")))));
  }

  renderRequests(rows) {
    const box = $("#friend-requests");
    setHidden($("#friend-requests-h"), !rows.length);
    const key = JSON.stringify(rows);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...rows.map((r) => el("li", { class: "friend-row", "data-name": r.name },
      el("span", { class: "who", text: r.name }),
      el("span", { class: "muted small", text: " asks to be your friend" }),
      el("span", { class: "row-buttons" },
        el("button", { type: "button", class: "primary accept", onclick: () => this.act(send("/api/friends", { name: r.name })) }, "Accept"),
        el("button", { type: "button", class: "refuse", onclick: () => this.act(send(`/api/friends/${encodeURIComponent(r.name)}`, {}, "DELETE")) }, "Refuse")))));
  }

  renderFriends(rows) {
    const box = $("#friend-list");
    // The note "Asked X" is said: X asked back.
    if (this.asked && rows.some((f) => f.name === this.asked)) { note(""); this.asked = null; }
    const key = JSON.stringify(rows);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    if (!rows.length) { box.replaceChildren(el("li", { class: "muted small", text: "No friends yet: ask one by user name." })); return; }
    box.replaceChildren(...rows.map((f) => {
      let where;
      if (f.where === "table" && f.table) {
        where = el("span", { class: "where" }, f.playing ? "playing at " : "watching ",
          el("a", { href: f.table.url, text: f.table.title || `${f.table.game} · ${f.table.variant}` }));
      } else {
        where = el("span", { class: "where", text: { lobby: "in the lobby", private_table: "at a private table", offline: "offline" }[f.where] || "" });
      }
      return el("li", { class: `friend-row ${f.online ? "online" : "offline"}`, "data-name": f.name },
        el("span", { class: "presence", "aria-hidden": "true" }),
        el("span", { class: "who", text: f.name }),
        el("span", { class: "muted small" }, " — ", where),
        el("span", { class: "row-buttons" },
          el("a", { class: "small", href: `/players/${encodeURIComponent(f.name)}` }, "profile"),
          el("button", { type: "button", class: "ghost small remove", title: `Remove ${f.name} from your friends`,
            // The first tap asks, the second removes.
            onclick: (ev) => {
              const b = ev.currentTarget;
              if (!b.dataset.sure) { b.dataset.sure = "1"; setText(b, "Remove? Tap again"); return; }
              this.act(send(`/api/friends/${encodeURIComponent(f.name)}`, {}, "DELETE"));
            } }, "Remove")));
    }));
  }

  renderAsked(rows) {
    const box = $("#friend-asked");
    setHidden($("#friend-asked-h"), !rows.length);
    const key = JSON.stringify(rows);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...rows.map((r) => el("li", { class: "friend-row", "data-name": r.name },
      el("span", { class: "who", text: r.name }),
      el("span", { class: "muted small", text: " has not answered yet" }),
      el("span", { class: "row-buttons" },
        el("button", { type: "button", class: "ghost small", onclick: () => this.act(send(`/api/friends/${encodeURIComponent(r.name)}`, {}, "DELETE")) }, "Take back")))));
  }

  async act(request) {
    const res = await request.catch(() => ({ ok: false, status: 0, body: {} }));
    note(res.ok ? "" : errorText(res), !res.ok);
    this.refresh();
  }
}
