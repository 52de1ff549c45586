// Card faces drawn for this project as inline SVG: the Cherki deck of Cholek Tiga (coins, strings, myriads, the
// three honours; red-stamped cards carry a red seal) and the Sampen deck of Cha Kau Tsz (three suits, pictures).
// Each card says its code on hover (title) and its name to screen readers.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 60;
const HEIGHT = 90;
const RED_STAMPED = new Set(["9S", "OT", "RF"]);

const CHERKI_SUITS = { C: ["Coins", "#1d3b8f"], S: ["Strings", "#1f6b3a"], M: ["Myriads", "#6d2077"] };
const SAMPEN_SUITS = { S: ["Spades", "#1b1b1b"], D: ["Diamonds", "#b34700"], H: ["Hearts", "#b0182c"] };
const HONOURS = { OT: "Old Thousand", WF: "White Flower", RF: "Red Flower" };
const PICTURES = { JC: "J", QC: "Q", KC: "K" };
const PICTURE_NAMES = { JC: "Jack", QC: "Queen", KC: "King" };
// What each picture wears on its head: a cap, a tiara, a crown (three points, five, seven).
const HEADWEAR = {
  JC: "M22 27Q30 17 38 27Z",
  QC: "M21 27L24 19L27 24L30 17L33 24L36 19L39 27Z",
  KC: "M20 27L21 16L24 22L27 15L30 21L33 15L36 22L39 16L40 27Z",
};

const PIP_LAYOUTS = {
  1: [[0.5, 0.5]],
  2: [[0.5, 0.2], [0.5, 0.8]],
  3: [[0.5, 0.15], [0.5, 0.5], [0.5, 0.85]],
  4: [[0.25, 0.2], [0.75, 0.2], [0.25, 0.8], [0.75, 0.8]],
  5: [[0.25, 0.2], [0.75, 0.2], [0.5, 0.5], [0.25, 0.8], [0.75, 0.8]],
  6: [[0.25, 0.15], [0.75, 0.15], [0.25, 0.5], [0.75, 0.5], [0.25, 0.85], [0.75, 0.85]],
  7: [[0.25, 0.15], [0.75, 0.15], [0.5, 0.33], [0.25, 0.5], [0.75, 0.5], [0.25, 0.85], [0.75, 0.85]],
  8: [[0.25, 0.1], [0.75, 0.1], [0.25, 0.37], [0.75, 0.37], [0.25, 0.63], [0.75, 0.63], [0.25, 0.9], [0.75, 0.9]],
  9: [[0.15, 0.15], [0.5, 0.15], [0.85, 0.15], [0.15, 0.5], [0.5, 0.5], [0.85, 0.5], [0.15, 0.85], [0.5, 0.85], [0.85, 0.85]],
};

const SUIT_PATHS = {
  D: "M5 0L10 5L5 10L0 5Z",
  H: "M5 9.6C3 8 0 5.8 0 3.2C0 1.3 1.4 0 3 0C4 0 4.7 .6 5 1.5C5.3 .6 6 0 7 0C8.6 0 10 1.3 10 3.2C10 5.8 7 8 5 9.6Z",
  S: "M5 0C3.5 2 0 4.3 0 6.6C0 8 1.1 9 2.5 9C3.5 9 4.2 8.5 4.5 8L3.8 10H6.2L5.5 8C5.8 8.5 6.5 9 7.5 9C8.9 9 10 8 10 6.6C10 4.3 6.5 2 5 0Z",
};

function svg(tag, attributes, children = []) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

function text(x, y, content, attributes) {
  const element = svg("text", { x, y, "font-family": "DejaVu Sans, Verdana, sans-serif", ...attributes });
  element.textContent = content;
  return element;
}

export function cardName(game, code) {
  if (game === "cholek-tiga") {
    if (HONOURS[code]) return `${HONOURS[code]}${RED_STAMPED.has(code) ? ", red-stamped" : ""}`;
    const [suit] = CHERKI_SUITS[code[1]] || ["?"];
    return `${code[0]} of ${suit}${RED_STAMPED.has(code) ? ", red-stamped" : ""}`;
  }
  if (PICTURES[code]) return PICTURE_NAMES[code];
  const [suit] = SAMPEN_SUITS[code[1]] || ["?"];
  return `${code[0] === "1" ? "Ace" : code[0]} of ${suit}`;
}

function pips(count, draw) {
  const left = 13;
  const top = 25;
  const width = WIDTH - 2 * left;
  const height = HEIGHT - top - 12;
  return PIP_LAYOUTS[count].map(([x, y]) => draw(left + x * width, top + y * height));
}

function coin(x, y, colour) {
  return svg("g", {}, [
    svg("circle", { cx: x, cy: y, r: 5.2, fill: colour }),
    svg("circle", { cx: x, cy: y, r: 3.8, fill: "none", stroke: "#fff", "stroke-width": 0.6 }),
    svg("rect", { x: x - 1.4, y: y - 1.4, width: 2.8, height: 2.8, fill: "#fffdf5" }),
  ]);
}

function string(x, y, colour) {
  return svg("g", {}, [
    svg("rect", { x: x - 2.2, y: y - 6, width: 4.4, height: 12, rx: 2, fill: colour }),
    svg("line", { x1: x - 2.2, y1: y - 2, x2: x + 2.2, y2: y - 2, stroke: "#fff", "stroke-width": 0.7 }),
    svg("line", { x1: x - 2.2, y1: y + 2, x2: x + 2.2, y2: y + 2, stroke: "#fff", "stroke-width": 0.7 }),
  ]);
}

function suitPip(suit, x, y, size) {
  const scale = size / 10;
  return svg("path", {
    d: SUIT_PATHS[suit],
    fill: SAMPEN_SUITS[suit][1],
    transform: `translate(${x - size / 2} ${y - size / 2}) scale(${scale})`,
  });
}

function myriad(rank, colour) {
  // The myriad sign: a banner of strokes under the rank, standing in for the character wan.
  return [
    text(WIDTH / 2, 56, rank, { "font-size": 30, "font-weight": "bold", "text-anchor": "middle", fill: colour }),
    svg("rect", { x: 14, y: 63, width: 32, height: 14, rx: 2, fill: "none", stroke: colour, "stroke-width": 1.4 }),
    svg("path", { d: "M18 67H42M18 70H42M30 64V77M22 73L26 77M38 73L34 77", stroke: colour, "stroke-width": 1.2, fill: "none" }),
  ];
}

function flower(petal, edge) {
  const petals = [0, 72, 144, 216, 288].map((angle) =>
    svg("ellipse", { cx: 30, cy: 43, rx: 5.5, ry: 10, fill: petal, stroke: edge, "stroke-width": 1, transform: `rotate(${angle} 30 53)` }),
  );
  return [...petals, svg("circle", { cx: 30, cy: 53, r: 4.5, fill: "#e8b923", stroke: edge, "stroke-width": 0.8 })];
}

function oldThousand() {
  return [
    svg("path", { d: "M18 40L22 30L27 37L30 28L33 37L38 30L42 40Z", fill: "#d4a017", stroke: "#7a5200", "stroke-width": 1 }),
    svg("circle", { cx: 30, cy: 50, r: 9, fill: "#f3d9b1", stroke: "#7a5200", "stroke-width": 1 }),
    svg("path", { d: "M22 55Q30 78 38 55Q30 62 22 55Z", fill: "#eee", stroke: "#777", "stroke-width": 0.8 }),
    svg("circle", { cx: 27, cy: 48, r: 1, fill: "#333" }),
    svg("circle", { cx: 33, cy: 48, r: 1, fill: "#333" }),
  ];
}

function redSeal() {
  return svg("g", { class: "red-seal" }, [
    svg("rect", { x: 43, y: 4, width: 13, height: 13, rx: 1.5, fill: "#c8102e" }),
    svg("rect", { x: 45.5, y: 6.5, width: 8, height: 8, fill: "none", stroke: "#fff", "stroke-width": 1 }),
  ]);
}

function cherkiFace(code) {
  const parts = [];
  if (HONOURS[code]) {
    const colour = code === "RF" ? "#c8102e" : code === "WF" ? "#555" : "#7a5200";
    parts.push(text(5, 15, code, { "font-size": 12, "font-weight": "bold", fill: colour }));
    if (code === "OT") parts.push(...oldThousand());
    else parts.push(...flower(code === "RF" ? "#e23b4e" : "#ffffff", code === "RF" ? "#8e0b1e" : "#777"));
  } else {
    const [, colour] = CHERKI_SUITS[code[1]];
    const rank = Number(code[0]);
    parts.push(text(5, 16, code[0], { "font-size": 15, "font-weight": "bold", fill: colour }));
    parts.push(text(5, 24, code[1], { "font-size": 7, fill: colour }));
    const grow = (x, y, pip) => (rank === 1 ? svg("g", { transform: `translate(${x} ${y}) scale(2.4) translate(${-x} ${-y})` }, [pip]) : pip);
    if (code[1] === "C") parts.push(...pips(rank, (x, y) => grow(x, y, coin(x, y, colour))));
    else if (code[1] === "S") parts.push(...pips(rank, (x, y) => grow(x, y, string(x, y, colour))));
    else parts.push(...myriad(code[0], colour));
  }
  if (RED_STAMPED.has(code)) parts.push(redSeal());
  return parts;
}

function sampenFace(code) {
  if (PICTURES[code]) {
    return [
      svg("rect", { x: 6, y: 6, width: 48, height: 78, rx: 3, fill: "#f6e7b4", stroke: "#9c7a1c", "stroke-width": 1 }),
      // A figure: robe, face, headwear, a sceptre; the corner letter and the name below say which.
      svg("path", { d: "M17 66Q18 46 30 43Q42 46 43 66Z", fill: "#8c1c24", stroke: "#5b3a00", "stroke-width": 1 }),
      svg("path", { d: "M26 46L30 58L34 46", fill: "none", stroke: "#d4a017", "stroke-width": 1.5 }),
      svg("circle", { cx: 30, cy: 34, r: 7, fill: "#f1c9a5", stroke: "#5b3a00", "stroke-width": 1 }),
      svg("circle", { cx: 27.5, cy: 33, r: 0.9, fill: "#2b1a00" }),
      svg("circle", { cx: 32.5, cy: 33, r: 0.9, fill: "#2b1a00" }),
      svg("path", { d: "M27.5 37Q30 38.6 32.5 37", fill: "none", stroke: "#5b3a00", "stroke-width": 0.8 }),
      svg("path", { d: HEADWEAR[code], fill: "#d4a017", stroke: "#7a5200", "stroke-width": 1 }),
      svg("line", { x1: 45, y1: 40, x2: 45, y2: 64, stroke: "#7a5200", "stroke-width": 1.5 }),
      svg("circle", { cx: 45, cy: 39, r: 2, fill: "#d4a017" }),
      text(WIDTH / 2, 78, PICTURE_NAMES[code], { "font-size": 9, "font-weight": "bold", "text-anchor": "middle", fill: "#5b3a00" }),
      text(9, 17, PICTURES[code], { "font-size": 11, "font-weight": "bold", fill: "#5b3a00" }),
    ];
  }
  const suit = code[1];
  const [, colour] = SAMPEN_SUITS[suit];
  const rank = Number(code[0]);
  return [
    text(5, 16, rank === 1 ? "A" : code[0], { "font-size": 15, "font-weight": "bold", fill: colour }),
    suitPip(suit, 9, 23, 7),
    ...pips(rank, (x, y) => suitPip(suit, x, y, rank === 1 ? 18 : 9)),
  ];
}

function face(game, code) {
  const title = svg("title", {});
  title.textContent = code;
  const parts = [
    title,
    svg("rect", { x: 0.75, y: 0.75, width: WIDTH - 1.5, height: HEIGHT - 1.5, rx: 5, fill: "#fffdf5", stroke: "#444", "stroke-width": 1.5 }),
    ...(game === "cholek-tiga" ? cherkiFace(code) : sampenFace(code)),
  ];
  return svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, "aria-hidden": "true", focusable: "false" }, parts);
}

// A face-up card: a span, or with `onToggle` a toggle button (aria-pressed) for choosing cards to play.
export function cardElement(game, code, { onToggle, pressed = false, small = false } = {}) {
  const name = `${cardName(game, code)} (${code})`;
  const element = document.createElement(onToggle ? "button" : "span");
  element.className = `card${small ? " small" : ""}${RED_STAMPED.has(code) && game === "cholek-tiga" ? " red-stamped" : ""}`;
  element.dataset.card = code;
  element.title = code;
  if (onToggle) {
    element.type = "button";
    element.setAttribute("aria-pressed", String(pressed));
    element.setAttribute("aria-label", name);
    element.addEventListener("click", () => onToggle(element));
  } else {
    element.setAttribute("role", "img");
    element.setAttribute("aria-label", name);
  }
  element.append(face(game, code));
  return element;
}

export function cardBack({ small = false, label = "a face-down card" } = {}) {
  const element = document.createElement("span");
  element.className = `card back${small ? " small" : ""}`;
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  const diamonds = [];
  for (let y = 12; y <= 78; y += 11) {
    for (let x = 12; x <= 48; x += 12) {
      diamonds.push(svg("path", { d: `M${x} ${y - 4}L${x + 4} ${y}L${x} ${y + 4}L${x - 4} ${y}Z`, fill: "#c9a227" }));
    }
  }
  element.append(
    svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, "aria-hidden": "true", focusable: "false" }, [
      svg("rect", { x: 0.75, y: 0.75, width: 58.5, height: 88.5, rx: 5, fill: "#7b1d1d", stroke: "#444", "stroke-width": 1.5 }),
      svg("rect", { x: 5, y: 5, width: 50, height: 80, rx: 3, fill: "none", stroke: "#c9a227", "stroke-width": 1 }),
      ...diamonds,
    ]),
  );
  return element;
}

export function cardRow(game, codes, options = {}) {
  const row = document.createElement("span");
  row.className = "card-row";
  for (const code of codes) row.append(cardElement(game, code, options));
  return row;
}
