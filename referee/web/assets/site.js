// The site's standings and bot pages (a contest's or a ladder's): JSON from /api, live updates
// from /events/contest (server-sent events: a new snapshot whenever a match is committed or a bot
// comes or goes). The same standings page is a ladder's written report (croupier ladder report,
// referee/web/report_index.py): opened from disk, its snapshot is embedded in the page
// (#data), with the report's own part (problems, ratings over time, a page of matches).
// Every name (a bot's, a member's, a match's) is set as text, never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const page = document.body.dataset.page;
  const embedded = $("data");

  function el(tag, content, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content instanceof Node) node.appendChild(content);
    else if (content !== undefined && content !== null) node.textContent = String(content);
    return node;
  }
  function link(href, content, className) {
    const a = el("a", content, className);
    a.href = href;
    return a;
  }
  function row(cells) {
    const tr = document.createElement("tr");
    for (const cell of cells) tr.appendChild(cell instanceof Node && cell.tagName === "TD" ? cell : el("td", cell));
    return tr;
  }
  function num(value, digits) {
    const td = el("td", value === null || value === undefined ? "-" : Number(value).toFixed(digits));
    td.className = "num";
    return td;
  }
  // A JSON answer of the site as {ok, data}, or null when the request never got one (the page
  // is being left, the server restarts): the caller shows nothing new and a later snapshot asks
  // again; no error reaches the page.
  async function getJson(url) {
    let response;
    try {
      response = await fetch(url);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      const connection = $("connection");
      if (connection) connection.textContent = "reconnecting…";
      return null;
    }
    return { ok: response.ok, data: await response.json() };
  }
  // "1 match", "2 matches": as the CLI prints counts (referee/text.py, plural).
  const plural = (count, noun, nouns) => `${count} ${Math.abs(count) === 1 ? noun : nouns || noun + "s"}`;
  const botHref = (bot) => `/bots/${encodeURIComponent(bot)}`;
  // A time as people read it ("3 min ago"), the exact time (UTC) on hover; refreshed below.
  function ago(iso) {
    const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (seconds < 45) return "just now";
    if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
    if (seconds < 86400) return `${plural(Math.round(seconds / 3600), "hour")} ago`;
    return `${plural(Math.round(seconds / 86400), "day")} ago`;
  }
  function when(iso) {
    const node = el("time", iso ? ago(iso) : "-");
    if (iso) {
      node.dateTime = iso;
      node.title = iso;
    }
    return node;
  }
  setInterval(() => {
    for (const node of document.querySelectorAll("time[datetime]")) node.textContent = ago(node.dateTime);
  }, 30_000);
  // Ratings, intervals and scores come formatted by the server, as the CLI prints them.
  function textCell(r, key) {
    const td = el("td", r.text ? r.text[key] : "-");
    td.className = "num";
    return td;
  }
  const times = (n) => (n > 1 ? ` ×${n}` : "");
  const faultText = (faults) =>
    Object.entries(faults || {}).map(([reason, n]) => `${reason} ${n}`).join(", ") || "-";

  // --- the standings page ----------------------------------------------------------------------

  function stateCell(r) {
    const td = el("td", r.state, `state state-${r.state}`);
    if (r.state === "offline" && r.last_seen) {
      td.appendChild(document.createTextNode(", seen "));
      td.appendChild(when(r.last_seen));
    }
    if (r.state !== "offline") td.title = `${plural(r.sessions, "session")}, ${plural(r.playing, "live match", "live matches")}`;
    if (r.revoked) td.appendChild(el("span", "revoked", "badge revoked"));
    return td;
  }

  // A rated bot the standings call provisional (referee.ratings.fits.provisional).
  const provisional = (r) => r.provisional === true && r.rating !== null && r.rating !== undefined;
  function ratingCell(r) {
    const td = textCell(r, "rating"); // the CLI's text, "?" on a provisional rating
    if (provisional(r)) td.title = "provisional";
    return td;
  }

  // A bot's name in the standings: a hosted version's is its account's (a link to the account's
  // page, with every version) then its version (a link to that version's own page).
  function botCell(r) {
    const td = el("td", undefined, "bot");
    if (!r.version || !r.bot.startsWith(r.account)) td.appendChild(link(botHref(r.bot), r.bot));
    else {
      td.appendChild(link(botHref(r.account), r.account));
      const version = link(botHref(r.bot), r.bot.slice(r.account.length), "version");
      version.title = `version ${r.version}`;
      td.appendChild(version);
      if (r.versions_tried) td.title = `${plural(r.versions_tried, "version")} tried`;
    }
    const team = teamText(r.account, r.members);
    if (team) td.appendChild(el("span", team, "members"));
    return td;
  }
  // A team's members beside its name (as text: a member's name is any printable text), unless
  // it is a team of one named as its account.
  function teamText(account, members) {
    if (!members || !members.length || (members.length === 1 && members[0] === account)) return "";
    return ` (${members.join(", ")})`;
  }
  // A cell of the standings: its text as the CLI prints it, its exact value in data-value.
  function cell(content, key, value, kind) {
    const td = content instanceof Node && content.tagName === "TD" ? content : el("td", content);
    td.classList.add(kind || "num");
    td.dataset.key = key;
    td.dataset.value = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
    return td;
  }
  const said = (r, key) => (r.text ? r.text[key] : "-");
  const faultsOf = (r) => Object.assign({}, r.faults, r.restarts ? { restarted: r.restarts } : {});
  // The standings' columns, each [key, heading, title]: the served site's (with who is connected)
  // and a written report's, the CLI's table cell for cell (`croupier ladder standings`, its
  // margins beside).
  const COLUMNS = {
    rank: (r) => cell(said(r, "rank"), "rank", [r.rank_top ?? null, r.rank_bottom ?? null]),
    bot: (r, report) => cell(report ? reportBotCell(r) : botCell(r), "bot", r.bot, "text"),
    rating: (r) => cell(ratingCell(r), "rating", r.rating),
    interval: (r) => cell(said(r, "interval"), "interval", r.sigma === null || r.sigma === undefined ? [r.low ?? null, r.high ?? null] : [r.mu, r.sigma]),
    rank_interval: (r) => cell(said(r, "rank_interval"), "rank_interval", [r.rank_low ?? null, r.rank_high ?? null]),
    matches: (r) => cell(r.matches ?? "-", "matches", r.matches),
    score: (r) => cell(said(r, "score"), "score", r.score),
    points: (r) => cell(said(r, "points"), "points", r.points),
    margin: (r) => cell(said(r, "margin"), "margin", r.margin),
    corrected: (r) => cell(said(r, "corrected"), "corrected", r.corrected),
    faults: (r) => cell(r.text ? r.text.faults : faultText(r.faults), "faults", faultsOf(r), "text"),
    state: (r) => stateCell(r),
  };
  function columns(snap) {
    if (!snap.report) {
      return [["rank", "#"], ["bot", "bot"], ["rating", "rating"], ["interval", "interval"], ["rank_interval", "rank 95%"],
        ["matches", "matches"], ["score", "score"],
        ["margin", "margin", "mean points per match over the other sides', 95% interval"],
        ["corrected", "corrected", "the margin corrected for luck (each chance outcome's E[V] - V), 95% interval"],
        ["faults", "faults"], ["state", "state"]];
    }
    const rows = snap.standings;
    return [["rank", "rank"], ["bot", "bot"], ["rating", snap.contest.rating_heading], ["interval", "95% interval"],
      ["rank_interval", "rank 95%"], ["matches", "matches"], ["score", "score"], ["points", "points"], ["faults", "faults"],
      ...(rows.some((r) => r.margin !== null && r.margin !== undefined) ? [["margin", "margin"]] : []),
      ...(rows.some((r) => r.corrected !== null && r.corrected !== undefined) ? [["corrected", "luck-corrected"]] : [])];
  }
  function standingsTable(table, rows, cols, report) {
    const head = el("tr");
    for (const [key, heading, title] of cols) {
      const th = el("th", heading, ["bot", "faults", "state"].includes(key) ? "text" : "num");
      if (title) th.title = title;
      head.appendChild(th);
    }
    table.tHead.replaceChildren(head);
    const body = document.createDocumentFragment();
    for (const r of rows) {
      const tr = document.createElement("tr");
      for (const [key] of cols) tr.appendChild(COLUMNS[key](r, report));
      tr.dataset.bot = r.bot;
      tr.dataset.provisional = String(r.provisional === true);
      if (r.revoked) tr.classList.add("revoked");
      body.appendChild(tr);
    }
    table.tBodies[0].replaceChildren(body);
  }
  // A written report has no bot pages: the name, its colour in the plot, and a revoked mark as
  // the CLI's table has it.
  function reportBotCell(r) {
    const td = el("td");
    td.append(swatch(r.bot), r.revoked ? `${r.bot} (revoked)` : r.bot);
    return td;
  }

  // The head-to-head matrix: cells come from the server (text, title with the interval,
  // shade), as the CLI and the report draw them (referee.ratings.head_to_head.cells).
  function showHeadToHead(h2h) {
    const met = h2h && h2h.cells.some((line) => line.some((cell) => cell));
    $("head-to-head-section").hidden = !met;
    if (!met) return;
    const head = el("tr", el("th", "bot"));
    h2h.bots.forEach((bot, i) => {
      const th = el("th", `#${i + 1}`, "num");
      th.title = bot;
      head.appendChild(th);
    });
    const body = document.createDocumentFragment();
    h2h.cells.forEach((line, i) => {
      const tr = el("tr", el("th", `#${i + 1} ${h2h.bots[i]}`));
      tr.dataset.a = h2h.bots[i];
      line.forEach((cell, j) => {
        const td = el("td", cell ? cell.text : i === j ? "–" : "", cell ? (cell.significant ? "significant" : "even") : "none");
        if (cell) {
          td.title = cell.title;
          td.dataset.b = h2h.bots[j];
          td.dataset.value = String(cell.score);
          td.setAttribute("style", `--shade:${cell.shade}`); // a colour the server computed
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    $("head-to-head").tHead.replaceChildren(head);
    $("head-to-head").tBodies[0].replaceChildren(body);
    $("head-to-head-note").textContent = h2h.legend;
  }

  function showSnapshot(snap) {
    const c = snap.contest;
    const kind = c.kind || "contest";
    const report = snap.report;
    $("challenges-link").hidden = kind !== "contest" || Boolean(embedded);
    $("title").textContent = kind === "ladder" ? `${c.title} ladder ${c.name}` : `${c.title} contest`;
    document.title = `croupier ${kind}` + (c.name ? ` · ${c.name}` : "") + (report && report.page > 1 ? ` · page ${report.page}` : "");
    const options = Object.entries(c.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    $("meta").textContent = [
      options || "default options",
      kind === "ladder" && c.format ? c.format + (c.duplicate ? ", duplicate deals" : "") : "",
      `${plural(c.matches_done || 0, "match", "matches")} played` + (c.matches_planned ? ` of ${c.matches_planned}` : ""),
      c.sprt || "",
      c.finished ? "finished" : "",
    ].filter(Boolean).join(" · ");
    if (report) showReport(snap, report);
    if (!report || report.page === 1) {
      standingsTable($("standings"), snap.standings, columns(snap), report);
      // Selection honesty (issue 45): how many versions each hosted account tried to get here.
      const tried = snap.standings.filter((r) => r.versions_tried);
      $("selection-note").hidden = !tried.length;
      $("versions-tried").textContent = tried
        .map((r) => `${r.account} ${plural(r.versions_tried, "version")}`).join(", ");
      const retired = snap.retired || [];
      $("retired").hidden = !retired.length;
      $("retired-count").textContent = plural(retired.length, "retired hosted version");
      standingsTable($("retired-table"), retired, columns(snap), report);
      $("rating-note").textContent = (c.rating_note || "")
        + (snap.standings.some(provisional) ? `. ${c.provisional_legend}` : "")
        + (c.notes || []).map((line) => `. ${line}`).join("");
      showHeadToHead(snap.head_to_head);
    }
    if (!report) showServed(snap, kind);
    document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
    document.body.dataset.matches = String(c.matches_done || 0);
  }

  // What only the served site has: the live matches, following a bot, the latest results.
  function showServed(snap, kind) {
    const c = snap.contest;
    const live = document.createDocumentFragment();
    for (const m of snap.live) {
      const li = el("li", link(`/live/${encodeURIComponent(m.match)}`, `${m.match}: ${m.bots.join(" vs ")}`));
      li.dataset.match = m.match;
      live.appendChild(li);
    }
    if (!snap.live.length) live.appendChild(el("li", "no match is being played now", "muted"));
    $("live").replaceChildren(live);
    const select = $("follow-bot");
    const chosen = select.value;
    select.replaceChildren(el("option", "any bot"));
    select.firstChild.value = "";
    for (const r of snap.standings) {
      const option = el("option", r.bot);
      option.value = r.bot;
      select.appendChild(option);
    }
    select.value = chosen;
    followLink();
    const recent = document.createDocumentFragment();
    for (const m of snap.recent) {
      const bots = el("td");
      m.bots.forEach((bot, i) => {
        if (i) bots.appendChild(document.createTextNode(", "));
        bots.appendChild(link(botHref(bot), bot));
      });
      const faults = m.faults.map((f) => `${f.bot}: ${f.reason}${times(f.count)}`).join("; ") || "-";
      const links = el("td", link(`/matches/${encodeURIComponent(m.match)}.html`, "replay"));
      links.appendChild(document.createTextNode(" · "));
      links.appendChild(link(`/records/${encodeURIComponent(m.match)}.jsonl`, "record"));
      const tr = row([m.match, el("td", when(m.finished_at)), bots, el("td", m.result, "result"), faults, links]);
      tr.dataset.match = m.match;
      recent.appendChild(tr);
    }
    $("recent").tBodies[0].replaceChildren(recent);
    const seed = [];
    if (c.seed_sha256) seed.push(`master seed sha256: ${c.seed_sha256}`);
    if (c.seed) seed.push(`master seed (revealed): ${c.seed}`);
    else if (c.seed_sha256) seed.push(`the master seed is revealed when the ${kind} ends`);
    $("seed").replaceChildren(...seed.map((line) => el("div", line, "seed")));
  }

  // --- a written report (croupier ladder report): the same page, opened from disk -----------

  const indexName = (n) => (n === 1 ? "index.html" : `index-${n}.html`);
  const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  const DASHES = ["", "7 4", "2 3", "9 3 2 3"];
  let colours = new Map(); // bot -> its index in the standings (its colour in every table)
  const swatch = (bot) => swatchOf(colours.get(bot) || 0);
  function swatchOf(index) {
    const dot = el("i", undefined, "swatch");
    dot.style.setProperty("--c", PALETTE[index % PALETTE.length]);
    return dot;
  }

  function showReport(snap, report) {
    colours = new Map(report.bots.map((bot, i) => [bot, i]));
    $("served").remove(); // nothing plays in a written report
    $("home").href = indexName(1);
    $("connection").textContent = "written report";
    const footer = $("seed");
    footer.id = "written";
    footer.textContent = `${report.written}; every page here works offline.`;
    if (report.page > 1) {
      $("overview").remove();
      $("summary").replaceWith(el("p", link(indexName(1), "standings, ratings and problems"), "note"));
    } else {
      showSummary(snap.contest);
      $("problems").hidden = !report.problems.length;
      $("problems").querySelector("ul").replaceChildren(...report.problems.map((text) => el("li", text)));
      showRatings(snap.contest, report);
    }
    showMatches(report);
  }

  // The ladder as a whole: its game, options, format, rating, how far it is, its conditions of
  // play and its seed (a commitment until the ladder ends).
  function showSummary(c) {
    const code = (text, id) => {
      const node = el("code", text);
      if (id) node.id = id;
      return node;
    };
    const game = el("dd", c.title);
    if (c.rules_version) game.appendChild(el("span", ` (${c.rules_version})`, "quiet"));
    const items = [
      ["game", game],
      ["options", Object.entries(c.options || {}).map(([k, v]) => `${k} ${v}`).join(", ") || "none"],
      ["format", c.format + (c.duplicate ? ", duplicate deals" : "")],
      ["rating", c.rating_description],
      ["matches", `${c.matches_done} of ${c.matches_planned} committed (${c.finished ? "finished" : "running"})`],
    ];
    const t = c.time_control;
    if (t) {
      let text = `${t.move_ms ? `${t.move_ms} ms` : "no limit"} per decision, bank ${t.bank_ms} ms`;
      if (t.clock === "cpu") text += `, CPU time (wall ceiling ${t.ceiling_factor}x plus 1 s)`;
      items.push(["time control", text]);
    }
    items.push(["seed commitment", code(c.seed_sha256)]);
    if (c.luck_value) items.push(["luck value function", code(c.luck_value)]);
    if (c.seed !== null && c.seed !== undefined) {
      const seed = el("dd", code(c.seed, "seed"));
      seed.append(" (revealed)");
      items.push(["seed", seed]);
    } else items.push(["seed", `the master seed is revealed when the ${c.kind} ends`]);
    if (c.sprt) items.push(["SPRT", c.sprt]);
    const list = $("summary");
    for (const [term, value] of items) list.append(el("dt", term), value instanceof Node && value.tagName === "DD" ? value : el("dd", value));
    list.hidden = false;
  }

  // The ratings over time (data.series: per bot, its value, low and high after ks[i] matches),
  // one line per bot in its colour (dashed past ten bots), its 95% interval shaded; a cursor
  // with every bot's rating where the pointer is, the legend's keys show or hide a bot, and in
  // a report a click goes to the point's match (data.numbers, on the index page data.pages).
  // The report's plot of every bot, and a bot's page's.
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, parent, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  // Round-numbered ticks covering [low, high], about `count` of them.
  function ticks(low, high, count) {
    if (high - low < 1e-9) { low -= 1; high += 1; }
    const raw = (high - low) / count;
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
    const first = Math.floor(low / step + 1e-9) * step;
    const last = Math.ceil(high / step - 1e-9) * step;
    return Array.from({ length: Math.round((last - first) / step) + 1 }, (_, i) => first + i * step);
  }
  const short = (v) => String(Number(v.toPrecision(6)));
  const signed = (v) => (v > 0 ? "+" : "") + short(v); // every method rates on the Elo scale

  function showRatings(c, report) {
    const caption = `${c.rating_label} after each committed match, with its 95% interval shaded`;
    const section = $("ratings");
    section.hidden = false;
    section.appendChild(ratingsFigure(report.ratings, c.rating_heading, caption, report.page));
  }

  function ratingsFigure(data, heading, caption, onPage) {
    const n = data.ks.length;
    const values = data.series.flatMap((s) => s.values.filter((v) => v !== null));
    if (!n || !values.length) return el("p", n ? "No bot has a rating yet." : "No match is committed yet.", "note");
    const W = 960, H = 360, L = 64, R = 16, T = 14, B = 44;
    const plotW = W - L - R, plotH = H - T - B;
    const total = data.ks[n - 1];
    // A lone bot's plot (a bot's page) spans its interval too; a field's, the ratings alone.
    const lone = data.series.length === 1 && data.series[0].band;
    const span = lone ? values.concat(data.series[0].low, data.series[0].high).filter((v) => v !== null) : values;
    const yTicks = ticks(Math.min(...span), Math.max(...span), 6);
    const yLow = yTicks[0], yHigh = yTicks[yTicks.length - 1];
    const xAt = (k) => L + (total > 1 ? (plotW * (k - 1)) / (total - 1) : plotW / 2); // after k matches
    const xOf = (i) => xAt(data.ks[i]);
    const yOf = (v) => T + (plotH * (yHigh - v)) / (yHigh - yLow);
    const figure = el("figure");
    figure.id = "figure";
    const plot = svg("svg", { id: "plot", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "plot-title", "data-n": n }, figure);
    svg("title", { id: "plot-title" }, plot, caption);
    svg("rect", { x: L, y: T, width: plotW, height: plotH }, svg("clipPath", { id: "area" }, svg("defs", {}, plot)));
    const grid = svg("g", { class: "grid" }, plot);
    for (const tick of yTicks) {
      const y = yOf(tick).toFixed(1);
      const zero = Math.abs(tick) < 1e-9;
      svg("line", { class: zero ? "tick zero" : "tick", x1: L, x2: W - R, y1: y, y2: y }, grid);
      svg("text", { class: "ylabel", x: L - 6, y: (yOf(tick) + 4).toFixed(1) }, grid, zero ? "0" : signed(tick));
    }
    for (const tick of ticks(1, total, Math.min(10, Math.max(total - 1, 1)))) {
      if (tick < 1 || tick > total || tick !== Math.round(tick)) continue;
      const x = xAt(tick).toFixed(1);
      svg("line", { class: "tick", x1: x, x2: x, y1: T, y2: T + plotH }, grid);
      svg("text", { class: "xlabel", x, y: T + plotH + 16 }, grid, String(tick));
    }
    svg("text", { class: "axis", x: L + plotW / 2, y: H - 6 }, grid, "matches committed");
    svg("text", { class: "axis", transform: `translate(14 ${T + plotH / 2}) rotate(-90)` }, grid, heading);
    const area = svg("g", { "clip-path": "url(#area)" }, plot);
    const groups = new Map();
    data.series.forEach((s, index) => {
      const group = svg("g", { class: "series", "data-bot": s.bot }, area);
      group.style.setProperty("--c", PALETTE[index % PALETTE.length]);
      groups.set(s.bot, group);
      const band = svg("g", { class: "band" }, group);
      const path = [];
      const segments = [[]];
      s.values.forEach((v, i) => {
        if (v === null) {
          if (segments[segments.length - 1].length) segments.push([]);
          return;
        }
        const pen = segments[segments.length - 1].length ? "L" : "M";
        path.push(`${pen}${xOf(i).toFixed(1)} ${yOf(v).toFixed(1)}`);
        segments[segments.length - 1].push(i);
      });
      if (s.band) {
        for (const seg of segments.filter((seg) => seg.length)) {
          if (seg.length === 1) { // a band of one point draws nothing: its interval as a bar
            const x = xOf(seg[0]).toFixed(1);
            svg("line", { class: "band-bar", x1: x, x2: x, y1: yOf(s.low[seg[0]]).toFixed(1), y2: yOf(s.high[seg[0]]).toFixed(1) }, band);
            continue;
          }
          const upper = seg.map((i) => `${xOf(i).toFixed(1)},${yOf(s.high[i]).toFixed(1)}`);
          const lower = seg.slice().reverse().map((i) => `${xOf(i).toFixed(1)},${yOf(s.low[i]).toFixed(1)}`);
          svg("polygon", { points: upper.concat(lower).join(" ") }, band);
        }
      }
      const line = svg("path", { class: "line", d: path.join(" ") }, group);
      const dash = DASHES[Math.floor(index / PALETTE.length) % DASHES.length];
      if (dash) line.setAttribute("stroke-dasharray", dash);
      const dots = svg("g", { class: "dots" }, group);
      if (n <= 120) {
        s.values.forEach((v, i) => {
          if (v !== null) svg("circle", { class: "dot", cx: xOf(i).toFixed(1), cy: yOf(v).toFixed(1), r: 2.6 }, dots);
        });
      }
    });
    const cursor = svg("line", { id: "cursor", x1: 0, x2: 0, y1: T, y2: T + plotH }, plot);
    const hit = svg("rect", { id: "hit", x: L, y: T, width: plotW, height: plotH }, plot);
    const tip = el("div");
    tip.id = "tip";
    tip.hidden = true;
    figure.append(tip, el("figcaption", `${caption}. Point k: the ratings over the first k matches committed, as the standings showed them then; hover for values` + (data.pages ? ", click for the match." : ".")));
    const legend = el("div", undefined, "legend");
    const off = new Set();
    data.series.forEach((s, index) => {
      const key = el("button", swatchOf(index), "key");
      key.type = "button";
      key.dataset.bot = s.bot;
      key.setAttribute("aria-pressed", "true");
      key.append(s.legend || s.bot);
      const group = groups.get(s.bot);
      key.addEventListener("click", () => {
        const hide = key.getAttribute("aria-pressed") === "true";
        key.setAttribute("aria-pressed", hide ? "false" : "true");
        group.classList.toggle("off", hide);
        if (hide) off.add(s.bot); else off.delete(s.bot);
      });
      key.addEventListener("mouseenter", () => { plot.classList.add("focus"); group.classList.add("focused"); });
      key.addEventListener("mouseleave", () => { plot.classList.remove("focus"); group.classList.remove("focused"); });
      legend.appendChild(key);
    });
    const bands = el("input");
    bands.type = "checkbox";
    bands.id = "bands";
    bands.checked = data.series.length <= 2;
    const sync = () => plot.classList.toggle("nobands", !bands.checked);
    bands.addEventListener("change", sync);
    sync();
    const label = el("label", bands, "bands");
    label.append(" 95% intervals");
    if (data.series.some((s) => s.band)) legend.appendChild(label);
    figure.appendChild(legend);

    const fmt = (v) => (v === null ? "-" : (v > 0 ? "+" : "") + Math.round(v));
    function indexAt(event) { // point i stands after ks[i] matches: past a thousand, not every one
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(plot.getScreenCTM().inverse());
      let best = 0;
      for (let i = 1; i < n; i++) if (Math.abs(xOf(i) - point.x) < Math.abs(xOf(best) - point.x)) best = i;
      return best;
    }
    hit.addEventListener("mousemove", (event) => {
      const i = indexAt(event);
      const x = xOf(i);
      cursor.setAttribute("x1", x);
      cursor.setAttribute("x2", x);
      cursor.style.visibility = "visible";
      const which = data.numbers ? `: #${data.numbers[i]} ${data.matches[i]}` : "";
      tip.replaceChildren(el("b", `after ${data.ks[i]} of ${total} matches${which}`));
      const rows = data.series.map((s, index) => ({ s, index, v: s.values[i] }))
        .sort((a, b) => (b.v === null ? -Infinity : b.v) - (a.v === null ? -Infinity : a.v));
      for (const { s, index, v } of rows) {
        const line = el("div", swatchOf(index), off.has(s.bot) ? "off" : "");
        line.append(`${s.legend || s.bot} ${fmt(v)}` + (v !== null ? ` (${fmt(s.low[i])}..${fmt(s.high[i])})` : ""));
        tip.appendChild(line);
      }
      tip.hidden = false;
      const box = plot.getBoundingClientRect();
      const left = (x * box.width) / W;
      tip.style.top = "0.5rem";
      tip.style.left = left + tip.offsetWidth + 16 > box.width ? `${left - tip.offsetWidth - 12}px` : `${left + 12}px`;
    });
    hit.addEventListener("mouseleave", () => { tip.hidden = true; cursor.style.visibility = "hidden"; });
    if (data.pages) {
      hit.addEventListener("click", (event) => {
        const i = indexAt(event);
        const hash = `#match-${data.numbers[i]}`;
        if (data.pages[i] === onPage) location.hash = hash;
        else location.href = indexName(data.pages[i]) + hash;
      });
    }
    return figure;
  }

  // The report's page of committed matches: each one's viewer page, round, deal, seats (each a
  // link to that seat's view), result, faults (each a link to the step it happened at, with its
  // wall and CPU time: wall far above CPU is a starved bot, not a slow one) and time.
  function showMatches(report) {
    const list = report.matches;
    $("matches-section").hidden = false;
    const body = document.createDocumentFragment();
    for (const m of list.matches) {
      const replay = m.links.replay;
      const name = replay ? link(replay, m.match, "viewer") : el("span", m.match, "missing");
      if (!replay) name.title = "no viewer page";
      const seats = el("td", undefined, "seats");
      m.bots.forEach((bot, seat) => {
        const who = replay ? link(`${replay}#seat=${seat}`, swatch(bot)) : el("span", swatch(bot));
        if (replay) who.title = `seat ${seat}’s view`;
        who.append(bot);
        const span = el("span", who, m.ranks[seat] === 1 ? "win" : "");
        span.append(` ${m.scores[seat]}`);
        if (seat) seats.append(" ");
        seats.appendChild(span);
      });
      const result = el("td", m.result);
      if (m.termination !== "normal") result.append(" ", el("span", `(${m.termination})`, "quiet"));
      const faults = el("td");
      m.faults.forEach((f, i) => {
        const [wall, cpu] = f.times[0] || [];
        let text = f.reason + times(f.count);
        if (wall !== undefined) text += ` (wall ${wall} ms${cpu >= 0 ? `, cpu ${cpu} ms` : ""})`;
        const span = el("span", `${f.bot || `seat ${f.seat}`}: `, "fault");
        span.appendChild(replay && f.step !== null ? link(`${replay}#step=${f.step}`, text) : document.createTextNode(text));
        span.title = (f.details.filter(Boolean).join("; ") || f.reason)
          + (f.times.length ? " · " + f.times.map(([w, c]) => `wall ${w} ms` + (c >= 0 ? `, cpu ${c} ms` : "")).join("; ") : "");
        if (i) faults.append(" ");
        faults.appendChild(span);
      });
      const tr = row([num(m.number, 0), el("td", name), num(m.round, 0), num(m.deal, 0), seats, result, faults, num(m.seconds, 1)]);
      tr.id = `match-${m.number}`;
      tr.dataset.match = m.match;
      body.appendChild(tr);
    }
    $("matches").tBodies[0].replaceChildren(body);
    if (!list.matches.length) $("matches").replaceWith(el("p", "No match is committed yet.", "note"));
    const where = {
      page: report.page, pages: report.pages, first: list.offset + 1,
      last: list.offset + list.matches.length, total: list.total, href: indexName,
      words: ["", "« first", "‹ previous", "next ›", "last »"],
    };
    const above = el("nav", undefined, "pager");
    $("matches-section").querySelector("h2").after(above);
    pager(above, where);
    if (list.matches.length > 20) {
      const below = el("nav", undefined, "pager");
      $("matches-section").appendChild(below);
      pager(below, where);
    }
    for (const nav of document.querySelectorAll("nav.pager:empty")) nav.remove();
    const input = $("filter");
    const rows = [...$("matches-section").querySelectorAll("tbody tr")];
    const texts = rows.map((tr) => tr.textContent.toLowerCase());
    input.addEventListener("input", () => {
      const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let count = 0;
      rows.forEach((tr, i) => {
        tr.hidden = !words.every((word) => texts[i].includes(word));
        count += !tr.hidden;
      });
      $("shown").textContent = words.length ? `${count} of ${plural(rows.length, "match", "matches")}` : "";
    });
  }

  // A list's pager: where this page's matches stand among all, then links to the first,
  // previous, next and last pages and to the pages around this one by number (a bot's page, newest
  // first; a report's index pages, oldest first).
  function pager(nav, where) {
    const { page: at, pages, first, last, total, href, words } = where;
    nav.replaceChildren();
    if (pages <= 1) return;
    const go = (n, text, rel) => {
      if (n < 1 || n > pages || n === at) return el("span", text, "off");
      const a = link(href(n), text);
      if (rel) a.rel = rel;
      return a;
    };
    const numbers = [...new Set([1, pages, ...Array.from({ length: 7 }, (_, i) => at - 3 + i)])]
      .filter((n) => n >= 1 && n <= pages).sort((a, b) => a - b);
    nav.append(`matches ${first}–${last} of ${total}${words[0]} · `, go(1, words[1]), " ", go(at - 1, words[2], "prev"), " ");
    for (const n of numbers) nav.append(n === at ? el("b", String(n)) : go(n, String(n)), " ");
    nav.append(go(at + 1, words[3], "next"), " ", go(pages, words[4]));
  }

  // What every bot gets (the contest's terms, from the public API): read once, they never change
  // while the referee runs.
  const limitText = (value, unit) => (value ? `${value}${unit}` : "no limit");
  function termRows(c) {
    const t = c.every_bot_gets;
    const options = Object.entries(c.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    const clock = t.time_control.move_ms
      ? `${t.time_control.move_ms} ms a decision, and a bank of ${t.time_control.bank_ms} ms for overruns`
      : "no time limit";
    const rows = [
      ["game", "game", `${c.title} (${c.game}): ${options || "default options"}`],
      ["clock", "time control", clock],
      ["faults", "faults", `a seat is retired after ${plural(t.max_faults, "fault")} in a match`],
      ["reconnect", "reconnecting", `${t.reconnect_grace} s to come back mid-match and take the seat again`],
      ["sessions", "matches per session", t.max_matches_per_session ? `a session ends after ${plural(t.max_matches_per_session, "match", "matches")}` : "no limit"],
    ];
    const l = t.hosted_limits;
    if (l) {
      rows.push(["limits", "hosted bots' limits", [
        `memory ${limitText(l.memory_mb, " MiB")}`,
        `processes ${limitText(l.processes, "")}`,
        `disk ${limitText(l.disk_mb, " MiB")}`,
        `open files ${limitText(l.open_files, "")}`,
        `CPU time ${limitText(l.cpu_seconds, " s")}`,
      ].join(", ") + " (unless its bot.toml asks for others)"]);
    }
    return rows;
  }
  async function showTerms() {
    const answer = await getJson("/api/v1/contest");
    if (!answer || !answer.ok || !answer.data.every_bot_gets) return;
    const c = answer.data;
    const body = document.createDocumentFragment();
    for (const [key, name, text] of termRows(c)) {
      const tr = el("tr");
      tr.append(el("th", name), el("td", text));
      tr.dataset.term = key;
      body.appendChild(tr);
    }
    const section = $("terms");
    section.querySelector("tbody").replaceChildren(body);
    section.hidden = false;
  }
  if (page === "index" && !embedded) showTerms();

  function followLink() {
    const bot = $("follow-bot").value;
    $("follow-link").href = bot ? `/follow?bot=${encodeURIComponent(bot)}` : "/follow";
    $("follow-link").textContent = bot ? `follow ${bot}` : "follow every match";
  }
  if (page === "index" && !embedded) $("follow-bot").addEventListener("change", followLink);

  // --- a bot's page --------------------------------------------------------------------------

  const botName = page === "bot" ? decodeURIComponent(location.pathname.split("/").pop()) : "";

  // A bot's ratings over time (its own, and each of an account's versions, named in the legend):
  // series of [after k matches, rating, low, high] drawn by the one ratings plot; a lone series
  // shows its interval too.
  function botRatings(series, label) {
    series = series.filter((s) => s.points.length);
    const ks = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
    const at = (s, i) => {
      const byK = new Map(s.points.map((p) => [p[0], p[i]]));
      return ks.map((k) => (byK.has(k) ? byK.get(k) : null));
    };
    const data = {
      ks,
      series: series.map((s) => ({ bot: s.label, legend: s.legend, values: at(s, 1), low: at(s, 2), high: at(s, 3), band: series.length === 1 })),
    };
    return ratingsFigure(data, label, `${botName}: ${label} after each committed match`);
  }

  // The bot's matches a page at a time, newest first: ?page=N (and ?size=M, 100 unless said).
  const query = new URLSearchParams(location.search);
  const whole = (text, fallback) => Math.max(1, Math.floor(Number(text)) || fallback);
  const shownPage = whole(query.get("page"), 1);
  const PAGE_SIZE = Math.min(whole(query.get("size"), 100), 1000);
  const pageHref = (n) => `?page=${n}` + (query.has("size") ? `&size=${PAGE_SIZE}` : "");

  function showPager(data) {
    pager($("pager"), {
      page: shownPage, pages: Math.max(1, Math.ceil(data.total / PAGE_SIZE)), first: data.offset + 1,
      last: data.offset + data.matches.length, total: data.total, href: pageHref,
      words: [" (newest first)", "« newest", "‹ newer", "older ›", "oldest »"],
    });
  }

  // A hosted account's versions: status and its one-line reason (never a build log), and each
  // version's rating, interval and matches as the entrant it plays as, with a link to its page.
  function showVersions(versions) {
    const section = $("versions");
    section.hidden = !versions.length;
    const body = document.createDocumentFragment();
    for (const v of versions) {
      const short = v.id.slice(0, 12);
      const name = v.page ? el("td", link(botHref(v.entrant), short)) : el("td", short);
      const status = el("td", v.status);
      if (v.active) status.appendChild(el("span", "active", "badge active"));
      const r = v.row || {};
      const tr = row([
        name, status, ratingCell(r), textCell(r, "interval"), num(v.row ? r.matches : null, 0),
        v.reason || "-", el("td", when(v.submitted_at)), el("td", when(v.updated_at)),
      ]);
      tr.dataset.version = v.id;
      tr.title = v.id;
      body.appendChild(tr);
    }
    section.querySelector("tbody").replaceChildren(body);
  }

  // A hosted version's page names its account, whose page lists every version.
  function showAccount(data) {
    const account = $("account");
    account.hidden = !data.version;
    if (!data.version) return;
    account.replaceChildren(
      `version ${data.version.slice(0, 12)} of `,
      link(botHref(data.account), data.account),
      ", whose page lists every version",
    );
  }

  async function showBot() {
    const offset = (shownPage - 1) * PAGE_SIZE;
    const answer = await getJson(`/api/bots/${encodeURIComponent(botName)}?offset=${offset}&limit=${PAGE_SIZE}`);
    if (!answer) {
      shownMatches = null; // the next snapshot asks again
      return;
    }
    const data = answer.data;
    $("title").textContent = botName;
    document.title = `croupier ${data.kind || "contest"} · ${botName}`;
    if (!answer.ok) {
      $("meta").textContent = data.error;
      return;
    }
    const r = data.row;
    // A hosted account that never connects by itself: its versions play, each under its own name.
    const hostedOnly = data.versions.length && !r && data.state === "offline";
    $("meta").textContent = [
      data.revoked ? "account revoked" : "",
      teamText(data.account, data.members) ? `team: ${data.members.join(", ")}` : "",
      hostedOnly ? `a hosted bot: ${plural(data.versions.length, "version")}, each with its own page and matches` : data.state,
      data.state === "offline" && data.last_seen ? `seen ${ago(data.last_seen)} (${data.last_seen})` : "",
      r && r.rating !== null ? `rating ${r.text.rating} (${r.text.interval}), score ${r.text.score}` : "",
      r && provisional(r) ? "provisional rating (its interval is still wide next to the field's)" : "",
      hostedOnly ? "" : plural(data.total, "match", "matches"),
      data.versions_tried ? `${plural(data.versions_tried, "version")} submitted` : "",
      data.versions_tried ? `${plural(data.challenges || 0, "challenge")} run` : "",
      r ? `faults: ${faultText(r.faults)}` : "",
    ].filter(Boolean).join(" · ");
    const live = $("live-now");
    live.replaceChildren();
    for (const match of data.live) {
      live.appendChild(document.createTextNode("playing now: "));
      live.appendChild(link(`/live/${encodeURIComponent(match)}`, match));
      live.appendChild(document.createTextNode(" "));
    }
    if (data.live.length || data.state !== "offline") {
      live.appendChild(link(`/follow?bot=${encodeURIComponent(botName)}`, `follow ${botName}'s matches`));
    }
    const series = [{ label: botName, legend: botName, points: data.history }];
    for (const v of data.versions) {
      const legend = v.id.slice(0, 12) + (v.active ? " (active)" : "");
      series.push({ label: v.entrant, legend, points: v.history });
    }
    $("ratings").replaceChildren(botRatings(series, data.rating_label));
    showAccount(data);
    const body = document.createDocumentFragment();
    for (const m of data.matches) {
      const seat = m.bots.indexOf(botName);
      const others = m.bots.filter((b, i) => i !== seat);
      const opponents = el("td");
      others.forEach((bot, i) => {
        if (i) opponents.appendChild(document.createTextNode(", "));
        opponents.appendChild(link(botHref(bot), bot));
      });
      const faults = el("td", m.faults.filter((f) => f.seat === seat).map((f) => `${f.reason}${times(f.count)}: ${f.detail}`).join("; ") || "-");
      if (faults.textContent !== "-") faults.className = "fault";
      const links = el("td", link(`/matches/${encodeURIComponent(m.match)}.html#seat=${seat}`, "replay"));
      links.appendChild(document.createTextNode(" · "));
      links.appendChild(link(`/records/${encodeURIComponent(m.match)}.jsonl`, "record"));
      const tr = row([m.match, el("td", when(m.finished_at)), seat, opponents, m.ranks[seat] ?? "-", m.scores[seat] ?? "-", el("td", m.result, "result"), faults, links]);
      tr.dataset.match = m.match;
      body.appendChild(tr);
    }
    $("matches").tBodies[0].replaceChildren(body);
    showPager(data);
    showVersions(data.versions);
    document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
  }

  // --- the challenges page -------------------------------------------------------------------

  // The decided ranked challenges (/api/v1/challenges), newest first; read again as the
  // contest moves on, at most every CHALLENGES_MS.
  const CHALLENGES_MS = 10_000;
  let challengesRead = 0;
  async function showChallenges() {
    if (Date.now() - challengesRead < CHALLENGES_MS) return;
    challengesRead = Date.now();
    const answer = await getJson("/api/v1/challenges");
    if (!answer || !answer.ok) {
      challengesRead = 0; // asked again at the next snapshot
      return;
    }
    const decided = answer.data.decided_ranked.slice().reverse();
    const account = (entrant) => entrant.split("@")[0];
    const rows = decided.map((c) => {
      const tr = row([
        `#${c.id}`,
        el("td", link(botHref(account(c.challenger)), c.challenger)),
        el("td", link(botHref(account(c.opponent)), c.opponent)),
        c.outcome,
        num(c.deals_played, 0),
        num(c.llr, 2),
        el("td", when(c.ended_at)),
        c.summary,
      ]);
      tr.dataset.challenge = String(c.id);
      return tr;
    });
    $("challenges").querySelector("tbody").replaceChildren(...rows);
    $("none").hidden = rows.length > 0;
    document.body.dataset.challenges = String(rows.length);
  }

  // --- the data -------------------------------------------------------------------------------

  // Every snapshot of the contest, to `show`: the one embedded in a written report, or the
  // site's as they come (/events/contest; the same JSON as /api/contest).
  function snapshots(show) {
    if (embedded) {
      show(JSON.parse(embedded.textContent));
      return;
    }
    const events = new EventSource("/events/contest");
    events.addEventListener("open", () => { $("connection").textContent = "live"; });
    events.addEventListener("error", () => { $("connection").textContent = "reconnecting…"; });
    events.addEventListener("snapshot", (event) => show(JSON.parse(event.data)));
  }

  let shownMatches = null;
  snapshots((snap) => {
    if (page === "index") showSnapshot(snap);
    else if (page === "challenges") showChallenges();
    else if (page === "bot" && snap.contest.matches_done !== shownMatches) {
      shownMatches = snap.contest.matches_done;
      showBot();
    }
  });
})();
