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
    const elo = data.system === "elo";
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
    function indexAt(event) {
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
      if (frame.n < 2) return 0;
      const i = Math.round(((point.x - frame.left) / frame.width) * (frame.n - 1));
      return Math.max(0, Math.min(frame.n - 1, i));
    }
    function show(event) {
      const i = indexAt(event);
      const x = frame.left + (frame.n < 2 ? frame.width / 2 : (frame.width * i) / (frame.n - 1));
      cursor.setAttribute("x1", x);
      cursor.setAttribute("x2", x);
      cursor.style.visibility = "visible";
      tip.replaceChildren();
      const head = document.createElement("b");
      head.textContent = `after ${i + 1} of ${frame.n} matches: #${data.numbers[i]} ${data.matches[i]}`;
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
    hit.addEventListener("click", (event) => { location.hash = `match-${data.numbers[indexAt(event)]}`; });
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
