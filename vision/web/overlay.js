// tilescope overlay: shows the stable hand sent over the WebSocket /ws; reconnects if dropped.
"use strict";

const HONOURS = ["E", "S", "W", "N", "Wh", "Gr", "Rd"];

// A tile as a CSS chip: OBS machines rarely have a mahjong font.
function chip(code) {
  const e = document.createElement("span");
  const n = code[0], s = code[1];
  e.className = `tile ${s || ""}${n === "0" ? " red" : ""}`;
  if (code === "back") e.textContent = "■";
  else if (s === "z") e.textContent = HONOURS[Number(n) - 1] || "?";
  else if (s === "f") e.innerHTML = `F<small>${n}</small>`;
  else e.innerHTML = `${n === "0" ? 5 : n}<small>${s}</small>`;
  return e;
}

function splitMpsz(text) {
  const out = []; let digits = [];
  for (const ch of (text || "").replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else { for (const d of digits) out.push(d + ch); digits = []; }
  }
  return out;
}

function show(msg) {
  const card = document.getElementById("card");
  if (msg.type !== "hand") return;
  const hand = msg.hand;
  if (!hand) { card.classList.add("hidden"); return; }
  const tiles = document.getElementById("tiles");
  tiles.textContent = "";
  // Grouped as scored (concealed | melds | winning tile) when a hand could be formed.
  const req = hand.request;
  const groups = req ? [splitMpsz(req.concealed), ...(req.melds || []).map((m) => splitMpsz(m.tiles)),
    req.win_tile ? [req.win_tile] : []] : [hand.tiles];
  for (const g of groups) {
    if (!g.length) continue;
    const span = document.createElement("span");
    span.className = "group";
    for (const t of g) span.appendChild(chip(t));
    tiles.appendChild(span);
  }
  document.getElementById("value").textContent = hand.summary || "";
  const res = hand.result || {};
  const names = (res.yaku || []).map((y) => `${y.name} ${y.han}`)
    .concat((res.fans || []).map((f) => `${f.name} ${f.points}${f.count > 1 ? "×" + f.count : ""}`));
  document.getElementById("lines").textContent = names.join(" · ");
  card.classList.remove("hidden");
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (e) => show(JSON.parse(e.data));
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();
