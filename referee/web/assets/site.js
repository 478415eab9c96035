// The site's standings and bot pages (a contest's or a ladder's): JSON from /api, live updates
// from /events/contest (server-sent events: a new snapshot whenever a match is committed or a bot
// comes or goes).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const page = document.body.dataset.page;

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
  function standingRows(rows) {
    const body = document.createDocumentFragment();
    for (const r of rows) {
      const tr = row([
        r.text ? r.text.rank : "-", // the shared rank, as the CLI shows it
        botCell(r),
        ratingCell(r),
        textCell(r, "interval"),
        textCell(r, "rank_interval"),
        num(r.matches, 0),
        textCell(r, "score"),
        textCell(r, "margin"),
        textCell(r, "corrected"),
        faultText(r.faults),
        stateCell(r),
      ]);
      tr.dataset.bot = r.bot;
      if (r.revoked) tr.classList.add("revoked");
      body.appendChild(tr);
    }
    return body;
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
          td.style.setProperty("--shade", cell.shade);
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
    $("title").textContent = kind === "ladder" ? `${c.title} ladder ${c.name}` : `${c.title} contest`;
    document.title = `croupier ${kind}` + (c.name ? ` · ${c.name}` : "");
    const options = Object.entries(c.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    $("meta").textContent = [
      options || "default options",
      kind === "ladder" && c.format ? c.format + (c.duplicate ? ", duplicate deals" : "") : "",
      `${plural(c.matches_done || 0, "match", "matches")} played` + (c.matches_planned ? ` of ${c.matches_planned}` : ""),
      c.sprt || "",
      c.finished ? "finished" : "",
    ].filter(Boolean).join(" · ");
    $("standings").tBodies[0].replaceChildren(standingRows(snap.standings));
    // Selection honesty (issue 45): how many versions each hosted account tried to get here.
    const tried = snap.standings.filter((r) => r.versions_tried);
    $("selection-note").hidden = !tried.length;
    $("versions-tried").textContent = tried
      .map((r) => `${r.account} ${plural(r.versions_tried, "version")}`).join(", ");
    const retired = snap.retired || [];
    $("retired").hidden = !retired.length;
    $("retired-count").textContent = plural(retired.length, "retired hosted version");
    $("retired-table").tBodies[0].replaceChildren(standingRows(retired));
    $("rating-note").textContent = (c.rating_note || "")
      + (snap.standings.some(provisional) ? `. ${c.provisional_legend}` : "")
      + (c.notes || []).map((line) => `. ${line}`).join("");
    showHeadToHead(snap.head_to_head);
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
    document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
    document.body.dataset.matches = String(c.matches_done || 0);
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
    const response = await fetch("/api/v1/contest");
    const c = await response.json();
    if (!response.ok || !c.every_bot_gets) return;
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
  if (page === "index") {
    showTerms();
    $("retired-table").tHead.replaceWith($("standings").tHead.cloneNode(true));
  }

  function followLink() {
    const bot = $("follow-bot").value;
    $("follow-link").href = bot ? `/follow?bot=${encodeURIComponent(bot)}` : "/follow";
    $("follow-link").textContent = bot ? `follow ${bot}` : "follow every match";
  }
  if (page === "index") $("follow-bot").addEventListener("change", followLink);

  // --- a bot's page --------------------------------------------------------------------------

  const botName = page === "bot" ? decodeURIComponent(location.pathname.split("/").pop()) : "";

  // Ratings over time, one line per series ({label, legend, points: [[k, rating, low, high], ...]}):
  // a bot's own, or each of an account's versions, named in a legend. A lone series shows its
  // interval too.
  function plot(series, label) {
    series = series.filter((s) => s.points.length);
    if (!series.length) return el("p", "no rating yet", "note");
    const all = series.flatMap((s) => s.points);
    const W = 640, H = 220, L = 48, R = 10, T = 10, B = 28;
    const xs = all.map((p) => p[0]);
    const band = series.length === 1;
    let lo = Math.min(...all.map((p) => (band ? p[2] : p[1])));
    let hi = Math.max(...all.map((p) => (band ? p[3] : p[1])));
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    const x0 = Math.min(...xs), x1 = Math.max(...xs);
    const x = (v) => L + (x1 > x0 ? ((v - x0) / (x1 - x0)) * (W - L - R) : (W - L - R) / 2);
    const y = (v) => T + ((hi - v) / (hi - lo)) * (H - T - B);
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "rating");
    svg.setAttribute("role", "img");
    const add = (tag, attrs, content) => {
      const node = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      if (content !== undefined) node.textContent = content;
      svg.appendChild(node);
      return node;
    };
    const at = (p, i) => `${x(p[0]).toFixed(1)},${y(p[i]).toFixed(1)}`;
    if (band) {
      const points = series[0].points;
      const lower = points.slice().reverse().map((p) => at(p, 2));
      add("polygon", { class: "band", points: points.map((p) => at(p, 3)).concat(lower).join(" ") });
    }
    series.forEach((s, i) => {
      const line = add("polyline", { class: `line series-${i % 6}`, points: s.points.map((p) => at(p, 1)).join(" ") });
      line.dataset.series = s.label;
      if (s.points.length === 1) { // a line of one point draws nothing: a dot, and its interval
        const [p] = s.points;
        if (band) add("line", { class: "band-bar", x1: x(p[0]), x2: x(p[0]), y1: y(p[2]), y2: y(p[3]) });
        add("circle", { class: `dot series-${i % 6}`, cx: x(p[0]), cy: y(p[1]), r: 4 });
      }
      if (!band) add("text", { class: `legend series-${i % 6}`, x: L + 8 + i * 150, y: T + 12 }, `— ${s.legend}`);
    });
    add("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B });
    add("text", { x: 4, y: y(hi) + 10 }, hi.toFixed(0));
    add("text", { x: 4, y: y(lo) }, lo.toFixed(0));
    add("text", { x: L, y: H - 8 }, `after match ${x0}`);
    add("text", { x: W - R - 120, y: H - 8 }, `after match ${x1}`);
    add("title", {}, `${botName}: ${label} after each committed match`);
    return svg;
  }

  // The bot's matches a page at a time, newest first: ?page=N (and ?size=M, 100 unless said).
  const query = new URLSearchParams(location.search);
  const whole = (text, fallback) => Math.max(1, Math.floor(Number(text)) || fallback);
  const shownPage = whole(query.get("page"), 1);
  const PAGE_SIZE = Math.min(whole(query.get("size"), 100), 1000);
  const pageHref = (n) => `?page=${n}` + (query.has("size") ? `&size=${PAGE_SIZE}` : "");

  function pager(data) {
    const nav = $("pager");
    nav.replaceChildren();
    const pages = Math.max(1, Math.ceil(data.total / PAGE_SIZE));
    if (pages === 1) return;
    const first = data.offset + 1;
    const last = data.offset + data.matches.length;
    const go = (n, text, rel) => {
      if (n < 1 || n > pages || n === shownPage) return el("span", text, "off");
      const a = link(pageHref(n), text);
      if (rel) a.rel = rel;
      return a;
    };
    nav.append(
      `matches ${first}–${last} of ${data.total} (newest first) · `,
      go(1, "« newest"), " ", go(shownPage - 1, "‹ newer", "prev"), " ",
      `page ${shownPage} of ${pages}`, " ",
      go(shownPage + 1, "older ›", "next"), " ", go(pages, "oldest »"),
    );
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
    const response = await fetch(`/api/bots/${encodeURIComponent(botName)}?offset=${offset}&limit=${PAGE_SIZE}`);
    const data = await response.json();
    $("title").textContent = botName;
    document.title = `croupier ${data.kind || "contest"} · ${botName}`;
    if (!response.ok) {
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
    $("plot").replaceChildren(plot(series, data.rating_label));
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
    pager(data);
    showVersions(data.versions);
    document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
  }

  // --- live updates --------------------------------------------------------------------------

  let shownMatches = null;
  const events = new EventSource("/events/contest");
  events.addEventListener("open", () => { $("connection").textContent = "live"; });
  events.addEventListener("error", () => { $("connection").textContent = "reconnecting…"; });
  events.addEventListener("snapshot", (event) => {
    const snap = JSON.parse(event.data);
    if (page === "index") showSnapshot(snap);
    else if (page === "bot" && snap.contest.matches_done !== shownMatches) {
      shownMatches = snap.contest.matches_done;
      showBot();
    }
  });
})();
