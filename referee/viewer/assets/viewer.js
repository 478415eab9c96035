// croupier replay viewer: draws the tables that `croupier replay --html` precomputed.
// No rules here: every step's table in every view comes from the engine, via the JSON above.
"use strict";
(async function () {
  const data = await matchData(document.getElementById("match-data"));
  const parts = data.parts;
  const steps = data.steps;
  const last = steps.length - 1;
  const $ = (id) => document.getElementById(id);
  let index = 0;
  let view = Math.min(data.start_view || 0, data.views.length - 1);
  let timer = null;

  const { pileElement, seatElement, text } = croupierDraw(data.deck);

  function render() {
    const step = steps[index];
    const table = parts[step.table[view]];
    $("status").textContent = parts[table[0]];
    const seats = document.createDocumentFragment();
    for (const i of table[1]) seats.appendChild(seatElement(parts[i]));
    $("seats").replaceChildren(seats);
    const piles = document.createDocumentFragment();
    for (const i of table[2]) piles.appendChild(pileElement(parts[i]));
    $("piles").replaceChildren(piles);
    const caption = document.createDocumentFragment();
    const lines = parts[step.caption[view]];
    for (const line of lines) caption.appendChild(text("li", "", line));
    if (!lines.length) caption.appendChild(text("li", "quiet", "nothing this view could see"));
    $("caption").replaceChildren(caption);
    showLog(step);
    showReview(step);
    $("result").textContent = index === last && data.result ? `result: ${data.result}` : "";
    showBanner(index === last);
    markMove();
    $("slider").value = index;
    $("counter").textContent = `step ${index} / ${last}`;
    $("view").value = view;
    syncSegments();
    document.body.dataset.step = index;
    document.body.dataset.view = view;
    clearTimeout(addressTimer);
    addressTimer = setTimeout(writeAddress, 400);
  }

  // The address names the step and view, so a link or a reload opens here. Written once the
  // stepping pauses: browsers throttle (and complain about) many history calls in a row.
  let addressTimer = null;
  // The seat's own log lines beside its decision (`--log`): the bot's text, so text nodes only.
  function showLog(step) {
    const lines = step.log || [];
    const shown = data.log_seat !== null && data.log_seat !== undefined;
    $("bot-log").hidden = !shown;
    if (!shown) return;
    $("bot-log-title").textContent = `seat ${data.log_seat} logged`;
    const list = document.createDocumentFragment();
    for (const line of lines) list.appendChild(text("li", "", line));
    if (!lines.length) list.appendChild(text("li", "quiet", "nothing logged at this step"));
    $("bot-log-lines").replaceChildren(list);
  }

  // `croupier review --html`: beside each of the seat's decisions its actions' values (mean
  // final margin, 95% interval) as bars, the chosen and the best marked and the grade said; and
  // the seat's expected margin along the match (the chosen action's value) as a chart whose
  // points open their decision.
  const SVG = $("review-chart").namespaceURI; // the page's own <svg>: no address in the page
  const reviewed = steps.map((step, i) => [i, step.review]).filter(([, r]) => r && !r.unsampled);
  const chosenValue = (r) => (r.values.find((v) => v[0] === r.chosen) || [null, 0])[1] || 0;
  // A value and its 95% half-width as the review prints them; null (one sample): no interval.
  const points = (mean, half, signed) =>
    (mean === null ? "?" : (signed && mean >= 0 ? "+" : "") + mean.toFixed(2)) +
    (half === null ? "" : ` ±${half.toFixed(2)}`);
  function showReview(step) {
    const shown = data.review_seat !== null && data.review_seat !== undefined;
    $("review").hidden = !shown;
    if (!shown) return;
    const r = step.review;
    const values = document.createDocumentFragment();
    let verdict = "not a decision of this seat";
    if (r && r.unsampled) verdict = `decision ${r.decision}: no deal fitted what the seat saw`;
    else if (r) {
      verdict = `decision ${r.decision}: ` + (r.grade
        ? `${r.grade}, ${points(r.loss, r.half, false)} points below ${r.best}`
        : r.chosen === r.best ? "the best action" : `${points(r.loss, r.half, false)} below the best, no grade`);
      const low = Math.min(...r.values.map((v) => (v[1] || 0) - (v[2] || 0)));
      const high = Math.max(...r.values.map((v) => (v[1] || 0) + (v[2] || 0)));
      const span = high - low || 1;
      for (const [what, mean, half] of r.values) {
        const item = text("li", "", "");
        item.dataset.action = what;
        if (what === r.chosen) item.classList.add("chosen");
        if (what === r.best) item.classList.add("best");
        item.appendChild(text("span", "what", what));
        const bar = text("span", "bar", "");
        bar.style.width = `${Math.max(2, (100 * ((mean || 0) - low)) / span)}%`;
        item.appendChild(bar);
        item.appendChild(text("span", "value", points(mean, half, true)));
        values.appendChild(item);
      }
    }
    $("review-verdict").textContent = verdict;
    $("review-verdict").dataset.grade = (r && r.grade) || "";
    $("review-values").replaceChildren(values);
    const at = reviewed.filter(([i]) => i <= index).pop();
    for (const point of $("review-chart").querySelectorAll("circle")) {
      point.classList.toggle("now", at !== undefined && Number(point.dataset.step) === at[0]);
    }
  }

  function fillChart() {
    const chart = $("review-chart");
    if (!reviewed.length) return;
    const ys = reviewed.map(([, r]) => chosenValue(r));
    const top = Math.max(1, ...ys.map(Math.abs));
    const x = (k) => 6 + (288 * k) / Math.max(1, reviewed.length - 1);
    const y = (v) => 40 - (34 * v) / top;
    const axis = document.createElementNS(SVG, "line");
    for (const [key, value] of [["x1", 0], ["x2", 300], ["y1", 40], ["y2", 40], ["class", "axis"]]) axis.setAttribute(key, value);
    chart.appendChild(axis);
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", ys.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
    chart.appendChild(line);
    reviewed.forEach(([i, r], k) => {
      const point = document.createElementNS(SVG, "circle");
      point.setAttribute("cx", x(k).toFixed(1));
      point.setAttribute("cy", y(ys[k]).toFixed(1));
      point.setAttribute("r", r.grade ? "3" : "1.8");
      point.dataset.step = i;
      point.dataset.grade = r.grade || "";
      const title = document.createElementNS(SVG, "title");
      title.textContent = `decision ${r.decision}: ${r.chosen}, ${ys[k].toFixed(2)}` + (r.grade ? ` (${r.grade})` : "");
      point.appendChild(title);
      point.addEventListener("click", () => go(i));
      chart.appendChild(point);
    });
  }

  function writeAddress() {
    try {
      history.replaceState(null, "", `#step=${index}` + (view ? `&seat=${view - 1}` : ""));
    } catch (error) {
      // Some browsers refuse to rewrite a file:// address; the viewer works the same without.
    }
  }

  // --- the move list and the result -----------------------------------------------------------

  // Every action as a line (who, what, how long it took); a click jumps there, like a chess
  // site's move list. The line of the step shown (or of the last action before it) is marked.
  const moves = data.moves || [];
  function fillMoves() {
    const list = $("moves");
    for (const [step, seat, what, ms, referee] of moves) {
      const item = text("li", referee ? "referee" : "", `${seat} ${data.names[seat]}: ${what}`);
      item.dataset.step = step;
      item.title = `step ${step}, seat ${seat}` + (referee ? ", played by the referee" : "");
      item.appendChild(text("span", "ms", `${ms} ms`));
      item.addEventListener("click", () => go(step));
      list.appendChild(item);
    }
  }

  let marked = null;
  function markMove() {
    let found = null;
    for (const item of $("moves").children) {
      if (Number(item.dataset.step) > index) break;
      found = item;
    }
    if (found === marked) return;
    if (marked) marked.classList.remove("now");
    marked = found;
    if (marked) {
      marked.classList.add("now");
      // Scroll the list only (scrollIntoView would move the whole page too).
      const box = $("log");
      const top = marked.offsetTop;
      if (top < box.scrollTop || top + marked.offsetHeight > box.scrollTop + box.clientHeight) {
        box.scrollTop = top - box.clientHeight / 2;
      }
    }
  }

  function showBanner(shown) {
    const banner = $("banner");
    banner.hidden = !(shown && data.result);
    if (banner.hidden || banner.childElementCount) return;
    banner.appendChild(text("div", "headline", `result: ${data.result}`));
    const ranking = document.createElement("ul");
    for (const [rank, seat, name, score, retired] of data.ranking || []) {
      const line = `${rank}. ${name} (seat ${seat}) · ${score}` + (retired ? " · retired" : "");
      ranking.appendChild(text("li", retired ? "retired" : "", line));
    }
    banner.appendChild(ranking);
  }

  // --- rounds and tricks ---------------------------------------------------------------------

  // The first step of each round (major) or trick (minor): where a jump lands.
  function segmentStarts(major) {
    const starts = [];
    let previous = null;
    steps.forEach((step, i) => {
      const key = major ? `${step.at[0]}` : `${step.at[0]}.${step.at[1]}`;
      if (key !== previous) starts.push(i);
      previous = key;
    });
    return starts;
  }
  const minorStarts = segmentStarts(false);
  const roundStarts = segmentStarts(true);

  // "round 3/8 · trick 2/8" names trick 2 in the trick menu.
  function minorLabel(label) {
    const pieces = parts[label].split(" · ");
    return pieces[pieces.length - 1];
  }

  function fillMajor() {
    const select = $("major");
    for (const start of roundStarts) {
      const option = document.createElement("option");
      option.value = start;
      option.textContent = `${data.major} ${steps[start].at[0]}`;
      select.appendChild(option);
    }
  }

  function syncSegments() {
    const round = roundStarts.filter((s) => s <= index).pop() || 0;
    $("major").value = round;
    const end = roundStarts.find((s) => s > round);
    const select = $("minor");
    if (select.dataset.round !== String(round)) {
      select.replaceChildren();
      for (const start of minorStarts) {
        if (start < round || (end !== undefined && start >= end)) continue;
        const option = document.createElement("option");
        option.value = start;
        option.textContent = minorLabel(steps[start].at[2]);
        select.appendChild(option);
      }
      select.dataset.round = round;
    }
    select.value = minorStarts.filter((s) => s <= index).pop() || 0;
  }

  function nextStart(starts, forward) {
    if (forward) {
      const found = starts.find((s) => s > index);
      return found === undefined ? last : found;
    }
    const earlier = starts.filter((s) => s < index);
    return earlier.length ? earlier[earlier.length - 1] : 0;
  }

  // --- moving --------------------------------------------------------------------------------

  function go(target) {
    index = Math.max(0, Math.min(last, target));
    render();
  }

  function setView(target) {
    if (target < 0 || target >= data.views.length) return;
    view = target;
    render();
  }

  function play(on) {
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    if (on) {
      if (index >= last) go(0);
      timer = setInterval(() => {
        if (index >= last) play(false);
        else go(index + 1);
      }, Number($("speed").value));
    }
    $("play").textContent = timer === null ? "play" : "pause";
    $("play").setAttribute("aria-pressed", String(timer !== null));
  }

  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const key = event.key;
    const actions = {
      ArrowRight: () => go(index + 1),
      ArrowLeft: () => go(index - 1),
      Home: () => go(0),
      End: () => go(last),
      "]": () => go(nextStart(minorStarts, true)),
      "[": () => go(nextStart(minorStarts, false)),
      PageDown: () => go(nextStart(roundStarts, true)),
      PageUp: () => go(nextStart(roundStarts, false)),
      "}": () => go(nextStart(roundStarts, true)),
      "{": () => go(nextStart(roundStarts, false)),
      " ": () => play(timer === null),
      o: () => setView(0),
      v: () => setView((view + 1) % data.views.length),
      V: () => setView((view + data.views.length - 1) % data.views.length),
    };
    let action = actions[key];
    if (!action && /^[0-9]$/.test(key)) action = () => setView(Number(key) + 1);
    if (!action) return;
    event.preventDefault();
    action();
  }

  // --- start ---------------------------------------------------------------------------------

  function init() {
    const options = Object.entries(data.options).map(([k, v]) => `${k}=${v}`).join(", ");
    $("title").textContent = `${data.title} · ${data.match}`;
    $("meta").textContent = [
      data.challenge || "",
      `rules ${data.rules}`,
      options || "default options",
      data.names.map((name, seat) => `${seat} ${name}`).join(", "),
      data.started ? `started ${data.started}` : "",
      data.computer || "",
    ].filter(Boolean).join(" · ");
    for (const name of document.querySelectorAll(".major-name, #major-name")) name.textContent = data.major;
    for (const name of document.querySelectorAll(".minor-name, #minor-name")) name.textContent = data.minor;
    data.views.forEach((name, i) => {
      const option = document.createElement("option");
      option.value = i;
      option.textContent = name;
      $("view").appendChild(option);
    });
    for (const problem of data.problems) $("problems").appendChild(text("li", "", problem));
    fillMajor();
    fillMoves();
    fillChart();
    const slider = $("slider");
    slider.max = last;
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(index - 1));
    $("next").addEventListener("click", () => go(index + 1));
    $("last").addEventListener("click", () => go(last));
    $("play").addEventListener("click", () => play(timer === null));
    $("speed").addEventListener("change", () => { if (timer !== null) play(true); });
    $("view").addEventListener("change", () => setView(Number($("view").value)));
    $("major").addEventListener("change", () => go(Number($("major").value)));
    $("minor").addEventListener("change", () => go(Number($("minor").value)));
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", openAddress);
    openAddress();
  }

  // `#seat=N` opens seat N's view; `#view=K` (K = seat + 1, 0 everything) is the older form.
  // A new address (a link followed within the page) wins over one about to be written.
  function openAddress() {
    clearTimeout(addressTimer);
    const hash = new URLSearchParams(location.hash.slice(1));
    const wanted = hash.has("seat") ? Number(hash.get("seat")) + 1 : Number(hash.get("view"));
    if (hash.has("seat") || hash.has("view")) view = Math.max(0, Math.min(data.views.length - 1, wanted || 0));
    go(hash.has("step") ? Number(hash.get("step")) || 0 : 0);
  }

  init();

  // A ladder report's pages carry their match gzipped (base64): ten times smaller.
  async function matchData(holder) {
    if (holder.type === "application/json") return JSON.parse(holder.textContent);
    const bytes = Uint8Array.from(atob(holder.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }
})();
