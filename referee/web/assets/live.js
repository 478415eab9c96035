// A live match as a spectator sees it, drawn with the replay viewer's code (draw.js). The server
// sends, as server-sent events: the match's start, each public event, the spectator's table after
// every step (public information only), the seats' clocks when one starts or stops, and the
// result. /follow?bot=NAME goes from one match to
// the next.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const path = location.pathname;
  const bot = new URLSearchParams(location.search).get("bot") || "";
  const following = path === "/follow";
  const source = following
    ? `/events/follow?bot=${encodeURIComponent(bot)}`
    : `/events/live/${path.split("/").pop()}`;
  let match = null;
  let draw = null;
  let tables = 0;
  let clocks = null; // the latest clocks message, with the moment it came
  const received = [];
  window.croupierLive = { received };

  function reset(start) {
    match = start;
    draw = croupierDraw(start.deck);
    tables = 0;
    clocks = null;
    const options = Object.entries(start.options).map(([k, v]) => `${k}=${v}`).join(", ");
    $("title").textContent = `${start.title} · ${start.match}`;
    document.title = `croupier · ${start.match} (live)`;
    $("meta").textContent = [
      options || "default options",
      start.names.map((name, seat) => `${seat} ${name}`).join(", "),
    ].join(" · ");
    $("banner").hidden = true;
    $("banner").replaceChildren();
    $("events").replaceChildren();
    $("seats").replaceChildren();
    $("piles").replaceChildren();
    $("status").textContent = "";
    $("links").replaceChildren();
    $("state").textContent = following
      ? `following ${bot || "every bot"} · live · public view`
      : "live · public view: no hidden card is ever sent here";
    document.body.dataset.match = start.match;
    document.body.dataset.over = "";
  }

  function table(t) {
    tables += 1;
    $("status").textContent = t.status;
    const seats = document.createDocumentFragment();
    for (const seat of t.seats) seats.appendChild(draw.seatElement(seat));
    $("seats").replaceChildren(seats);
    const piles = document.createDocumentFragment();
    for (const pile of t.piles) piles.appendChild(draw.pileElement(pile));
    $("piles").replaceChildren(piles);
    document.body.dataset.tables = String(tables);
    showClocks();
  }

  const seconds = (ms) => `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;

  // Each seat's clock in its box, on a line of its own under the name (beside it, it squeezed
  // the name to a letter a line): its bank, and while it decides the time it has taken, run on
  // here from what the server last measured (the server sends clocks only when one starts or
  // stops). Gone once the match is over.
  function showClocks() {
    if (!clocks || document.body.dataset.over === "1") return;
    const since = performance.now() - clocks.at;
    clocks.seats.forEach((c, seat) => {
      const box = $("seats").querySelector(`.seat[data-seat="${seat}"]`);
      if (!box) return;
      let clock = box.querySelector(".clock");
      if (!clock) clock = box.insertBefore(draw.text("div", "clock", ""), box.querySelector(".facts"));
      const parts = [];
      if (c.thinking_ms !== null) parts.push(`thinking ${seconds(c.thinking_ms + since)}`);
      if (clocks.move_ms !== null) {
        const used = c.thinking_ms === null ? 0 : c.thinking_ms + since;
        const left = clocks.move_ms + c.bank_ms - used;
        parts.push(c.thinking_ms === null ? `bank ${seconds(c.bank_ms)}` : `left ${seconds(left)}`);
      }
      clock.textContent = parts.join(" · ");
      clock.classList.toggle("running", c.thinking_ms !== null);
    });
  }
  setInterval(showClocks, 200);

  function event(text) {
    const list = $("events");
    list.appendChild(draw.text("li", "", text));
    const box = $("log");
    box.scrollTop = box.scrollHeight;
  }

  function end(message) {
    const banner = $("banner");
    banner.replaceChildren(draw.text("div", "headline", `result: ${message.result}`));
    const ranking = document.createElement("ul");
    for (const [rank, seat, name, score, retired] of message.ranking) {
      const line = `${rank}. ${name} (seat ${seat}) · ${score}` + (retired ? " · retired" : "");
      ranking.appendChild(draw.text("li", retired ? "retired" : "", line));
    }
    banner.appendChild(ranking);
    banner.hidden = false;
    for (const clock of $("seats").querySelectorAll(".clock")) clock.remove();
    $("state").textContent = following ? `over · waiting for the next match` : "over";
    const replay = document.createElement("a");
    replay.href = `/matches/${encodeURIComponent(message.match)}.html`;
    replay.textContent = "replay (once committed)";
    $("links").replaceChildren(replay);
    document.body.dataset.over = "1";
  }

  const stream = new EventSource(source);
  stream.addEventListener("open", () => { $("connection").textContent = "live"; });
  stream.addEventListener("message", (raw) => {
    const message = JSON.parse(raw.data);
    received.push(message);
    if (message.kind === "start") reset(message);
    else if (message.kind === "gone") {
      stream.close();
      const id = decodeURIComponent(path.split("/").pop());
      $("title").textContent = `${id} is not being played now`;
      $("state").textContent = "not live: its replay opens once the match is committed";
      const replay = document.createElement("a");
      replay.href = `/matches/${encodeURIComponent(id)}.html`;
      replay.textContent = "replay";
      $("links").replaceChildren(replay);
    } else if (!match) return;
    else if (message.kind === "table") table(message);
    else if (message.kind === "clocks") {
      clocks = { ...message, at: performance.now() };
      showClocks();
    }
    else if (message.kind === "event") event(message.text);
    else if (message.kind === "end") {
      end(message);
      if (!following) stream.close();
    }
  });
  stream.addEventListener("error", () => {
    if (document.body.dataset.over !== "1") $("connection").textContent = "reconnecting…";
  });
})();
