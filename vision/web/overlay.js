// tilescope overlay: shows the stable hand sent over the WebSocket /ws; reconnects if dropped.
"use strict";

function show(msg) {
  const card = document.getElementById("card");
  // the source ended: no hand is on the table any more (a new run reconnects and shows its own)
  if (msg.type === "end") { card.classList.add("hidden"); return; }
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
  // every line the value adds up from (dora and red fives included: hand.lines)
  document.getElementById("lines").textContent = (hand.lines || []).map((l) => "han" in l
    ? `${l.name} ${l.han}` : `${l.name} ${l.points}${l.count > 1 ? "×" + l.count : ""}`).join(" · ");
  // a value read from tiles the reader was unsure of is never shown as sure
  card.classList.toggle("unsure", !!hand.unsure);
  const n = (hand.unsure_tiles || []).length;
  document.getElementById("unsure").textContent = !hand.unsure ? ""
    : n ? `? unsure reading: tile${n > 1 ? "s" : ""} ${hand.unsure_tiles.join(", ")}` : "? unsure reading";
  card.classList.remove("hidden");
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (e) => show(JSON.parse(e.data));
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();
