// tilescope overlay: shows the stable hand sent over the WebSocket /ws; reconnects if dropped.
"use strict";

function glyph(code) {
  const n = Number(code[0]), s = code[1], num = n === 0 ? 5 : n;
  if (code === "back") return "\u{1F02B}";
  if (s === "m") return String.fromCodePoint(0x1F007 + num - 1);
  if (s === "s") return String.fromCodePoint(0x1F010 + num - 1);
  if (s === "p") return String.fromCodePoint(0x1F019 + num - 1);
  if (s === "z") return ["\u{1F000}", "\u{1F001}", "\u{1F002}", "\u{1F003}", "\u{1F006}", "\u{1F005}", "\u{1F004}"][n - 1] || "?";
  if (s === "f") return String.fromCodePoint(0x1F022 + n - 1);
  return "?";
}

function show(msg) {
  const card = document.getElementById("card");
  if (msg.type !== "hand") return;
  const hand = msg.hand;
  if (!hand) { card.classList.add("hidden"); return; }
  document.getElementById("tiles").textContent = hand.tiles.map(glyph).join("");
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
