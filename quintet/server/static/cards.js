// quintet: playing cards drawn as SVG (no images, no fonts needed for the pips).
// Card codes are rank then suit ("QH", "TS", "2C") and "JK" for the joker, drawn as
// Goodall's Quint Royal: five crowns and the words QUINT ROYAL. An ES module.

export const Cards = (() => {
  const RANKS = "23456789TJQKA";
  const SUIT_NAMES = { S: "spades", C: "clubs", D: "diamonds", H: "hearts" };
  const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };
  const RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
  };
  const RANK_SHORT = { T: "10" };

  // Suit shapes in a 100 × 100 box.
  const SUIT_PATHS = {
    H: "M50 96 C34 80 2 60 2 32 C2 14 15 3 30 3 C40 3 47 9 50 18 C53 9 60 3 70 3 C85 3 98 14 98 32 C98 60 66 80 50 96 Z",
    D: "M50 2 C60 20 74 36 90 50 C74 64 60 80 50 98 C40 80 26 64 10 50 C26 36 40 20 50 2 Z",
    S: "M50 2 C62 22 98 40 98 64 C98 79 86 88 73 88 C64 88 57 84 54 78 C55 88 60 94 70 98 L30 98 C40 94 45 88 46 78 C43 84 36 88 27 88 C14 88 2 79 2 64 C2 40 38 22 50 2 Z",
    C: "M50 4 A21 21 0 0 1 67 38 A21 21 0 1 1 56 70 C57 82 62 92 72 98 L28 98 C38 92 43 82 44 70 A21 21 0 1 1 33 38 A21 21 0 0 1 50 4 Z",
  };

  // Pip centres for 2..10 in the 100 × 140 card (x, y, upside down).
  const L = 30, C = 50, R = 70;
  const PIPS = {
    2: [[C, 30, 0], [C, 110, 1]],
    3: [[C, 30, 0], [C, 70, 0], [C, 110, 1]],
    4: [[L, 30, 0], [R, 30, 0], [L, 110, 1], [R, 110, 1]],
    5: [[L, 30, 0], [R, 30, 0], [C, 70, 0], [L, 110, 1], [R, 110, 1]],
    6: [[L, 30, 0], [R, 30, 0], [L, 70, 0], [R, 70, 0], [L, 110, 1], [R, 110, 1]],
    7: [[L, 30, 0], [R, 30, 0], [C, 50, 0], [L, 70, 0], [R, 70, 0], [L, 110, 1], [R, 110, 1]],
    8: [[L, 30, 0], [R, 30, 0], [C, 50, 0], [L, 70, 0], [R, 70, 0], [C, 90, 1], [L, 110, 1], [R, 110, 1]],
    9: [[L, 30, 0], [R, 30, 0], [L, 57, 0], [R, 57, 0], [C, 70, 0], [L, 83, 1], [R, 83, 1], [L, 110, 1], [R, 110, 1]],
    T: [[L, 30, 0], [R, 30, 0], [C, 43, 0], [L, 57, 0], [R, 57, 0], [L, 83, 1], [R, 83, 1], [C, 97, 1], [L, 110, 1], [R, 110, 1]],
  };

  const CROWN =
    "M4 34 L0 10 L12 20 L20 2 L28 20 L40 10 L36 34 Z";

  function pip(suit, x, y, size, flip) {
    const s = size / 100;
    const rot = flip ? ` rotate(180 ${x} ${y})` : "";
    return `<path d="${SUIT_PATHS[suit]}" transform="${rot} translate(${x - size / 2} ${y - size / 2}) scale(${s})"/>`;
  }

  function crown(x, y, w, jewel = "#b3122e") {
    // A crown 40 wide and 36 high scaled to w, centred on (x, y).
    const s = w / 40;
    return `<g transform="translate(${x - w / 2} ${y - 18 * s}) scale(${s})">` +
      `<path d="${CROWN}" fill="#d9a520" stroke="#7a5a08" stroke-width="1.6" stroke-linejoin="round"/>` +
      `<rect x="3" y="31" width="34" height="5" rx="1.5" fill="#c08d12" stroke="#7a5a08" stroke-width="1.2"/>` +
      `<circle cx="0" cy="10" r="3" fill="${jewel}"/><circle cx="20" cy="2" r="3.4" fill="${jewel}"/>` +
      `<circle cx="40" cy="10" r="3" fill="${jewel}"/><circle cx="20" cy="25" r="3" fill="#1f5fa8"/></g>`;
  }

  function index(rank, suit) {
    const label = RANK_SHORT[rank] || rank;
    const fs = label.length > 1 ? 17 : 21;
    return `<g class="idx"><text x="11" y="23" text-anchor="middle" font-size="${fs}" ` +
      `font-family="Georgia, 'DejaVu Serif', serif" font-weight="700" letter-spacing="-1.5">${label}</text>` +
      pip(suit, 11, 34, 13, false) + "</g>";
  }

  function face(rank, suit) {
    // A court card: a framed panel with the letter, the suit and a headdress.
    const tint = { S: "#e9eef7", C: "#e8f3ea", D: "#fbeee6", H: "#fbe9ec" }[suit];
    let deco = "";
    if (rank === "K") deco = crown(50, 50, 34);
    else if (rank === "Q") deco = `<path d="M34 56 Q50 30 66 56 Z" fill="#d9a520" stroke="#7a5a08" stroke-width="1.4"/>` +
      `<circle cx="50" cy="40" r="3.4" fill="#b3122e"/><circle cx="40" cy="48" r="2.4" fill="#1f5fa8"/><circle cx="60" cy="48" r="2.4" fill="#1f5fa8"/>`;
    else deco = `<path d="M38 56 L40 40 Q50 32 60 40 L62 56 Z" fill="#1f5fa8" stroke="#12335e" stroke-width="1.4"/>` +
      `<path d="M58 40 Q70 28 66 18 Q62 30 54 36" fill="#d9a520" stroke="#7a5a08" stroke-width="1.2"/>`;
    return `<rect x="20" y="20" width="60" height="100" rx="4" fill="${tint}" stroke="currentColor" stroke-width="1.4"/>` +
      deco +
      `<text x="50" y="95" text-anchor="middle" font-size="38" font-family="Georgia, 'DejaVu Serif', serif" font-weight="700">${rank}</text>` +
      pip(suit, 30, 110, 12, true) + pip(suit, 70, 110, 12, true);
  }

  function faceSvg(code) {
    if (code === "JK") return jokerSvg();
    const rank = code[0], suit = code[1];
    let body;
    if (rank === "A") body = pip(suit, 50, 70, 46, false);
    else if ("JQK".includes(rank)) body = face(rank, suit);
    else body = PIPS[rank].map(([x, y, f]) => pip(suit, x, y, 20, f)).join("");
    return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
      `<rect class="card-bg" x="1" y="1" width="98" height="138" rx="8"/>` +
      `<g fill="currentColor">${body}${index(rank, suit)}` +
      `<g transform="rotate(180 50 70)">${index(rank, suit)}</g></g></svg>`;
  }

  function jokerSvg() {
    // Goodall's Quint Royal: five crowns set like the five of a suit.
    const crowns = [[31, 52], [69, 52], [50, 73], [31, 94], [69, 94]].map(([x, y]) => crown(x, y, 26)).join("");
    return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
      `<rect class="card-bg" x="1" y="1" width="98" height="138" rx="8"/>` +
      `<rect x="6" y="6" width="88" height="128" rx="5" fill="#fff8e6" stroke="#b8860b" stroke-width="2"/>` +
      `<rect x="9" y="9" width="82" height="122" rx="4" fill="none" stroke="#7a1f2b" stroke-width="0.8"/>` +
      `<text x="50" y="27" text-anchor="middle" font-size="15" font-weight="700" letter-spacing="2" ` +
      `font-family="Georgia, 'DejaVu Serif', serif" fill="#7a1f2b">QUINT</text>` +
      crowns +
      `<text x="50" y="124" text-anchor="middle" font-size="15" font-weight="700" letter-spacing="2" ` +
      `font-family="Georgia, 'DejaVu Serif', serif" fill="#7a1f2b">ROYAL</text></svg>`;
  }

  function backSvg() {
    // A lattice on blue; the inner <svg> clips the lines (no ids needed).
    let lines = "";
    for (let k = -124; k < 90; k += 9) lines += `M${k} 0 L${k + 124} 124 M${k + 124} 0 L${k} 124 `;
    return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
      `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fff" stroke="#555"/>` +
      `<svg x="8" y="8" width="84" height="124" viewBox="0 0 84 124">` +
      `<rect width="84" height="124" rx="4" fill="#24477f"/>` +
      `<path d="${lines}" stroke="#5f85c4" stroke-width="1.3"/></svg>` +
      `<rect x="8" y="8" width="84" height="124" rx="4" fill="none" stroke="#17305a" stroke-width="1.5"/></svg>`;
  }

  const cache = new Map();
  function svg(code) {
    let s = cache.get(code);
    if (s === undefined) {
      s = code === "back" ? backSvg() : faceSvg(code);
      cache.set(code, s);
    }
    return s;
  }

  function name(code) {
    if (code === "JK") return "Quint Royal (joker)";
    return `${RANK_NAMES[code[0]]} of ${SUIT_NAMES[code[1]]}`;
  }

  function short(code) {
    if (code === "JK") return "QR";
    return (RANK_SHORT[code[0]] || code[0]) + SUIT_SYMBOLS[code[1]];
  }

  function suitClass(code) {
    return code === "JK" ? "joker" : `s-${code[1]}`;
  }

  // The class of a card's node (opts: size, cls), also for updating it in place.
  function className(code, opts = {}) {
    return `card ${suitClass(code)} ${opts.size || ""} ${opts.cls || ""}`.trim();
  }

  // A card as a DOM node: a <button> (playable) or a <span role="img">.
  function node(code, opts = {}) {
    const tag = opts.button ? "button" : "span";
    const e = document.createElement(tag);
    e.className = className(code, opts);
    e.innerHTML = svg(code);
    e.dataset.card = code;
    const label = opts.label || name(code);
    if (opts.button) {
      e.type = "button";
      e.setAttribute("aria-label", label);
    } else {
      e.setAttribute("role", "img");
      e.setAttribute("aria-label", label);
    }
    if (opts.title) e.title = opts.title;
    return e;
  }

  function back(opts = {}) {
    const e = document.createElement("span");
    e.className = `card back ${opts.size || ""}`.trim();
    e.innerHTML = svg("back");
    e.setAttribute("aria-hidden", "true");
    return e;
  }

  return { RANKS, SUIT_NAMES, SUIT_SYMBOLS, svg, name, short, node, back, suitClass, className, pip };
})();
