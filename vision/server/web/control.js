// tilescope control page: the hand in play's settings and the game's ledger, beside the overlay.
"use strict";

const form = document.getElementById("hand");
const field = (name) => form.querySelector(`[name=${name}]`);
let players = [];

// pair(), pairedByLink: vision/server/web/pairing.js (loaded before this file)

async function post(path, body) {
  const send = () => fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body || {})});
  await pairedByLink;
  let r = await send();
  if (r.status === 401 && (await r.clone().json().catch(() => ({}))).code === "pairing_needed"
      && await pair()) r = await send();
  const data = await r.json();
  document.getElementById("error").textContent = r.ok ? "" : plain(data.error);
  if (r.ok) render(data);
  return r.ok;
}

// the server's refusal as a sentence: no error code, no "GAME-ID:LINE:" of the file
function plain(text) {
  return String(text || "").replace(/^[a-z0-9]+(?:_[a-z0-9]+)+: /, "").replace(/^[\w.-]+:\d+: /, "");
}

// the form's settings: an empty choice gives the setting back to the run (null)
function settings() {
  const out = {};
  const names = players.length ? ["win", "winner", "discarder"] : ["win", "seat_wind", "round_wind", "riichi"];
  for (const n of names) out[n] = field(n).value || null;
  if (!players.length) out.honba = field("honba").value === "" ? null : Number(field("honba").value);
  const dora = field("dora_indicators").value.replace(/\s+/g, "");
  out.dora_indicators = field("camera").checked ? "camera" : dora || null;
  return out;
}

function options(select, names, blank) {
  const keep = select.value;
  select.textContent = "";
  for (const [value, label] of [["", blank], ...names.map((n) => [n, n])]) {
    const o = document.createElement("option");
    o.value = value; o.textContent = label;
    select.appendChild(o);
  }
  select.value = names.includes(keep) ? keep : "";
}

function render(state) {
  if (state.table) renderTable(state.table);
  // the form shows the settings in force (set from another window, or cleared by a new hand)
  const hand = state.context.hand;
  for (const n of ["win", "winner", "discarder", "seat_wind", "round_wind", "riichi", "honba"])
    field(n).value = hand[n] == null ? "" : String(hand[n]);
  const ctx = state.context.context;
  // ticked when the camera's row is what scores (set here, or no dora indicators at all)
  field("camera").checked = !("dora_indicators" in ctx);
  field("dora_indicators").value = hand.dora_indicators && hand.dora_indicators !== "camera" ? hand.dora_indicators : "";
  document.getElementById("context").textContent = contextWords(ctx);
}

const WINDS = {E: "East", S: "South", W: "West", N: "North"};
const RIICHI = {none: "no riichi", riichi: "riichi", double: "double riichi", true: "riichi", false: "no riichi"};
const plural = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;

// the context in force, in words: "ron · seat South · round East · riichi · 0 honba ·
// 1 riichi stick · dora: the row the camera sees"
function contextWords(ctx) {
  const said = {
    ruleset: (v) => (v === "mcr" ? "MCR" : "riichi rules"),
    win: (v) => v,
    seat_wind: (v) => `seat ${WINDS[v] || v}`,
    round_wind: (v) => `round ${WINDS[v] || v}`,
    riichi: (v) => RIICHI[String(v)] || `riichi ${v}`,
    honba: (v) => `${v} honba`,
    riichi_sticks: (v) => plural(v, "riichi stick"),
    dora_indicators: (v) => `dora indicators ${v}`,
  };
  const words = Object.entries(ctx).filter(([k]) => k !== "ruleset" || ctx.ruleset !== "riichi")
    .map(([k, v]) => (said[k] ? said[k](v) : `${k.replace(/_/g, " ")} ${typeof v === "object" ? JSON.stringify(v) : v}`));
  if (!("dora_indicators" in ctx) && ctx.ruleset !== "mcr") words.push("dora: the row the camera sees");
  return words.join(" · ");
}

function renderTable(t) {
  document.body.classList.add("ledger");
  const names = t.players.map((p) => p.name);
  if (names.join() !== players.join()) {
    players = names;
    options(field("winner"), names, "(not yet)");
    options(field("discarder"), names, "—");
  }
  forms.update({ players: names, ruleset: "riichi", ended: t.ended });
  const board = document.getElementById("board");
  board.textContent = "";
  for (const p of t.players) {
    const row = board.insertRow();
    for (const text of [p.wind + (p.dealer ? " (dealer)" : ""), p.name, String(p.points), p.riichi ? "riichi" : ""])
      row.insertCell().textContent = text;
  }
  document.getElementById("round").textContent =
    `${t.round} · ${t.honba} honba · ${plural(t.sticks, "riichi stick")}` + (t.ended ? ` · game over: ${t.ended}` : "");
  const pr = t.proposal;
  document.getElementById("proposal").textContent = !pr ? "—" : pr.error ? pr.error
    : `${describe(pr.event)}\n${valueLines(pr.values)}${pr.lines.join("\n")}`;
  document.getElementById("confirm").disabled = !(pr && pr.event);
  // another last event (a confirm, an undo from elsewhere): a pending undo named the old one
  if (JSON.stringify(t.last ? t.last.event : null) !== JSON.stringify(lastEvent)) disarmUndo();
  lastEvent = t.last ? t.last.event : null;
  document.getElementById("last").textContent = t.last
    ? `${describe(t.last.event)}\n${valueLines(t.last.values)}${t.last.lines.join("\n")}` : "—";
}

// an event in words (events.js, as the table page says it)
const describe = EventForms.describe;

// the game's event forms, shared with the table page (vision/server/web/events.js): chombo, a win
// typed as han and fu or a yakuman (one winner or several of one discard), draws, abortive
// draws, a dead hand; each is added to the game file beside the stream
const forms = EventForms.mount(document.getElementById("event-forms"), {
  send: (event) => post("/api/control/ledger", {action: "add", event}),
  onError: (text) => { document.getElementById("error").textContent = text; },
});

// each winner's value: "Cai: 2 han 30 fu (tanyao 1, pinfu 1)", a line each
function valueLines(values) {
  return (values || []).map((v) => `${v.player}: ${v.words}`
    + (v.yaku.length ? ` (${v.yaku.map((y) => `${y.name} ${y.han}`).join(", ")})` : "") + "\n").join("");
}

const apply = () => post("/api/control/hand", settings());
const confirmWin = () => post("/api/control/ledger", {action: "confirm"});
// undo asks first: the first press names the event it would take out, a second press (button
// or key) within 5 s takes it out
let lastEvent = null, undoArmed = null;
const undoButton = document.getElementById("undo");
const UNDO_LABEL = undoButton.innerHTML;
function disarmUndo() {
  clearTimeout(undoArmed); undoArmed = null;
  undoButton.innerHTML = UNDO_LABEL;
}
function undo() {
  if (!lastEvent) { document.getElementById("error").textContent = "nothing to undo"; return; }
  if (undoArmed) { disarmUndo(); post("/api/control/ledger", {action: "undo"}); return; }
  undoButton.textContent = `Undo: ${describe(lastEvent)}? Press again`;
  undoArmed = setTimeout(disarmUndo, 5000);
}
document.getElementById("apply").onclick = apply;
document.getElementById("new-hand").onclick = () => post("/api/control/new-hand");
document.getElementById("confirm").onclick = confirmWin;
document.getElementById("undo").onclick = undo;
// typed dora indicators and the camera's row exclude each other
field("dora_indicators").addEventListener("input", () => { field("camera").checked = false; });
field("camera").addEventListener("change", () => { if (field("camera").checked) field("dora_indicators").value = ""; });
document.getElementById("add").onclick = () => {
  let event;
  try { event = JSON.parse(document.getElementById("event").value); } catch (e) {
    document.getElementById("error").textContent = `the event is not JSON: ${e.message}`; return;
  }
  post("/api/control/ledger", {action: "add", event});
};

// keys: only when no text field has the focus (typing "3s" must not apply anything)
document.addEventListener("keydown", (e) => {
  if (e.target.matches("input:not([type=checkbox]), select") || e.ctrlKey || e.metaKey || e.altKey) return;
  const keys = {t: () => { field("win").value = "tsumo"; apply(); }, r: () => { field("win").value = "ron"; apply(); },
    c: () => { field("camera").checked = !field("camera").checked; if (field("camera").checked) field("dora_indicators").value = ""; apply(); }, a: apply,
    n: () => post("/api/control/new-hand"), Enter: confirmWin, u: undo};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});

// the stream's proposals arrive as "table" messages on the overlay's socket
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.type === "table") renderTable(m); };
  ws.onclose = () => setTimeout(connect, 1000);
}
fetch("/api/control").then((r) => r.json()).then(render);
connect();
