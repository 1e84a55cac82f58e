// quintet: the DOM helpers of the pages (no framework). Elements are built with el();
// the live pages update them with the setters and list helpers below, which touch the
// DOM only where what it shows has changed (a node kept keeps its focus, its scroll and
// its CSS transitions; a MutationObserver sees only the changes).

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v; // CSSOM: allowed by the page's CSP
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined && kid !== false) e.append(kid);
  return e;
}

// ------------------------------------------------------------ setters
// Each leaves the node alone when it already shows the value.

// The text of a node without element children.
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}
export function setDisabled(node, disabled) {
  if (node.disabled !== disabled) node.disabled = disabled;
}
export function setClass(node, cls) {
  if (node.className !== cls) node.className = cls;
}
// An attribute: null, undefined or false removes it, true sets it empty.
export function setAttr(node, name, value) {
  if (value === null || value === undefined || value === false) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
    return;
  }
  const v = value === true ? "" : String(value);
  if (node.getAttribute(name) !== v) node.setAttribute(name, v);
}

// ------------------------------------------------------------ sections

// The keys of the sections of a page: a section is drawn again only when the key of
// what it shows (a string, usually JSON of its inputs) differs from the last one.
export class Memo {
  constructor() { this.keys = new Map(); }
  changed(name, key) {
    if (this.keys.has(name) && this.keys.get(name) === key) return false;
    this.keys.set(name, key);
    return true;
  }
  forget(name) { this.keys.delete(name); }
}

// An element whose children are named parts in a fixed order, each one made again only
// when its key changes; a part's make() may return null (no node).
export class Parts {
  constructor(box, names) {
    this.box = box;
    this.names = names;
    this.keys = new Map();
    this.nodes = new Map();
  }
  set(name, key, make) {
    if (this.keys.has(name) && this.keys.get(name) === key) return this.nodes.get(name);
    this.keys.set(name, key);
    const node = make() || null;
    const old = this.nodes.get(name) || null;
    if (old && node) old.replaceWith(node);
    else if (old) old.remove();
    else if (node) {
      const later = this.names.slice(this.names.indexOf(name) + 1).map((n) => this.nodes.get(n)).find(Boolean);
      this.box.insertBefore(node, later || null);
    }
    this.nodes.set(name, node);
    return node;
  }
}

// ------------------------------------------------------------ lists

const KEYED = new WeakMap();

// The children of `parent` made the list `items` ({key, make, update?}): a child whose
// key is still in the list is kept (and updated in place), the others are removed, the
// new ones made; a kept child is moved only when the order asks it. `parent` holds
// nothing else.
export function keyed(parent, items) {
  const old = KEYED.get(parent) || new Map();
  const wanted = new Set(items.map((it) => it.key));
  for (const [k, node] of old) if (!wanted.has(k)) node.remove();
  const now = new Map();
  let ref = parent.firstChild;
  for (const it of items) {
    let node = old.get(it.key);
    if (node) { if (it.update) it.update(node); }
    else node = it.make();
    now.set(it.key, node);
    if (node === ref) ref = ref.nextSibling;
    else parent.insertBefore(node, ref);
  }
  KEYED.set(parent, now);
}

const LISTED = new WeakMap();

// A list that mostly grows at its end (a log): the children after the longest common
// beginning of the old and new keys are replaced by new ones. Returns whether it changed.
export function grow(parent, items, keyOf, make) {
  const old = LISTED.get(parent) || [];
  const keys = items.map(keyOf);
  let same = 0;
  while (same < old.length && same < keys.length && old[same] === keys[same]) same++;
  if (same === old.length && same === keys.length) return false;
  while (parent.childNodes.length > same) parent.lastChild.remove();
  parent.append(...items.slice(same).map(make));
  LISTED.set(parent, keys);
  return true;
}

// ------------------------------------------------------------ the browser

export const store = {
  get: (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } },
  set: (k, v) => { try { localStorage.setItem(k, v); } catch (e) { /* private mode */ } },
  del: (k) => { try { localStorage.removeItem(k); } catch (e) { /* private mode */ } },
};

export const tokenKey = (tid) => `quintet:token:${tid}`;

// A private table's link carries its view key (or a seat's invite): passed on to the API
// so that a link holder sees its record and replay. Players are known by their cookie.
export function accessQuery(params) {
  const q = new URLSearchParams();
  for (const k of ["key", "invite"]) if (params.get(k)) q.set(k, params.get(k));
  const text = q.toString();
  return text ? `?${text}` : "";
}

export function fourColourToggle() {
  const box = $("#fourcolor");
  const on = store.get("quintet:fourcolor") === "1";
  document.body.classList.toggle("four-color", on);
  if (!box) return;
  box.checked = on;
  box.addEventListener("change", () => {
    store.set("quintet:fourcolor", box.checked ? "1" : "0");
    document.body.classList.toggle("four-color", box.checked);
  });
}
