// The author's desk (/desk): a team's own page. Its data comes from /desk/data, its events from
// /desk/events (polled), both sent only with the session cookie; its forms post with the
// session's CSRF token. Every name, reason and log line is put in as text, never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 1000; // how often the feed asks for new events
  const FEED_KEPT = 200; // events the feed shows, newest first
  const REFRESH_MS = 5000; // how often the rest is read again without an event (new matches)
  let refreshed = 0;
  let csrf = "";
  let after = 0;
  let polling = false;
  let timer = 0;
  let signedIn = false;

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
  const short = (id) => String(id).slice(0, 12);
  const bytes = (n) => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) ? 1 : 0)} MiB`;

  async function json(url, options) {
    const response = await fetch(url, Object.assign({ credentials: "same-origin", cache: "no-store" }, options || {}));
    let data = {};
    try {
      data = await response.json();
    } catch (error) {
      data = { error: `${response.status} ${response.statusText}` };
    }
    return { ok: response.ok, status: response.status, data };
  }

  function button(text, onClick) {
    const b = el("button", text);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }
  async function showLog(target, url, pick) {
    const got = await json(url);
    target.hidden = false;
    target.textContent = got.ok ? pick(got.data) : got.data.error;
    target.scrollIntoView({ block: "nearest" });
  }

  // --- the team's own ----------------------------------------------------------------------------

  function render(d) {
    signedIn = true;
    csrf = d.csrf;
    $("sign-out-csrf").value = csrf;
    $("sign-in").hidden = true;
    $("desk").hidden = false;
    $("title").textContent = d.team;
    $("you").textContent = `signed in as ${d.you}${d.leader ? " (leader)" : ""} of team ${d.team}`;
    const members = document.createDocumentFragment();
    for (const m of d.members) {
      const li = el("li", m.name);
      if (m.leader) li.appendChild(el("span", "leader", "badge"));
      members.appendChild(li);
    }
    $("members").replaceChildren(members);
    const q = d.quotas;
    $("quotas").textContent =
      `at most ${bytes(q.upload_bytes)} an upload, ${q.submissions_per_hour} uploads an hour, ${q.versions_kept} versions kept` +
      (d.frozen ? `; uploads are closed: ${d.frozen}` : "");
    const versions = document.createDocumentFragment();
    for (const v of d.versions) {
      const status = el("td", v.status, `status status-${v.status}`);
      if (v.active) status.appendChild(el("span", "active", "badge active"));
      const logs = el("td", button("build log", () =>
        showLog($("version-log"), `/desk/versions/${encodeURIComponent(v.id)}/log`, (x) =>
          [x.log || "(no build log yet)", x.report ? `\n--- qualification ---\n${x.report}` : ""].join("")),
      ));
      const tr = row([el("td", short(v.id), "version"), status, el("td", v.reason, "reason"), v.submitted_at, v.updated_at, logs]);
      tr.dataset.version = v.id;
      tr.dataset.status = v.status;
      if (v.active) tr.dataset.active = "1";
      versions.appendChild(tr);
    }
    $("versions").tBodies[0].replaceChildren(versions);
    const matches = document.createDocumentFragment();
    for (const m of d.matches) {
      const replay = el("td", link(`/matches/${encodeURIComponent(m.match)}.html`, "replay"));
      // The match from the team's seat, its bot's lines beside each of its decisions.
      const seat = el("td", link(`/desk/replay/${encodeURIComponent(m.match)}`, "seat replay", "seat-replay"));
      // Where the team's seat lost points (issue 48.2): asked for, then run off the page.
      seat.appendChild(document.createTextNode(" "));
      seat.appendChild(link(`/desk/review/${encodeURIComponent(m.match)}`, "review", "review"));
      const ours = el("td", button("our output", () =>
        showLog($("match-log"), `/desk/matches/${encodeURIComponent(m.match)}/log`, (x) => x.log || "(it printed nothing)"),
      ));
      const tr = row([m.match, m.finished_at, m.bots.join(", "), el("td", m.result, "result"), ours, seat, replay]);
      tr.dataset.match = m.match;
      matches.appendChild(tr);
    }
    $("matches").tBodies[0].replaceChildren(matches);
    const challenges = document.createDocumentFragment();
    for (const c of d.challenges) {
      const played = el("td", button("matches", () => showChallengeMatches(c.id)));
      const tr = row([c.id, c.challenger, c.opponent, c.ranked ? "ranked" : "unranked", c.state, c.outcome || "-", c.reason || c.summary || "-", played]);
      tr.dataset.challenge = c.id;
      challenges.appendChild(tr);
    }
    $("challenges").tBodies[0].replaceChildren(challenges);
  }

  // A challenge's played matches (issue 45.4), each opening the team's seat replay of it.
  async function showChallengeMatches(id) {
    const got = await json(`/desk/challenges/${encodeURIComponent(id)}/matches`);
    const table = $("challenge-matches");
    table.hidden = false;
    table.dataset.challenge = id;
    $("challenge-matches-of").textContent = got.ok
      ? `challenge #${id}: ${got.data.matches.length} matches played`
      : got.data.error;
    const rows = document.createDocumentFragment();
    for (const m of got.ok ? got.data.matches : []) {
      const seat = el("td", link(m.replay, "seat replay", "seat-replay"));
      seat.appendChild(document.createTextNode(" "));
      seat.appendChild(link(m.replay.replace("/desk/replay/", "/desk/review/"), "review", "review"));
      const result = el("td", `${m.outcome} ${m.score.join("-")}`, "result");
      const tr = row([m.deal, m.rotation, m.match, m.seats.join(", "), result, seat]);
      tr.dataset.match = m.match;
      rows.appendChild(tr);
    }
    table.tBodies[0].replaceChildren(rows);
    table.scrollIntoView({ block: "nearest" });
  }

  async function refresh() {
    refreshed = Date.now();
    const got = await json("/desk/data");
    if (got.status === 401) return signedOut(after ? got.data.error : "");
    if (!got.ok) {
      $("connection").textContent = got.data.error;
      return false;
    }
    render(got.data);
    return true;
  }

  function signedOut(why) {
    signedIn = false;
    clearTimeout(timer);
    $("desk").hidden = true;
    $("sign-in").hidden = false;
    $("title").textContent = "your desk";
    $("sign-in-refusal").textContent = why || "";
    return false;
  }

  // --- the feed: the same events as `croupier submissions follow` ---------------------------------

  function eventItem(e) {
    const li = el("li", null, `event event-${e.kind}`);
    li.dataset.event = e.id;
    li.dataset.kind = e.kind;
    li.dataset.version = e.version;
    li.appendChild(el("time", e.at));
    li.appendChild(document.createTextNode(` ${short(e.version)} `));
    li.appendChild(el("strong", e.kind));
    if (e.reason) li.appendChild(document.createTextNode(`: ${e.reason}`));
    if (e.match) li.appendChild(document.createTextNode(` (${e.match})`));
    if (e.challenge) li.appendChild(document.createTextNode(` (challenge #${e.challenge})`));
    if (e.log_tail && e.log_tail.length) li.appendChild(el("pre", e.log_tail.join("\n"), "log"));
    return li;
  }

  async function poll() {
    if (polling || !signedIn) return;
    clearTimeout(timer);
    polling = true;
    try {
      for (;;) {
        const got = await json(`/desk/events?after=${after}`);
        if (got.status === 401) {
          signedOut(got.data.error);
          return;
        }
        if (!got.ok || !got.data.events.length) {
          if (Date.now() - refreshed > REFRESH_MS) await refresh(); // matches come unannounced
          break;
        }
        const feed = $("events");
        for (const e of got.data.events) {
          feed.insertBefore(eventItem(e), feed.firstChild);
          after = e.id;
        }
        while (feed.children.length > FEED_KEPT) feed.lastChild.remove();
        $("connection").textContent = `event #${after}`;
        await refresh(); // a status changed: the versions' table with it
      }
    } catch (error) {
      $("connection").textContent = "no answer from the site: trying again"; // a restart, say
    } finally {
      polling = false;
      if (signedIn) timer = setTimeout(poll, POLL_MS);
    }
  }

  // --- forms ---------------------------------------------------------------------------------------

  $("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = new URLSearchParams({ token: $("token").value });
    $("token").value = "";
    const response = await fetch("/desk/sign-in", { method: "POST", body, credentials: "same-origin" });
    if (response.ok && response.redirected) {
      $("sign-in-refusal").textContent = "";
      if (await refresh()) poll();
      return;
    }
    const data = await response.json().catch(() => ({ error: `${response.status}` }));
    $("sign-in-refusal").textContent = data.error;
  });

  $("sign-out-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = new URLSearchParams({ csrf });
    await fetch("/desk/sign-out", { method: "POST", body, credentials: "same-origin" });
    after = 0;
    $("events").replaceChildren();
    signedOut("signed out");
  });

  $("upload-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = $("upload-result");
    delete result.dataset.version; // the last upload's, until this one is answered
    const file = $("upload-file").files[0];
    if (!file) return;
    result.className = "";
    result.textContent = `uploading ${file.name}…`;
    $("upload-button").disabled = true;
    try {
      const got = await json("/desk/upload", {
        method: "POST",
        body: file,
        headers: { "content-type": "application/octet-stream", "x-csrf-token": csrf },
      });
      if (got.ok) {
        const v = got.data.version;
        result.textContent = `${short(v.id)} ${got.data.new ? "received" : "already uploaded"}: ${v.status}`;
        result.dataset.version = v.id;
      } else {
        result.className = "fault";
        result.textContent = got.data.error;
      }
    } finally {
      $("upload-button").disabled = false;
      $("upload-form").reset();
    }
    await refresh();
  });

  refresh().then((signedIn) => {
    if (signedIn) poll();
  });
})();
