// tilescope overlay: the stable hand and the game's scoreboard sent over the WebSocket /ws;
// reconnects if dropped. The card and the board are drawn again from the last of each
// message, so neither says what the other has moved on from.
"use strict";

// ?scale=1.5: every size times 1.5 (0.5 to 3); the base follows the canvas (overlay.html)
// a number out of that range is the nearer end (0, -2: 0.5; 1e5: 3), no number is 1 ("1e5"
// was read as 1 and "-2" as nothing)
{
  const given = (/[?&]scale=([^&#]*)/.exec(location.search || "") || [])[1];
  const scale = given === undefined || given.trim() === "" ? NaN : Number(given);
  if (Number.isFinite(scale)) {
    document.documentElement.style.setProperty("--scale", String(Math.min(3, Math.max(0.5, scale))));
  }
}

let lastHand = null;     // the last "hand" message's hand (null: none on the table)
let lastTable = null;    // the last "table" message (--game), or null
let ended = false;       // the stream stopped

const plural = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;
const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "") + Math.abs(n);
// points in thousands as a ranking says them: +25.5, −5.0
const thousands = (n) => (n > 0 ? "+" : n < 0 ? "−" : "±") + (Math.abs(n) / 1000).toFixed(1);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

// a winner's value in words: "Cai: 2 han 30 fu (tanyao 1, pinfu 1)"
function valueWords(v) {
  return `${v.player}: ${v.words}` + (v.yaku && v.yaku.length
    ? ` (${v.yaku.map((y) => `${y.name} ${y.han}`).join(", ")})` : "");
}

// the payments of an event's lines, not the rotation ("non-dealer wins: seats rotate …")
const payments = (lines) => (lines || []).filter((l) => !/^(non-)?dealer |^hand annulled/.test(l));

// the game's scoreboard (--game): round, counters, sticks, the players by rank with what the
// last event changed, the final ranking once the game is over, the last event and the
// payment proposed for the hand on screen until the streamer confirms it
function showTable(t) {
  document.getElementById("table").classList.remove("hidden");
  document.getElementById("round").textContent =
    `${t.round} · ${t.honba} honba · ${plural(t.sticks, "riichi stick")}` + (t.ended ? " · game over" : "");
  const box = document.getElementById("players");
  box.textContent = "";
  const seat = (p) => t.players.indexOf(p);
  for (const p of [...t.players].sort((a, b) => (a.rank - b.rank) || (seat(a) - seat(b)))) {
    const row = el("div", "player" + (p.dealer ? " dealer" : ""));
    row.dataset.name = p.name;
    row.append(el("span", "rank", String(p.rank)), el("span", "wind", p.wind[0]));
    const name = el("span", "name", p.name);
    if (p.riichi) name.append(el("span", "mark", "riichi"));
    if (p.dead) name.append(el("span", "mark", "dead hand"));
    row.append(name, el("span", "points", String(p.points)),
      el("span", "change" + (p.change > 0 ? " up" : p.change < 0 ? " down" : ""), p.change ? signed(p.change) : ""));
    box.appendChild(row);
  }
  const ranking = document.getElementById("ranking");
  ranking.textContent = "";
  if (t.ranking) {
    ranking.append(el("div", "head", "Final ranking"));
    for (const r of t.ranking) {
      const row = el("div", "place");
      row.dataset.name = r.name;
      const detail = [`uma ${thousands(r.uma)}`].concat(r.oka ? [`oka ${thousands(r.oka)}`] : [],
        r.penalty ? [`chombo ${thousands(r.penalty)}`] : []);
      row.append(`${r.place}. ${r.name} ${r.points} → ${thousands(r.final)} `,
        el("span", "detail", `(${detail.join(", ")})`));
      ranking.append(row);
    }
  }
  const last = t.last;
  // the last event and its payments (the board's changes); at game over the ranking instead
  document.getElementById("last").textContent = !last || t.ranking || t.proposal && t.proposal.event ? ""
    : [EventForms.describe(last.event), ...(last.values || []).map(valueWords), ...payments(last.lines)].join("\n");
  const pr = t.proposal;
  document.getElementById("proposal").textContent = pr && pr.event
    ? [EventForms.describe(pr.event), ...(pr.values || []).map(valueWords), ...payments(pr.lines)].join("\n") : "";
}

// the hand on screen was paid (the last event is its confirmed win): the board has moved on
function settled(hand) {
  const s = lastTable && lastTable.settled;
  return !!(s && hand && (hand.tiles || []).join() === s.tiles.join());
}

// a scored result's value without its payment: "2 han 30 fu", "mangan (5 han)", "17 points"
function resultWords(r) {
  if (!r || r.error || r.valid === false) return "";
  if ("fans" in r) return `${r.total} points`;
  return r.limit ? `${r.limit} (${r.han} han)` : `${r.han} han ${r.fu} fu`;
}

function showHand() {
  const card = document.getElementById("card");
  const hand = lastHand;
  if (!hand || ended) { card.classList.add("hidden"); return; }
  const tiles = document.getElementById("tiles");
  tiles.textContent = "";
  // Grouped as scored (concealed | melds | winning tile) when a hand could be formed.
  const req = hand.request;
  const groups = req ? [splitMpsz(req.concealed), ...(req.melds || []).map((m) => splitMpsz(m.tiles)),
    req.win_tile ? [req.win_tile] : []] : [hand.tiles];
  for (const g of groups) {
    if (!g.length) continue;
    const span = el("span", "group");
    for (const t of g) span.appendChild(chip(t));
    tiles.appendChild(span);
  }
  const paid = settled(hand);
  // a win scored under counters or sticks the board no longer has (the ledger moved on by an
  // event of its own): its value without the payment, until it is scored again
  const t = lastTable;
  const moved = !paid && t && req && hand.result && !hand.waits
    && ((req.honba || 0) !== Math.min(t.honba, 99) || (req.riichi_sticks || 0) !== Math.min(t.sticks, 99));
  // paid: the value and what the ledger paid (its counters and sticks are the board's now);
  // else the value and its payment as scored, the tiles' names in words
  const paidWords = paid && lastTable.settled.values.map((v) => v.words).join(", ");
  document.getElementById("value").textContent = paid ? `${paidWords || resultWords(hand.result)} · paid`
    : moved ? resultWords(hand.result) || tilesInWords(hand.summary || "") : tilesInWords(hand.summary || "");
  document.getElementById("paid").textContent = paid ? payments(lastTable.settled.lines).join(" · ") : "";
  // every line the value adds up from: yaku with their han (dora and red fives included)
  document.getElementById("lines").textContent = (hand.lines || []).map((l) => "han" in l
    ? `${l.name} ${l.han} han` : `${l.name} ${l.points}${l.count > 1 ? "×" + l.count : ""}`).join(" · ");
  showWaits(hand.waits);
  // a value read from tiles the reader was unsure of is never shown as sure
  card.classList.toggle("unsure", !!hand.unsure);
  const n = (hand.unsure_tiles || []).length;
  document.getElementById("unsure").textContent = !hand.unsure ? ""
    : n ? `? unsure reading: tile${n > 1 ? "s" : ""} ${hand.unsure_tiles.join(", ")}` : "? unsure reading";
  card.classList.remove("hidden");
}

// a hand in play: each wait as a tile picture, its copies left and what it pays by ron and by
// tsumo ("no yaku" and the like in words: wait.note)
function showWaits(waits) {
  const box = document.getElementById("waits");
  box.textContent = "";
  for (const w of (waits && waits.waits) || []) {
    const row = el("div", "wait");
    row.appendChild(chip(w.tile));
    // what a win pays; no win said plainly: "no yaku" (riichi), "under 8" (MCR's minimum)
    const worth = (v) => v.valid ? (v.points != null ? String(v.points) : v.value)
      : /no yaku/.test(v.value) ? "no yaku" : /at least 8/.test(v.value) ? "under 8" : "no win";
    row.appendChild(el("span", "", ` ×${w.left}  ron ${worth(w.ron)} · tsumo ${worth(w.tsumo)}`));
    if (w.note) row.appendChild(el("small", "note", tilesInWords(w.note)));
    box.appendChild(row);
  }
  // the counters' bonus and the sticks on the table go to whoever wins: said once, apart from
  // each wait's own payment; with a game kept, as the board has them now
  const t = lastTable;
  const honba = t ? 300 * t.honba : waits && waits.honba_points;
  const sticks = t ? 1000 * t.sticks : waits && waits.stick_points;
  const extras = [[honba, "honba"], [sticks, "sticks"]].filter(([n]) => n).map(([n, what]) => `${n} ${what}`);
  if (extras.length && ((waits && waits.waits) || []).length) {
    box.appendChild(el("div", "extras", `+ ${extras.join(" + ")} to the winner`));
  }
  for (const n of (waits && waits.notes) || []) box.appendChild(el("div", "note", tilesInWords(n)));
}

function show(msg) {
  if (msg.type === "table") { lastTable = msg; showTable(msg); showHand(); fit(); return; }
  // the source ended: no hand is on the table any more (a new run reconnects and shows its own)
  if (msg.type === "end") { ended = true; showHand(); fit(); return; }
  if (msg.type !== "hand") return;
  ended = false;
  lastHand = msg.hand;
  showHand();
  fit();
}

// whether the board and the card are inside the canvas and apart
function fits() {
  const w = innerWidth, h = innerHeight;
  const shown = ["table", "card"].map((id) => document.getElementById(id))
    .filter((e) => e && e.getClientRects().length && !e.classList.contains("hidden"));
  const rects = shown.map((e) => e.getBoundingClientRect());
  if (rects.some((r) => r.left < 0 || r.top < 0 || r.right > w + 0.5 || r.bottom > h + 0.5)) return false;
  if (rects.length === 2 && rects[0].bottom > rects[1].top) return false;
  return document.documentElement.scrollWidth <= w;
}

// ?scale= above 1 asks for larger panels than the canvas may hold (scale 3 on a 1080p canvas
// is 81 px text: the board alone is taller than the picture): they shrink (--fit) until both
// fit, never under their scale-1 size
function fit() {
  const root = document.documentElement;
  if (!root || typeof getComputedStyle !== "function") return;     // no layout (a test's DOM)
  const scale = Number(getComputedStyle(root).getPropertyValue("--scale")) || 1;
  let f = 1;
  root.style.setProperty("--fit", "1");
  for (let i = 0; i < 60 && scale * f > 1.001 && !fits(); i++) {
    f = Math.max(1 / scale, f * 0.95);
    root.style.setProperty("--fit", String(f));
  }
}
if (typeof addEventListener === "function") addEventListener("resize", fit);

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (e) => show(JSON.parse(e.data));
  ws.onclose = () => setTimeout(connect, 1000);
}
connect();
