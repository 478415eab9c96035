// croupier's card and table drawing, shared by the replay viewer (viewer.js) and the contest
// site's live matches: both draw the same table model (referee/viewer/model.py `to_json`).
"use strict";
// The drawing functions for one deck ("xix", "xactika" or "standard").
function croupierDraw(deck) {
  // --- cards ---------------------------------------------------------------------------------

  const SUITS = { C: ["♣", false], D: ["♦", true], H: ["♥", true], S: ["♠", false] };
  const SHAPE_COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#ef6c00"];
  const SHAPE_NAMES = ["balls", "cubes", "cones", "stars"];
  const svgCache = new Map();

  function shape(kind, x, y, colour) {
    if (kind === 0) return `<circle cx="${x}" cy="${y}" r="4.6" fill="${colour}"/>`;
    if (kind === 1) return `<rect x="${x - 4.2}" y="${y - 4.2}" width="8.4" height="8.4" fill="${colour}"/>`;
    if (kind === 2) return `<path d="M${x} ${y - 5}L${x + 5} ${y + 4.4}H${x - 5}Z" fill="${colour}"/>`;
    const points = [];
    for (let i = 0; i < 10; i++) {
      const r = i % 2 ? 2.3 : 5.4;
      const a = (Math.PI / 5) * i - Math.PI / 2;
      points.push(`${(x + r * Math.cos(a)).toFixed(2)},${(y + r * Math.sin(a)).toFixed(2)}`);
    }
    return `<polygon points="${points.join(" ")}" fill="${colour}"/>`;
  }

  // An Xactika card: four rows (balls, cubes, cones, stars), each showing its count of shapes.
  function xactikaSvg(text) {
    let svg = svgCache.get(text);
    if (svg) return svg;
    let body = "";
    for (let row = 0; row < 4; row++) {
      const count = Number(text[row]);
      const y = 7.5 + row * 13;
      for (let k = 0; k < count; k++) {
        const x = 20 + (k - (count - 1) / 2) * 11.5;
        body += shape(row, x, y, SHAPE_COLOURS[row]);
      }
    }
    svg = `<svg viewBox="0 0 40 52" role="img" aria-hidden="true">${body}</svg>`;
    svgCache.set(text, svg);
    return svg;
  }

  function describe(text) {
    if (deck === "xactika" && text.length === 4) {
      return [0, 1, 2, 3].map((i) => `${text[i]} ${SHAPE_NAMES[i]}`).join(", ");
    }
    return text;
  }

  function cardElement(card) {
    const slot = document.createElement("div");
    slot.className = "slot";
    const face = document.createElement("div");
    face.className = "card";
    const text = card.t;
    if (!text) {
      face.classList.add("back");
      face.title = "face down";
    } else {
      face.dataset.card = text;
      face.title = describe(text) + (card.d ? " (face down)" : "");
      if (deck === "xactika") {
        face.classList.add("xactika");
        face.innerHTML = xactikaSvg(text);
      } else if (deck === "xix") {
        face.classList.add("xix");
        face.innerHTML = `<span class="num">${text}</span>`;
      } else if (text[0] === "X") {
        face.classList.add("joker");
        face.innerHTML = `<span class="rank">★</span><span class="word">joker</span>`;
      } else {
        const suit = SUITS[text[1]] || ["?", false];
        if (suit[1]) face.classList.add("red");
        const rank = text[0] === "T" ? "10" : text[0];
        face.innerHTML = `<span class="rank">${rank}</span><span class="suit">${suit[0]}</span>`;
      }
      if (card.d) face.classList.add("down");
    }
    if (card.m) face.classList.add("mark");
    slot.appendChild(face);
    if (card.n) {
      const note = document.createElement("div");
      note.className = "note";
      note.textContent = card.n.replaceAll(" · ", "\n");
      slot.appendChild(note);
    }
    return slot;
  }

  function cardsElement(cards) {
    const row = document.createElement("div");
    row.className = "cards";
    for (const card of cards) row.appendChild(cardElement(card));
    return row;
  }

  // --- the table -----------------------------------------------------------------------------

  function text(tag, className, content) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = content;
    return node;
  }

  function pileElement(pile) {
    const box = document.createElement("div");
    box.className = "pile";
    const label = document.createElement("div");
    label.className = "label";
    label.appendChild(text("b", "", pile.label));
    if (pile.note) label.appendChild(document.createTextNode(" · " + pile.note));
    box.appendChild(label);
    if (pile.layout === "grid") {
      const grid = document.createElement("div");
      grid.className = "grid";
      pile.stacks.forEach((stack, position) => {
        const cell = document.createElement("div");
        cell.className = "cell";
        cell.dataset.position = position;
        if (!stack.length) {
          cell.classList.add("empty");
          cell.textContent = "empty";
        } else {
          const fan = document.createElement("div");
          fan.className = "stack";
          for (const card of stack) fan.appendChild(cardElement(card));
          cell.appendChild(fan);
          if (stack.length > 1) cell.title = `stack of ${stack.length}, base first`;
        }
        grid.appendChild(cell);
      });
      box.appendChild(grid);
    } else if (pile.cards.length) {
      box.appendChild(cardsElement(pile.cards));
    }
    return box;
  }

  function seatElement(seat) {
    const box = document.createElement("div");
    box.className = "seat";
    box.dataset.seat = seat.seat;
    if (seat.move) box.classList.add("move");
    if (seat.me) box.classList.add("me");
    const who = document.createElement("div");
    who.className = "who";
    who.appendChild(text("span", "name", `${seat.seat} · ${seat.name}${seat.me ? " (view)" : ""}`));
    who.appendChild(text("span", "score", seat.score));
    box.appendChild(who);
    box.appendChild(text("div", "facts", (seat.facts || []).join(" · ")));
    const hand = cardsElement(seat.hand);
    hand.classList.add("hand");
    if (!seat.hand.length) hand.appendChild(text("span", "empty-hand", "no cards"));
    box.appendChild(hand);
    for (const pile of seat.piles || []) {
      box.appendChild(text("div", "sub", pile.label));
      box.appendChild(cardsElement(pile.cards));
    }
    return box;
  }

  return { cardElement, cardsElement, pileElement, seatElement, text };
}
