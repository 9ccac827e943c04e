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

// pair(), pairedByLink: vision/web/pairing.js (loaded before this file)

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

function fillPlayers(select, players, optional) {
  // no player is chosen for the user: a form sent as it opened records nothing
  select.replaceChildren(new Option(optional ? "—" : "choose…", ""));
  for (const p of players) select.append(new Option(p, p));
}

// the player a select names, or an error in words when none was chosen
function chosen(select, what) {
  if (!select.value) throw new Error(`Choose ${what}.`);
  return select.value;
}

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
    if (s.riichi.includes(p)) {
      const m = document.createElement("span");
      m.className = "mark";
      m.textContent = "riichi";
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
  for (const sel of $$("select.who")) fillPlayers(sel, g.players, sel.dataset.optional);
  for (const box of $$("#false-kind input")) box.checked = false;
  const tenpai = $("#tenpai");
  tenpai.replaceChildren();
  for (const p of g.players) {
    const label = document.createElement("label");
    label.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = p;
    box.name = "tenpai";
    label.append(box, " " + p);
    tenpai.append(label);
  }
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
        ? `${r.name} ${r.points} → ${r.table_points} table points`
        : `${r.name} ${r.points} → ${(r.final / 1000 >= 0 ? "+" : "") + (r.final / 1000).toFixed(1)}`
          + (r.penalty ? ` (chombo ${r.penalty})` : "")),
    })));
  }
  for (const b of $$("#actions button")) b.disabled = !!s.ended && b.id !== "act-undo";
  $("#act-undo").disabled = !g.history.length;
  panel(null);
}

const ABORTIVE = { nine_terminals: "nine terminals and honours", four_kans: "four kans",
  four_winds: "four winds", four_riichi: "four riichi", triple_ron: "triple ron" };

// an event in words: "Bob declares riichi", "Dan wins by ron from Ann", "chombo by Cai"
function describe(ev) {
  const winners = (ev.winners || []).map((w) => w.player);
  switch (ev.type) {
    case "riichi": return `${ev.player} declares riichi`;
    case "tsumo": return `${ev.player} wins by tsumo`;
    case "ron": return `${winners.join(" and ")} win${winners.length > 1 ? "" : "s"} by ron from ${ev.discarder}`;
    case "draw": return "exhaustive draw" + (ev.tenpai ? ", tenpai: " + (ev.tenpai.join(", ") || "nobody") : "");
    case "abortive": return "abortive draw: " + (ABORTIVE[ev.reason] || ev.reason);
    case "chombo": return `chombo by ${ev.player}`;
    case "false_win": return `false hu by ${ev.player}`;
    default: return ev.type + (ev.player ? " " + ev.player : "");
  }
}

function panel(id) {
  for (const f of $$("form.panel")) f.hidden = f.id !== id;
  // the button of the open form is the one highlighted
  for (const [button, form] of PANELS) $(button).setAttribute("aria-expanded", String(form === id));
  // a form opened anew: the last refusal was about another one
  if (id && $("#table-status").classList.contains("error")) status("");
  if (id === "form-win" && !$("#winners").children.length) addWinner();
  if (id === "form-abortive") $("#kans-row").hidden = $("#abortive-reason").value !== "four_kans";
}

function addWinner() {
  const row = $("#winner-template").content.firstElementChild.cloneNode(true);
  fillPlayers($(".w-player", row), game.players);
  $("#winners").append(row);
  showRuleset(game.ruleset);
}

function number(input) {
  const v = input.value.trim();
  return v === "" ? undefined : Number(v);
}

function winnerValue(row) {
  // a winner's value: MCR fan; riichi: the hand to score, or yakuman, or han and fu
  const w = { player: chosen($(".w-player", row), "the winner") };
  const hand = $(".w-hand", row).value.trim();
  if (game.ruleset === "mcr") {
    const fl = number($(".w-flowers", row));
    if (hand) return { ...w, hand: { concealed: hand, win_tile: $(".w-tile", row).value.trim(),
      ...(fl ? { flowers: fl } : {}) } };
    w.fan = number($(".w-fan", row));
    if (fl) w.flowers = fl;
    if (w.fan === undefined) throw new Error(`type ${w.player}'s points (fan), or the hand`);
    return w;
  }
  if (hand) {
    w.hand = { concealed: hand, win_tile: $(".w-tile", row).value.trim() };
    const dora = $(".w-dora-ind", row).value.trim();
    if (dora) w.hand.dora_indicators = dora;
    return w;
  }
  const yakuman = number($(".w-yakuman", row));
  if (yakuman) return { ...w, yakuman };
  w.han = number($(".w-han", row));
  if (w.han === undefined) throw new Error(`type ${w.player}'s han and fu, a yakuman, or the hand`);
  const fu = number($(".w-fu", row));
  if (fu !== undefined) w.fu = fu;
  const dora = number($(".w-dora", row));
  if (dora) w.dora = dora;
  return w;
}

function winEvent() {
  const rows = $$("#winners .winner-row");
  const winners = rows.map(winnerValue);
  if ($("#win-how").value === "tsumo") {
    if (winners.length > 1) throw new Error("a tsumo has one winner");
    return { type: "tsumo", ...winners[0] };
  }
  return { type: "ron", discarder: chosen($("#win-from"), "who discarded the winning tile"), winners };
}

async function send(build) {
  let event;
  try {
    event = build();
  } catch (e) {
    return status(e.message, true);
  }
  try {
    show(await api("POST", `/api/games/${encodeURIComponent(game.id)}/events`, event));
    $("#winners").replaceChildren();
    status("Recorded: " + describe(event) + ".");
    $("#table-status").scrollIntoView?.({ block: "nearest" });
  } catch (e) {
    status(e.message, true);
  }
}

// each action button and the form it opens (a second press closes it)
const PANELS = [["#act-riichi", "form-riichi"], ["#act-win", "form-win"],
  ["#act-draw", "form-draw"], ["#act-abortive", "form-abortive"],
  ["#act-chombo", "form-chombo"], ["#act-false", "form-false"], ["#act-undo", "form-undo"]];

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
  for (const [button, form] of PANELS) {
    $(button).addEventListener("click", () => panel($("#" + form).hidden ? form : null));
  }
  // undo asks first, naming the event it takes out and what that event did
  $("#act-undo").addEventListener("click", () => {
    const last = game.history[game.history.length - 1];
    $("#undo-what").textContent = last
      ? `Undo: ${describe(last.event)}?` + (last.lines.length ? ` (${last.lines.join("; ")})` : "")
      : "Nothing to undo.";
  });
  $("#undo-keep").addEventListener("click", () => panel(null));
  $("#form-undo").addEventListener("submit", (e) => {
    e.preventDefault();
    undo();
  });
  $("#win-how").addEventListener("change", () => {
    $("#win-from-label").hidden = $("#win-how").value === "tsumo";
  });
  $("#win-more").addEventListener("click", addWinner);
  $("#abortive-reason").addEventListener("change", () => panel("form-abortive"));
  const submit = (id, build) => $(id).addEventListener("submit", (e) => {
    e.preventDefault();
    send(build);
  });
  submit("#form-riichi", () => ({ type: "riichi", player: chosen($("#riichi-player"), "who declares riichi") }));
  submit("#form-win", winEvent);
  submit("#form-draw", () => (game.ruleset === "mcr" ? { type: "draw" } : {
    type: "draw", tenpai: $$("#tenpai input:checked").map((b) => b.value),
  }));
  submit("#form-abortive", () => {
    const reason = $("#abortive-reason").value;
    if (reason !== "four_kans") return { type: "abortive", reason };
    const kans = $$("#kans-row select.kan").map((s) => s.value).filter(Boolean);
    if (kans.length < 4) throw new Error("Choose who made each of the four kans.");
    return { type: "abortive", reason, kans };
  });
  submit("#form-chombo", () => ({ type: "chombo", player: chosen($("#chombo-player"), "who made the chombo") }));
  submit("#form-false", () => {
    const player = chosen($("#false-player"), "who declared the false hu");
    const kind = $("#false-kind input:checked");
    if (!kind) throw new Error("Choose the hand shown: 4 sets and a pair, or not a hand.");
    return { type: "false_win", player, kind: kind.value };
  });
}

wire();
const kept = localStorage.getItem(STORE);
if (kept) openGame(kept); else startScreen();
