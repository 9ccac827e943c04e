// tilescope table mode: one game kept by the server that serves this page (/api/games…).
// The server applies the rules (scoring/tournament/riichi_game.py, mcr_game.py); this page
// only builds events (docs/game-json.md) and shows the standings it gets back.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const STORE = "tilescope.table.game";
let game = null;          // the last answer of /api/games/{id}

function status(text, error = false) {
  const p = $("#table-status");
  p.textContent = text;
  p.classList.toggle("error", error);
  // a refusal is read where the form was sent from, not below the fold
  if (error && p.scrollIntoView) p.scrollIntoView({ block: "nearest" });
}

// the server's refusal as a sentence: no error code, no "GAME-ID:LINE:" of the file, and the
// page's own words for the events (the button says "False hu", the file says false_win)
function plain(text) {
  return String(text)
    .replace(/^[a-z0-9]+(?:_[a-z0-9]+)+: /, "")          // an error code ("bad_value: ")
    .replace(/^[\w.-]+:\d+: /, "")                       // the game file's "ID:LINE: "
    .replace(/\bfalse_win\b/g, "“False hu”")
    .replace(/^./, (c) => c.toUpperCase());
}

// pair(), pairedByLink: vision/server/web/pairing.js (loaded before this file)

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let r;
  if (method !== "GET") await pairedByLink;
  for (let attempt = 1; ; attempt++) {
    try {
      r = await fetch(path, init);
    } catch (e) {
      throw new Error("the server did not answer (" + e.message + ")");
    }
    if (r.status === 401 && attempt < 8) {
      const refused = await r.clone().json().catch(() => ({}));
      if (refused.code === "pairing_needed" && await pair()) continue;
      break;
    }
    // 503 busy: the server's line is full; sent again by itself after its retry-after, said
    if (r.status !== 503 || attempt >= 8) break;
    const wait = Math.min(30, Math.max(1, Number(r.headers.get("retry-after")) || 2));
    status(`The server is busy: sending it again in ${wait} s (try ${attempt + 1} of 8)…`);
    await new Promise((done) => setTimeout(done, wait * 1000));
  }
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(plain(data.error || r.statusText));
  return data;
}

function showRuleset(ruleset) {
  for (const el of $$(".riichi-only")) el.hidden = ruleset !== "riichi";
  for (const el of $$(".mcr-only")) el.hidden = ruleset !== "mcr";
}

// ---- the start screen ----

async function listGames() {
  try {
    const { games } = await api("GET", "/api/games");
    const ul = $("#games");
    ul.replaceChildren();
    for (const g of games.slice(0, 10)) {
      const li = document.createElement("li");
      if (g.broken) {       // a file that cannot be read as a game: said, not opened
        li.textContent = `${g.id}: cannot be read (${plain(g.error)})`;
        ul.append(li);
        continue;
      }
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = g.players.join(", ") + " · " + (g.ended ? "over" : g.round)
        + (g.ruleset === "mcr" ? " · MCR" : "");
      b.addEventListener("click", () => openGame(g.id));
      li.append(b);
      ul.append(li);
    }
    $("#games-wrap").hidden = games.length === 0;
  } catch (e) {
    $("#games-wrap").hidden = true;
  }
}

function startScreen() {
  game = null;
  localStorage.removeItem(STORE);
  $("#game-section").hidden = true;
  $("#start-section").hidden = false;
  showRuleset($("#ruleset").value);
  listGames();
}

async function start() {
  const players = [0, 1, 2, 3].map((i) => $("#p" + i).value.trim());
  if (players.some((p) => !p)) return status("Name the four players, East first.", true);
  const ruleset = $("#ruleset").value;
  const body = { players, ruleset };
  if (ruleset === "riichi") {
    const options = {};
    if ($("#preset").value) options.preset = $("#preset").value;
    if ($("#opt-east-only").checked) options.east_only = true;
    if ($("#opt-bust").checked) options.bust_ends = true;
    if ($("#opt-two-han").checked) options.two_han_from_five = true;
    body.options = options;
  }
  try {
    show(await api("POST", "/api/games", body));
    status("Game started.");
  } catch (e) {
    status(e.message, true);
  }
}

async function openGame(id) {
  try {
    show(await api("GET", "/api/games/" + encodeURIComponent(id)));
    status("");
  } catch (e) {
    status(e.message, true);
    startScreen();
  }
}

// ---- the game ----

function renderPlayers(g) {
  // one card a player: name (and a riichi mark), seat wind, points; the dealer framed
  const s = g.state;
  const cards = $("#players");
  cards.replaceChildren();
  for (const p of g.players) {
    const div = document.createElement("div");
    div.className = "player" + (p === s.dealer && !s.ended ? " dealer" : "");
    div.dataset.player = p;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = p;
    for (const [on, text] of [[s.riichi.includes(p), "riichi"], [(s.dead || []).includes(p), "dead hand"],
      [(s.penalties || {})[p], `penalties ${(s.penalties || {})[p]}`]]) {
      if (!on) continue;
      const m = document.createElement("span");
      m.className = "mark";
      m.textContent = text;
      name.append(m);
    }
    const wind = document.createElement("div");
    wind.className = "wind";
    wind.textContent = s.winds[p] + (p === s.dealer && !s.ended ? " · dealer" : "");
    const pts = document.createElement("div");
    pts.className = "points";
    pts.textContent = String(s.points[p]);
    div.append(name, wind, pts);
    cards.append(div);
  }
}

function show(g) {
  game = g;
  localStorage.setItem(STORE, g.id);
  $("#start-section").hidden = true;
  $("#game-section").hidden = false;
  showRuleset(g.ruleset);
  const s = g.state;
  const sticks = `${s.sticks} riichi stick${s.sticks === 1 ? "" : "s"}`;
  $("#round-line").textContent = s.ended
    ? "Game over: " + s.ended + (g.ruleset === "mcr" || !s.sticks ? "" : " · " + sticks)
    : `${s.round} · dealer ${s.dealer}` + (g.ruleset === "mcr" ? ""
      : ` · ${s.honba} counter${s.honba === 1 ? "" : "s"} · ${sticks}`);
  renderPlayers(g);
  forms.update({ players: g.players, ruleset: g.ruleset, ended: s.ended });
  forms.reset();
  // what the last event did, under its name (not to be read as the answer to a refused form)
  const last = g.history[g.history.length - 1];
  $("#last-event").hidden = !last;
  $("#last-event").textContent = last ? "Last: " + describe(last.event) : "";
  const lines = $("#last-lines");
  lines.replaceChildren(...s.lines.map((t) => Object.assign(document.createElement("li"), { textContent: t })));
  $("#history").replaceChildren(...g.history.map((h) => Object.assign(document.createElement("li"), {
    textContent: describe(h.event) + ": " + h.lines.join("; "),
  })));
  $("#ranking").hidden = !g.ranking;
  if (g.ranking) {
    $("#ranking-list").replaceChildren(...g.ranking.map((r) => Object.assign(document.createElement("li"), {
      textContent: `${r.place}. ` + (g.ruleset === "mcr"
        ? `${r.name} ${r.points}` + (r.penalty ? ` (penalties ${r.penalty}: ${r.final})` : "")
          + ` → ${r.table_points} table points`
        : `${r.name} ${r.points} → ${(r.final / 1000 >= 0 ? "+" : "") + (r.final / 1000).toFixed(1)}`
          + (r.penalty ? ` (chombo ${r.penalty})` : "")),
    })));
  }
  $("#act-undo").disabled = !g.history.length;
  forms.panel(null);
}

const describe = EventForms.describe;

// an event built by the forms (events.js), sent to this game; true when it was recorded
async function send(event) {
  try {
    show(await api("POST", `/api/games/${encodeURIComponent(game.id)}/events`, event));
    status("Recorded: " + describe(event) + ".");
    $("#table-status").scrollIntoView?.({ block: "nearest" });
    return true;
  } catch (e) {
    status(e.message, true);
    return false;
  }
}

// the event forms (vision/server/web/events.js, shared with the stream's control page); this page
// adds its Undo, which asks first in a form of its own
const forms = EventForms.mount($("#event-forms"), {
  send,
  onError: (text) => status(text, true),
  // a form opened anew: the last refusal was about another one
  onOpen: () => { if ($("#table-status").classList.contains("error")) status(""); },
  extra: [["act-undo", "form-undo"]],
});
{
  const undoButton = Object.assign(document.createElement("button"), { type: "button", id: "act-undo", textContent: "Undo" });
  $("#actions").append(undoButton);
  undoButton.addEventListener("click", () => forms.panel($("#form-undo").hidden ? "form-undo" : null));
}

async function undo() {
  const last = game.history[game.history.length - 1];
  try {
    show(await api("POST", `/api/games/${encodeURIComponent(game.id)}/undo`));
    status(`Undone: ${describe(last.event)}.`);
  } catch (e) {
    status(e.message, true);
  }
}

function wire() {
  $("#start").addEventListener("click", start);
  $("#ruleset").addEventListener("change", () => showRuleset($("#ruleset").value));
  $("#leave").addEventListener("click", startScreen);
  // undo asks first, naming the event it takes out and what that event did
  $("#act-undo").addEventListener("click", () => {
    const last = game.history[game.history.length - 1];
    $("#undo-what").textContent = last
      ? `Undo: ${describe(last.event)}?` + (last.lines.length ? ` (${last.lines.join("; ")})` : "")
      : "Nothing to undo.";
  });
  $("#undo-keep").addEventListener("click", () => forms.panel(null));
  $("#form-undo").addEventListener("submit", (e) => {
    e.preventDefault();
    undo();
  });
}

wire();
const kept = localStorage.getItem(STORE);
if (kept) openGame(kept); else startScreen();
