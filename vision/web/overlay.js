// tilescope overlay: shows the stable hand sent over the WebSocket /ws; reconnects if dropped.
"use strict";

// the game's scoreboard (--game): round, counters, sticks, the four players, the payment
// proposed for the hand on screen until the streamer confirms it
function showTable(t) {
  document.getElementById("table").classList.remove("hidden");
  document.getElementById("round").textContent =
    `${t.round} · ${t.honba} honba · ${t.sticks} riichi stick${t.sticks === 1 ? "" : "s"}`
    + (t.ended ? " · game over" : "");
  const box = document.getElementById("players");
  box.textContent = "";
  for (const p of t.players) {
    const row = document.createElement("div");
    row.className = "player" + (p.dealer ? " dealer" : "");
    row.dataset.name = p.name;
    for (const [cls, text] of [["wind", p.wind[0]], ["name", p.name + (p.riichi ? " · riichi" : "")],
      ["points", String(p.points)]]) {
      const span = document.createElement("span");
      span.className = cls; span.textContent = text;
      row.appendChild(span);
    }
    box.appendChild(row);
  }
  const pr = t.proposal;
  document.getElementById("proposal").textContent = pr && pr.event ? pr.lines.join("\n") : "";
}

function show(msg) {
  const card = document.getElementById("card");
  if (msg.type === "table") { showTable(msg); return; }
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
  showWaits(hand.waits);
  // a value read from tiles the reader was unsure of is never shown as sure
  card.classList.toggle("unsure", !!hand.unsure);
  const n = (hand.unsure_tiles || []).length;
  document.getElementById("unsure").textContent = !hand.unsure ? ""
    : n ? `? unsure reading: tile${n > 1 ? "s" : ""} ${hand.unsure_tiles.join(", ")}` : "? unsure reading";
  card.classList.remove("hidden");
}

// a hand in play: each wait, its copies left and what it pays by ron and by tsumo ("no yaku"
// and the like in words: wait.note)
function showWaits(waits) {
  const box = document.getElementById("waits");
  box.textContent = "";
  for (const w of (waits && waits.waits) || []) {
    const row = document.createElement("div");
    row.className = "wait";
    row.appendChild(chip(w.tile));
    // what a win pays; no win said plainly: "no yaku" (riichi), "under 8" (MCR's minimum)
    const worth = (v) => v.valid ? (v.points != null ? String(v.points) : v.value)
      : /no yaku/.test(v.value) ? "no yaku" : /at least 8/.test(v.value) ? "under 8" : "no win";
    const text = document.createElement("span");
    text.textContent = ` ×${w.left}  ron ${worth(w.ron)} · tsumo ${worth(w.tsumo)}`;
    row.appendChild(text);
    if (w.note) {
      const note = document.createElement("small");
      note.className = "note";
      note.textContent = w.note;
      row.appendChild(note);
    }
    box.appendChild(row);
  }
  // the counters' bonus and the sticks on the table go to whoever wins: said once, apart
  // from each wait's own payment
  const extras = [[waits && waits.honba_points, "honba"], [waits && waits.stick_points, "sticks"]]
    .filter(([n]) => n).map(([n, what]) => `${n} ${what}`);
  if (extras.length && (waits.waits || []).length) {
    const line = document.createElement("div");
    line.className = "extras";
    line.textContent = `+ ${extras.join(" + ")} to the winner`;
    box.appendChild(line);
  }
  for (const n of (waits && waits.notes) || []) {
    const note = document.createElement("div");
    note.className = "note";
    note.textContent = n;
    box.appendChild(note);
  }
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (e) => show(JSON.parse(e.data));
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();
