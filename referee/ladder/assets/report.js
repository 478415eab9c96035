"use strict";
(function () {
  const dataNode = document.getElementById("ratings-data");
  const svg = document.getElementById("plot");
  if (dataNode && svg) plot(JSON.parse(dataNode.textContent), svg);
  filter();

  function plot(data, svg) {
    const tip = document.getElementById("tip");
    const cursor = document.getElementById("cursor");
    const hit = document.getElementById("hit");
    const frame = data.frame;
    const elo = true; // Elo and the batch Plackett-Luce fit alike: the Elo scale, an interval
    const off = new Set();
    const fmt = (v) => (v === null ? "-" : elo ? (v > 0 ? "+" : "") + Math.round(v) : v.toFixed(1));
    const bands = document.getElementById("bands");
    if (bands) {
      const sync = () => svg.classList.toggle("nobands", !bands.checked);
      bands.addEventListener("change", sync);
      sync();
    }
    for (const key of document.querySelectorAll(".legend .key")) {
      const group = svg.querySelector(`.series[data-bot="${CSS.escape(key.dataset.bot)}"]`);
      key.addEventListener("click", () => {
        const hidden = key.getAttribute("aria-pressed") === "true";
        key.setAttribute("aria-pressed", hidden ? "false" : "true");
        group.classList.toggle("off", hidden);
        if (hidden) off.add(key.dataset.bot); else off.delete(key.dataset.bot);
      });
      key.addEventListener("mouseenter", () => { svg.classList.add("focus"); group.classList.add("focused"); });
      key.addEventListener("mouseleave", () => { svg.classList.remove("focus"); group.classList.remove("focused"); });
    }
    // Point i stands after ks[i] matches; past a thousand, not every match has a point.
    const xOf = (i) => frame.left + (frame.n < 2 ? frame.width / 2 : (frame.width * (data.ks[i] - 1)) / (frame.n - 1));
    function indexAt(event) {
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
      let best = 0;
      for (let i = 1; i < data.ks.length; i++) {
        if (Math.abs(xOf(i) - point.x) < Math.abs(xOf(best) - point.x)) best = i;
      }
      return best;
    }
    function show(event) {
      const i = indexAt(event);
      const x = xOf(i);
      cursor.setAttribute("x1", x);
      cursor.setAttribute("x2", x);
      cursor.style.visibility = "visible";
      tip.replaceChildren();
      const head = document.createElement("b");
      head.textContent = `after ${data.ks[i]} of ${frame.n} matches: #${data.numbers[i]} ${data.matches[i]}`;
      tip.appendChild(head);
      const rows = data.series
        .map((s) => ({ s, v: s.values[i] }))
        .sort((a, b) => (b.v === null ? -Infinity : b.v) - (a.v === null ? -Infinity : a.v));
      for (const { s, v } of rows) {
        const line = document.createElement("div");
        if (off.has(s.bot)) line.className = "off";
        const dot = document.createElement("i");
        dot.className = "swatch";
        dot.style.setProperty("--c", s.colour);
        line.appendChild(dot);
        let text = `${s.bot} ${fmt(v)}`;
        if (elo && v !== null) text += ` (${fmt(s.low[i])}..${fmt(s.high[i])})`;
        line.appendChild(document.createTextNode(text));
        tip.appendChild(line);
      }
      tip.hidden = false;
      const box = svg.getBoundingClientRect();
      const scale = box.width / svg.viewBox.baseVal.width;
      const left = x * scale;
      tip.style.top = "0.5rem";
      tip.style.left = left + tip.offsetWidth + 16 > box.width ? `${left - tip.offsetWidth - 12}px` : `${left + 12}px`;
    }
    hit.addEventListener("mousemove", show);
    hit.addEventListener("mouseleave", () => { tip.hidden = true; cursor.style.visibility = "hidden"; });
    hit.addEventListener("click", (event) => {
      const i = indexAt(event);
      const page = data.pages[i];
      const hash = `#match-${data.numbers[i]}`;
      if (page === 1) location.hash = hash;
      else location.href = `index-${page}.html${hash}`;
    });
  }

  function filter() {
    const input = document.getElementById("filter");
    const shown = document.getElementById("shown");
    if (!input) return;
    const rows = [...document.querySelectorAll("table.matches tbody tr")];
    const texts = rows.map((row) => row.textContent.toLowerCase());
    const apply = () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let count = 0;
      rows.forEach((row, i) => {
        const keep = words.every((word) => texts[i].includes(word));
        row.hidden = !keep;
        count += keep;
      });
      shown.textContent = words.length ? `${count} of ${rows.length} ${rows.length === 1 ? "match" : "matches"}` : "";
    };
    input.addEventListener("input", apply);
  }
})();
