// edge-agent status page: polls /api/status every second and redraws. Text goes in with textContent;
// the only markup taken from the server is the SVG charts it draws from numbers.
"use strict";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === "") continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function facts(dl, rows) {
  dl.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v === null || v === undefined || v === "" ? "—" : v)]));
}

function duration(s) {
  s = Math.floor(Number(s) || 0);
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : `${m}m ${s % 60}s`;
}

function when(t) {
  return t ? new Date(t * 1000).toLocaleTimeString() : "";
}

function levelText(level) {
  return level === 1 ? "HIGH" : level === 0 ? "LOW" : "?";
}

function renderDevice(data) {
  const d = data.device;
  $("device-id").textContent = d.id;
  document.title = `edge-agent ${d.id}`;
  facts($("device-facts"), [["Device id", d.id], ["Host", d.hostname], ["Version", d.version],
    ["Uptime", duration(d.uptime_s)], ["PID", d.pid]]);
  $("components").replaceChildren(...Object.entries(data.components).map(([name, c]) =>
    el("li", { "data-ok": c.ok, "data-component": name, title: c.detail || "" }, `${name}: ${c.ok ? "ok" : "not ok"}`)));
}

function renderPin(p) {
  const aliases = p.aliases.length ? p.aliases.join(", ") : "";
  const pos = p.connector && p.position !== null ? `${p.connector}-${p.position}` : "";
  return el("div", {
    class: "pin", "data-pin": p.name, "data-level": p.level ?? "", "data-mode": p.mode ?? "",
    "data-writable": p.writable, title: `${p.name}${pos ? " at " + pos : ""}: ${p.mode || "mode unknown"}, ${levelText(p.level)}`,
  },
  el("span", { class: "level" }, levelText(p.level)),
  el("b", {}, p.name), " ", el("span", { class: "muted" }, pos),
  el("span", { class: "labels" }, p.labels.join(" ")),
  el("span", { class: "alias" }, aliases),
  el("span", { class: "mode" }, p.mode ? (p.mode === "out" ? "output" : "input") : "untouched"),
  p.writable ? "" : el("span", { class: "ro" }, " · read-only"));
}

function renderGrid(scan) {
  const head = el("tr", {}, el("th", {}, ""), ...[..."0123456789abcdef"].map((c) => el("th", {}, c)));
  const rows = scan.grid.map((cells, i) => el("tr", {}, el("th", {}, `${(i * 16).toString(16).padStart(2, "0")}:`),
    ...cells.map((c) => el("td", { class: c === "UU" ? "busy" : c && c !== "--" ? "found" : "" }, c))));
  return el("div", { class: "scroll" },
    el("p", { class: "muted" }, `I2C bus ${scan.bus}`, scan.error ? ` — scan failed: ${scan.error}` : ""),
    el("table", { class: "grid", "data-bus": scan.bus }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function renderBoards(boards) {
  $("board-list").replaceChildren(...(boards.length ? boards.map((b) => el("div", { class: "board", "data-board": b.name, "data-ok": b.ok },
    el("h3", {}, `${b.name} `, el("span", { class: "state" }, b.ok ? "connected" : "not available"), " ", el("span", { class: "muted mono" }, b.url)),
    b.detail ? el("p", { class: "muted" }, b.detail) : "",
    ...b.headers.map((h) => el("div", { class: "connector", "data-connector": h.connector },
      el("p", { class: "muted" }, h.connector === "other" ? "Other lines" : `Header ${h.connector}`),
      el("div", { class: "pins" }, ...h.pins.map(renderPin)))),
    ...b.i2c.map(renderGrid))) : [el("p", { class: "muted" }, "No boards configured.")]));
}

function renderWatches(watches) {
  $("watch-list").replaceChildren(...(watches.length ? watches.map((w) => {
    const charts = el("div", { class: "charts" });
    charts.innerHTML = (w.charts || []).join("");
    // The time axis is drawn with the device's clock; show it in this browser's time zone, as the captures are.
    for (const t of charts.querySelectorAll("text[data-t]")) t.textContent = when(Number(t.dataset.t));
    const caps = (w.recent_captures || []).slice().reverse();
    return el("div", { class: "watch", "data-watch": w.name, "data-ok": w.state !== "error" && w.state !== "backoff" },
      el("h3", {}, `${w.name} `, el("span", { class: "state" }, w.state)),
      el("p", { class: "muted" }, `${(w.sensor || "").toUpperCase()} at ${w.address || "?"} on ${w.adapter || "?"}`,
        w.interval_s ? `, every ${w.interval_s} s` : ""),
      el("dl", { class: "facts" },
        el("dt", {}, "Samples"), el("dd", {}, w.samples ?? "—"),
        el("dt", {}, "Model score"), el("dd", { class: "score" }, w.last_score_text ?? "—"),
        el("dt", {}, "Captures"), el("dd", { class: "capture-count" }, w.captures ?? 0),
        el("dt", {}, "Last error"), el("dd", {}, w.last_error || "—")),
      charts,
      caps.length ? el("ul", { class: "captures" }, ...caps.map((c) => el("li", {}, `${when(c.at)} ${c.type}: ${c.title}`))) : "");
  }) : [el("p", { class: "muted" }, "No watches configured.")]));
}

function counts(table, obj) {
  const rows = Object.entries(obj || {});
  table.replaceChildren(...(rows.length ? rows.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))) : [el("tr", {}, el("td", { class: "muted" }, "none"))]));
}

function renderSync(s) {
  const queued = ["Queued", s.queued ?? s.outbox_depth ?? 0];
  if (!s.enabled) {
    // Turned off is a setting, not an error: say so, and what is still waiting in the outbox.
    facts($("sync-facts"), [["Sync", "off ([kumiho] enabled = false)"], queued]);
    return;
  }
  const err = s.last_error ? `${s.last_error.code || ""} ${s.last_error.message || s.last_error.detail || JSON.stringify(s.last_error)} ${s.last_error.at || ""}` : "";
  const rows = [["Sync", s.running ? "running" : "not running"], queued, ["In flight", s.in_flight ?? 0],
    ["Dead letters", s.dead_letters ?? 0], ["Last success", s.last_success || "never"]];
  if (!s.running && s.detail) rows.push(["Why", s.detail]);
  rows.push(["Last error", err || s.error || "none"]);
  facts($("sync-facts"), rows);
}

function renderMemory(m, c) {
  facts($("memory-facts"), [["Live entries", m.live ?? "—"], ["Archived", m.archived ?? 0], ["Captures", m.captures ?? 0],
    ["Synced", m.with_kref ?? 0]]);
  counts($("memory-categories"), m.by_category);
  counts($("memory-namespaces"), m.by_namespace);
  facts($("cache-facts"), c.enabled ? [["Entries", c.entries ?? 0], ["Hits", c.hits ?? 0], ["Misses", c.misses ?? 0],
    ["Tokens saved", c.tokens_saved ?? 0]] : [["Status", "off ([memory] response_cache_enabled = false)"]]);
}

function render(data) {
  renderDevice(data);
  renderBoards(data.boards);
  renderWatches(data.watches);
  renderSync(data.sync || {});
  renderMemory(data.memory || {}, data.cache || {});
  $("updated").textContent = `Updated ${when(data.at)}.`;
  document.body.dataset.updated = String(data.at);
}

function setConn(state, text) {
  const c = $("conn");
  c.dataset.state = state;
  c.textContent = text;
}

async function poll() {
  try {
    const r = await fetch("/api/status", { cache: "no-store", credentials: "same-origin" });
    if (r.status === 401) {
      setConn("error", "Signed out: open the link `edge-agent dashboard --url` prints.");
      return; // stop polling: a new link is needed
    }
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    render(await r.json());
    setConn("ok", "live");
  } catch (e) {
    setConn("error", `Daemon not reachable (${e.message}); retrying.`);
  }
  setTimeout(poll, POLL_MS);
}

poll();
