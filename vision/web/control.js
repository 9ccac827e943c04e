// tilescope control page: the hand in play's settings and the game's ledger, beside the overlay.
"use strict";

const form = document.getElementById("hand");
const field = (name) => form.querySelector(`[name=${name}]`);
let players = [];

async function post(path, body) {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body || {})});
  const data = await r.json();
  document.getElementById("error").textContent = r.ok ? "" : data.error;
  if (r.ok) render(data);
  return r.ok;
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
  field("camera").checked = hand.dora_indicators === "camera";
  field("dora_indicators").value = hand.dora_indicators && hand.dora_indicators !== "camera" ? hand.dora_indicators : "";
  const ctx = state.context.context;
  document.getElementById("context").textContent = Object.entries(ctx)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join("  ")
    + ("dora_indicators" in ctx ? "" : "  (dora: the camera's row)");
}

function renderTable(t) {
  document.body.classList.add("ledger");
  const names = t.players.map((p) => p.name);
  if (names.join() !== players.join()) {
    players = names;
    options(field("winner"), names, "(not yet)");
    options(field("discarder"), names, "—");
    const rb = document.getElementById("riichi-buttons"), tp = document.getElementById("tenpai");
    rb.textContent = ""; tp.textContent = "";
    for (const n of names) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = n; b.dataset.player = n;
      b.onclick = () => post("/api/control/ledger", {action: "add", event: {type: "riichi", player: n}});
      rb.appendChild(b);
      const l = document.createElement("label");
      l.innerHTML = `<input type="checkbox" value="${n}"> ${n}`;
      tp.appendChild(l);
    }
  }
  const board = document.getElementById("board");
  board.textContent = "";
  for (const p of t.players) {
    const row = board.insertRow();
    for (const text of [p.wind + (p.dealer ? " (dealer)" : ""), p.name, String(p.points), p.riichi ? "riichi" : ""])
      row.insertCell().textContent = text;
  }
  document.getElementById("round").textContent =
    `${t.round} · ${t.honba} honba · ${t.sticks} riichi stick(s)` + (t.ended ? ` · game over: ${t.ended}` : "");
  const pr = t.proposal;
  document.getElementById("proposal").textContent = !pr ? "—" : pr.error ? pr.error
    : `${describe(pr.event)}\n${pr.lines.join("\n")}`;
  document.getElementById("confirm").disabled = !(pr && pr.event);
  document.getElementById("last").textContent = t.last ? `${describe(t.last.event)}\n${t.last.lines.join("\n")}` : "—";
}

function describe(e) {
  if (e.type === "ron") return `ron: ${e.winners.map((w) => w.player).join(", ")} from ${e.discarder}`;
  if (e.type === "tsumo") return `tsumo: ${e.player}`;
  if (e.type === "draw") return `draw, tenpai: ${(e.tenpai || []).join(", ") || "none"}`;
  return `${e.type}${e.player ? ": " + e.player : ""}${e.reason ? " (" + e.reason + ")" : ""}`;
}

const apply = () => post("/api/control/hand", settings());
const confirmWin = () => post("/api/control/ledger", {action: "confirm"});
const undo = () => post("/api/control/ledger", {action: "undo"});
document.getElementById("apply").onclick = apply;
document.getElementById("new-hand").onclick = () => post("/api/control/new-hand");
document.getElementById("confirm").onclick = confirmWin;
document.getElementById("undo").onclick = undo;
document.getElementById("draw").onclick = () => post("/api/control/ledger", {action: "add", event: {type: "draw",
  tenpai: [...document.querySelectorAll("#tenpai input:checked")].map((i) => i.value)}});
document.getElementById("abortive").onclick = () => post("/api/control/ledger", {action: "add",
  event: {type: "abortive", reason: document.getElementById("abortive-reason").value}});
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
    c: () => { field("camera").checked = !field("camera").checked; apply(); }, a: apply,
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
