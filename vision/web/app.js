// tilescope web page: photo -> /api/score -> boxes on a canvas + the hand's value.
// Plain browser JavaScript, no libraries, nothing fetched from outside this server.
"use strict";

const MAX_SIDE = 2048;          // photos are scaled down in the browser before upload (pixels)
const TILE_CODES = [];
for (const s of "mps") for (let n = 1; n <= 9; n++) TILE_CODES.push(`${n}${s}`);
for (let n = 1; n <= 7; n++) TILE_CODES.push(`${n}z`);
TILE_CODES.push("0m", "0p", "0s");
for (let n = 1; n <= 8; n++) TILE_CODES.push(`${n}f`);
TILE_CODES.push("back");

const state = {
  blob: null,        // the (scaled) photo sent to the server
  bitmap: null,      // the same photo, for drawing
  fixes: {},         // tile number (1-based reading order, data.tiles[i].n) -> corrected code
  data: null,        // last /api/score answer
  pending: null,     // AbortController of the request in flight
  seq: 0,            // answers to older requests are dropped
  photoSeq: 0,       // photos still decoding when a newer one is picked are dropped
};

// What belongs to one hand and is cleared with a new photo (table state — winds, honba,
// sticks, ruleset, table rules — stays): the winning tile, melds, discards, dora, riichi and
// the win's events.
const HAND_FIELDS = ["melds", "win_tile", "discards", "dora_indicators", "ura_dora_indicators", "flowers"];
const HAND_CHECKS = ["ippatsu", "tenhou", "chiihou", "last_wall_tile", "replacement_tile", "robbing_kong", "last_copy"];
// the table's rule options, kept in this browser from one visit to the next
const TABLE_RULES = ["aka", "open_tanyao", "kiriage", "double_yakuman", "kazoe", "double_wind_pair_fu", "tournament"];

const $ = (id) => document.getElementById(id);

function group(codes) {
  const g = document.createElement("span");
  g.className = "group";
  for (const c of codes) g.appendChild(chip(c));
  return g;
}

// ---- photo ----
// File -> something drawImage accepts, EXIF rotation applied (older Safari lacks the options
// form of createImageBitmap: fall back to an <img>, which browsers also orient from EXIF).
async function decodePhoto(file) {
  try {
    return await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    const url = URL.createObjectURL(file);
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      return img;
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}

function forgetPhoto() {
  closePicker();
  if (state.pending) state.pending.abort();
  state.seq++;
  state.blob = null; state.bitmap = null; state.data = null; state.fixes = {};
  showFixes();
  clearResult();
  $("canvas-wrap").hidden = true;
}

async function loadPhoto(file) {
  const mine = ++state.photoSeq;
  setStatus("Reading the photo…");
  let bitmap;
  try {
    bitmap = await decodePhoto(file);
  } catch (e) {
    if (mine !== state.photoSeq) return;
    // the last photo's value must not stay on screen under this file's name
    forgetPhoto();
    setStatus("That file is not an image this browser can read (a HEIC photo: save it as JPEG).", true);
    return;
  }
  if (mine !== state.photoSeq) return;     // a newer photo was picked meanwhile
  const bw = bitmap.naturalWidth || bitmap.width, bh = bitmap.naturalHeight || bitmap.height;
  const scale = Math.min(1, MAX_SIDE / Math.max(bw, bh));
  const w = Math.round(bw * scale), h = Math.round(bh * scale);
  const c = document.createElement("canvas");
  c.width = w; c.height = h;
  c.getContext("2d").drawImage(bitmap, 0, 0, w, h);
  const drawn = await createImageBitmap(c);
  const blob = await new Promise((res) => c.toBlob(res, "image/jpeg", 0.92));
  if (mine !== state.photoSeq) return;
  closePicker();
  state.bitmap = drawn; state.blob = blob;
  // a new photo is a new hand: what was typed for the last hand does not carry over
  state.fixes = {};
  showFixes();
  const form = $("context");
  for (const k of HAND_FIELDS) form[k].value = "";
  for (const k of HAND_CHECKS) form[k].checked = false;
  form.riichi.value = "none";
  state.data = null;
  clearResult();
  $("canvas-wrap").hidden = false;
  draw();
  await score();
}

function draw() {
  const cv = $("view"), bm = state.bitmap;
  if (!bm) return;
  cv.width = bm.width; cv.height = bm.height;
  const g = cv.getContext("2d");
  g.drawImage(bm, 0, 0);
  const tiles = (state.data && state.data.tiles) || [];
  const warned = new Set();
  for (const w of (state.data && state.data.warnings) || []) for (const n of w.tiles || []) warned.add(n);
  const lw = Math.max(2, Math.round(Math.max(bm.width, bm.height) / 400));
  g.textBaseline = "bottom";
  tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = t.box;
    const fixed = state.fixes[tileNumber(t, i)] !== undefined;
    // a tile a warning names (re-read, counted as a flower, …) is a guess, whatever its confidence
    const low = t.confidence < 0.6 || warned.has(tileNumber(t, i));
    const color = fixed ? "#1d4ed8" : low ? "#d97706" : "#059669";
    g.lineWidth = lw; g.strokeStyle = color;
    g.strokeRect(x1, y1, x2 - x1, y2 - y1);
    const label = t.tile;
    const fs = Math.max(10, Math.min(lw * 8, (x2 - x1) * 0.55));
    g.font = `bold ${fs}px system-ui, sans-serif`;
    const tw = g.measureText(label).width + 4, th = fs + 3;
    g.fillStyle = color;
    g.fillRect(x1, Math.max(0, y1 - th), tw, th);
    g.fillStyle = "#fff";
    g.fillText(label, x1 + 2, Math.max(th, y1) - 1);
  });
}

const tileNumber = (t, i) => (t.n !== undefined ? t.n : i + 1);

// canvas pixel under a tap -> index of the tile box there (smallest box wins), or -1
function tileAt(ev) {
  const cv = $("view"), r = cv.getBoundingClientRect();
  const x = (ev.clientX - r.left) * cv.width / r.width;
  const y = (ev.clientY - r.top) * cv.height / r.height;
  const tiles = (state.data && state.data.tiles) || [];
  let best = -1, bestArea = Infinity;
  tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = t.box;
    const a = (x2 - x1) * (y2 - y1);
    if (x >= x1 && x <= x2 && y >= y1 && y <= y2 && a < bestArea) { best = i; bestArea = a; }
  });
  return best;
}

// ---- tile picker ----
function buildPicker() {
  const grid = $("picker-grid");
  for (const code of TILE_CODES) {
    const b = document.createElement("button");
    b.value = code;
    b.dataset.tile = code;
    b.appendChild(chip(code));
    b.setAttribute("aria-label", code);
    grid.appendChild(b);
  }
}

function openPicker(index) {
  const t = state.data.tiles[index];
  $("picker-index").textContent = String(tileNumber(t, index));
  $("picker-current").textContent = t.tile;
  const dlg = $("picker");
  // the tile and photo the choice is about: a newer photo's tile of the same number is another
  dlg.dataset.n = String(tileNumber(t, index));
  dlg.dataset.tile = t.tile;
  dlg.dataset.photo = String(state.photoSeq);
  dlg.returnValue = "";
  dlg.showModal();
}

// A picker still open on the last photo's tile goes with that photo: a choice made in it
// after a newer photo (picked before the tap, decoding meanwhile) took its place corrected
// the new photo's tile of the same number.
function closePicker() {
  if ($("picker").open) $("picker").close("cancel");
}

$("picker").addEventListener("close", () => {
  const dlg = $("picker"), v = dlg.returnValue, n = Number(dlg.dataset.n);
  if (!v || v === "cancel" || Number(dlg.dataset.photo) !== state.photoSeq) return;
  if (v === "reset") delete state.fixes[n];
  else if (v === dlg.dataset.tile && state.fixes[n] === undefined) return;
  else state.fixes[n] = v;
  showFixes();
  score();
});

function showFixes() {
  const entries = Object.entries(state.fixes);
  $("fixes-line").hidden = entries.length === 0;
  $("fixes").textContent = entries.map(([n, t]) => `${n}=${t}`).join(", ");
}

// the form's "9-11=chi 12-14=concealed" -> {"9-11": "chi", ...} (--meld); tiles written
// twice are in meldsTwice(), said before anything is scored
const MELD_ITEM = /(\d+)-(\d+)=([A-Za-z]+)/g;
function melds() {
  const out = {};
  for (const m of $("context").melds.value.matchAll(MELD_ITEM)) out[`${Number(m[1])}-${Number(m[2])}`] = m[3].toLowerCase();
  return out;
}

// "12-14=concealed 12-14=pon" was scored as the last one alone (the pon), as if the first were
// not typed; the command line refuses the same (--meld: already declared)
function meldsTwice() {
  const seen = {};
  for (const m of $("context").melds.value.matchAll(MELD_ITEM)) {
    const span = `${Number(m[1])}-${Number(m[2])}`, kind = m[3].toLowerCase();
    if (span in seen) return `Melds: tiles ${span} are written twice (${seen[span]} and ${kind}); keep one`;
    seen[span] = kind;
  }
  return null;
}

// a warning's fix "--meld 1-3=chi --meld 7-9=chi" -> the form's melds, then score again
function applyMelds(fix) {
  const have = melds();
  for (const m of fix.matchAll(/--meld (\d+-\d+)=(\w+)/g)) have[m[1]] = m[2];
  $("context").melds.value = Object.entries(have).map(([n, t]) => `${n}=${t}`).join(" ");
  score();
}

// ---- context form -> hand-request keys ----
function context() {
  const f = $("context"), ruleset = f.ruleset.value;
  const ctx = { ruleset, win: f.win.value, seat_wind: f.seat_wind.value, round_wind: f.round_wind.value };
  for (const k of ["last_wall_tile", "replacement_tile", "robbing_kong"]) if (f[k].checked) ctx[k] = true;
  if (ruleset === "riichi") {
    ctx.riichi = f.riichi.value;
    if (f.ippatsu.checked) ctx.ippatsu = true;
    const dora = f.dora_indicators.value.trim(), ura = f.ura_dora_indicators.value.trim();
    if (dora) ctx.dora_indicators = dora;
    if (ura) ctx.ura_dora_indicators = ura;
    const honba = Number(f.honba.value || 0), sticks = Number(f.riichi_sticks.value || 0);
    if (honba) ctx.honba = honba;
    if (sticks) ctx.riichi_sticks = sticks;
    for (const k of ["tenhou", "chiihou"]) if (f[k].checked) ctx[k] = true;
    // the table's rule options: sent only where they differ from the defaults (hand-json.md)
    const rules = {};
    for (const [k, dflt] of [["aka", true], ["open_tanyao", true], ["kiriage", false], ["double_yakuman", false]])
      if (f[k].checked !== dflt) rules[k] = f[k].checked;
    if (f.kazoe.value !== "yakuman") rules.kazoe = f.kazoe.value;
    if (f.double_wind_pair_fu.value !== "4") rules.double_wind_pair_fu = Number(f.double_wind_pair_fu.value);
    if (Object.keys(rules).length) ctx.rules = rules;
  } else {
    // empty: the flowers the photo shows; a number, 0 included, overrules them
    if (f.flowers.value.trim() !== "") ctx.flowers = Number(f.flowers.value);
    if (f.last_copy.checked) ctx.last_copy = true;
  }
  return ctx;
}

function showRulesetFields() {
  const mcr = $("context").ruleset.value === "mcr";
  document.querySelectorAll(".riichi-only").forEach((e) => { e.hidden = mcr; });
  document.querySelectorAll(".mcr-only").forEach((e) => { e.hidden = !mcr; });
}

// A field shown on the form that the browser cannot read as typed -> what to write there, or
// null. A grouping typed wrong was scored as if not typed at all; a number field holding "2e"
// or "1,5" reads as empty, so honba and sticks were scored as 0 and flowers as the photo's.
const FIELD_WORDS = {
  melds: "Melds: write tile numbers and a type, e.g. 9-11=chi 12-14=concealed",
  honba: "Honba: write a whole number from 0 to 99",
  riichi_sticks: "Riichi sticks: write a whole number from 0 to 99",
  flowers: "Flowers: write a whole number from 0 to 8, or leave it empty for the flowers the photo shows",
};
function unreadField() {
  for (const [name, words] of Object.entries(FIELD_WORDS)) {
    const el = $("context")[name];
    if (!el.closest("[hidden]") && !el.checkValidity()) return words;
  }
  return meldsTwice();
}

// ---- server ----
async function score() {
  if (!state.blob) return;
  if (state.pending) state.pending.abort();
  const ctl = new AbortController(), seq = ++state.seq;
  const unread = unreadField();
  if (unread) {
    state.data = null;
    clearResult();
    draw();
    setStatus(unread, true);
    return;
  }
  state.pending = ctl;
  const body = new FormData();
  body.append("image", state.blob, "photo.jpg");
  body.append("context", JSON.stringify(context()));
  if (Object.keys(state.fixes).length) body.append("fixes", JSON.stringify(state.fixes));
  const declared = melds();
  if (Object.keys(declared).length) body.append("melds", JSON.stringify(declared));
  const win = $("context").win_tile.value.trim();
  if (win) body.append("win_tile", win);
  setStatus("Reading the tiles…");
  // until this answer comes, the value on screen is the last inputs' (before the riichi just
  // ticked, the honba just typed): it is shown greyed and busy, not as this hand's
  markStale(true);
  let answer;
  try {
    const resp = await fetch("/api/score", { method: "POST", body, signal: ctl.signal });
    answer = await resp.json();
    if (!resp.ok) throw new Error(answer.error || `server answered ${resp.status}`);
  } catch (e) {
    if (e.name === "AbortError") return;
    if (seq === state.seq) {
      // an answer for other inputs must not stay on screen as if it were this one's
      state.data = null;
      clearResult();
      draw();
      setStatus(`Could not score: ${e.message}`, true);
    }
    return;
  }
  if (seq !== state.seq) return;
  state.data = answer;
  const n = (answer.tiles || []).length;
  setStatus(`${n} tile${n === 1 ? "" : "s"} found.`);
  draw();
  showResult(answer);
  if (answer.request) verdict(body, answer.request, seq);
}

function markStale(on) {
  const r = $("result-section");
  r.classList.toggle("stale", on);
  r.setAttribute("aria-busy", String(on));
}

function clearResult() {
  markStale(false);
  $("result-section").hidden = true;
  for (const id of ["hand", "headline", "lines", "verdict"]) $(id).textContent = "";
}

// The referee's ruling on the photographed hand: valid win, false hu or chombo, and the
// penalty. Asked of /api/check-photo, which holds a ruling back when the reader was unsure
// of the tiles it rests on (a misread tile must not cost a player a penalty).
async function verdict(body, request, seq) {
  const table = { declared: "hu", revealed: true };
  const discards = $("context").discards.value.trim();
  if (discards && request.ruleset === "riichi") table.discards = discards;
  if ($("context").tournament.checked && request.ruleset === "riichi") table.tournament = true;
  const form = new FormData();
  for (const [k, val] of body.entries()) form.append(k, val);
  form.append("table", JSON.stringify(table));
  const el = $("verdict");
  // the payment above stands only once the ruling is in (a chombo is not paid)
  el.textContent = "Verdict: being ruled…";
  let v;
  try {
    const resp = await fetch("/api/check-photo", { method: "POST", body: form });
    const answer = await resp.json();
    v = resp.ok ? answer.result || {} : { error: answer.error || `server answered ${resp.status}` };
  } catch (e) {
    v = { error: `no answer from the server: ${e.message}` };
  }
  if (seq !== state.seq) return;
  el.textContent = "";
  if (v.error) { el.textContent = `Verdict: cannot rule (${inPageWords(v.error)})`; return; }
  const head = document.createElement("b");
  head.textContent = `Verdict: ${v.ruling}`;
  el.appendChild(head);
  if (v.penalty) el.append(` — penalty ${v.penalty.total}` + (v.penalty.kind ? ` (${v.penalty.kind})` : ""));
  if (v.ruling && v.valid === false) {
    // the value above is what the hand would be worth; the ruling says the win does not stand
    const pay = $("payment");
    pay.classList.add("void");
    pay.textContent = pay.textContent ? `${pay.textContent} — not paid: the win does not stand`
      : "Nothing is paid: the win does not stand";
  }
  if (v.explanation) {
    const p = document.createElement("p");
    p.textContent = inPageWords(v.explanation);
    el.appendChild(p);
  }
}

// The pipeline words its advice as command-line options; on this page a tile is corrected
// by tapping it, a grouping by the regroup button or the melds field.
function inPageWords(text) {
  const fixes = (m) => [...m.matchAll(/--fix (\d+)=(\S+)/g)].map((x) => `tile ${x[1]} to ${x[2]}`).join(", ");
  return String(text)
    .replace(/(?:pass )?--meld N-M=TYPE \([^)]*\)(?:, or --meld N-M=concealed)?/g,
      "write N-M=TYPE in the melds field (chi, pon, daiminkan, kakan, ankan or concealed)")
    .replace(/(?:pass )?--fix N=TILE/g, "a correction (tap the tile)")
    .replace(/(?:pass )?--win-tile TILE/g, "the winning tile field")
    .replace(/(?:pass )?(--fix \d+=\S+(?: --fix \d+=\S+)*)/g, (m, f) => `set ${fixes(f)} (tap the tile)`)
    .replace(/(?:pass )?--meld (\d+-\d+)=(\w+)/g, "write $1=$2 in the melds field")
    .replace(/(?:pass )?--win-tile (\w+)/g, "set the winning tile to $1");
}

function setStatus(text, isError = false) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("error", isError);
}

function li(text, value) {
  const e = document.createElement("li");
  e.textContent = text;
  if (value !== undefined) {
    const v = document.createElement("span");
    v.className = "v"; v.textContent = value;
    e.appendChild(v);
  }
  return e;
}

function showResult(data) {
  markStale(false);
  $("result-section").hidden = false;
  const req = data.request, res = data.result || {};
  const hand = $("hand");
  hand.textContent = "";
  if (req) {
    hand.appendChild(group(splitMpsz(req.concealed)));
    for (const m of req.melds || []) hand.appendChild(group(splitMpsz(m.tiles)));
    if (req.win_tile) hand.appendChild(group([req.win_tile]));
    const mp = document.createElement("span");
    mp.className = "mpsz";
    mp.textContent = [req.concealed, ...(req.melds || []).map((m) => `${m.type} ${m.tiles}`),
      req.win_tile ? `win ${req.win_tile}` : ""].filter(Boolean).join(" · ");
    hand.appendChild(mp);
  }
  const head = $("headline"), lines = $("lines");
  lines.textContent = "";
  head.classList.remove("invalid");
  if (!data.result || res.error) {
    head.textContent = res.error ? `Not scored: ${inPageWords(res.error)}` : "Not scored";
    head.classList.add("invalid");
  } else if (res.valid === false) {
    head.textContent = `No valid win: ${res.reason || ""}`;
    head.classList.add("invalid");
  } else if (res.fans) {
    head.textContent = `${res.total} points` +
      (res.total_without_flowers !== undefined && res.total_without_flowers !== res.total
        ? ` (${res.total_without_flowers} without flowers)` : "");
  } else {
    head.textContent = res.limit ? `${res.limit} — ${res.han} han` : `${res.han} han ${res.fu} fu`;
  }
  for (const y of res.yaku || []) lines.appendChild(li(y.name, `${y.han} han`));
  if (res.dora) {
    const d = res.dora;
    const n = (d.dora || 0) + (d.aka || 0) + (d.ura || 0);
    if (n) lines.appendChild(li(`dora ${d.dora || 0}, red ${d.aka || 0}, ura ${d.ura || 0}`, `${n} han`));
  }
  for (const f of res.fans || []) lines.appendChild(li(f.count > 1 ? `${f.name} ×${f.count}` : f.name, `${f.points * (f.count || 1)}`));
  const pay = res.payment;
  const payEl = $("payment");
  if (pay) {
    const bits = [];
    if (pay.from_discarder !== undefined) bits.push(`discarder pays ${pay.from_discarder}`);
    if (pay.from_dealer !== undefined) bits.push(`dealer pays ${pay.from_dealer}`);
    if (pay.from_non_dealer !== undefined) bits.push(`others pay ${pay.from_non_dealer} each`);
    if (pay.from_each !== undefined) bits.push(`${pay.from_each} from each`);
    if (pay.from_each_other !== undefined) bits.push(`others pay ${pay.from_each_other} each`);
    // the total takes the sticks on the table too: without them the parts did not add up to it
    const sticks = (req && req.riichi_sticks) || 0;
    if (sticks) bits.push(`${1000 * sticks} in riichi sticks`);
    payEl.textContent = `Winner receives ${pay.total}` + (bits.length ? ` (${bits.join(", ")})` : "");
  } else payEl.textContent = "";
  payEl.classList.remove("void");
  $("verdict").textContent = "";
  const warn = $("warnings");
  warn.textContent = "";
  for (const w of data.warnings || []) {
    if (typeof w === "string") { warn.appendChild(li(w)); continue; }
    // The pipeline words fixes as CLI options; say what to do on this page instead.
    const meld = (w.fix || "").startsWith("--meld");
    const hint = !w.fix || meld || w.message.includes(w.fix) ? "" : w.fix.startsWith("--fix") ? " — tap the tile to correct it"
      : w.fix.startsWith("--win-tile") ? ` — set the winning tile (${w.fix.split(" ")[1] || ""})` : ` (${w.fix})`;
    const item = li(inPageWords(w.message) + hint);
    if (meld) {            // a grouping the photo cannot show: one tap declares it
      const b = document.createElement("button");
      // the button says which grouping it applies (the warning's other reading, not the one scored)
      b.type = "button"; b.className = "small meld";
      b.textContent = `regroup: ${w.fix.replace(/--meld /g, "").replace(/=/g, " as ")}`;
      b.addEventListener("click", () => applyMelds(w.fix));
      item.appendChild(b);
    }
    warn.appendChild(item);
  }
}

// ---- wiring ----
for (const id of ["camera", "file"]) {
  $(id).addEventListener("change", (e) => {
    const f = e.target.files && e.target.files[0];
    if (f) loadPhoto(f);
    e.target.value = "";
  });
}
$("view").addEventListener("click", (ev) => {
  const i = tileAt(ev);
  if (i >= 0) openPicker(i);
});
$("clear-fixes").addEventListener("click", () => { state.fixes = {}; showFixes(); score(); });
$("context").addEventListener("change", () => { showRulesetFields(); score(); });
$("context").addEventListener("submit", (e) => { e.preventDefault(); score(); });
function keepTableRules() {
  const f = $("context"), kept = {};
  for (const k of TABLE_RULES) kept[k] = f[k].type === "checkbox" ? f[k].checked : f[k].value;
  try { localStorage.setItem("tilescope-table-rules", JSON.stringify(kept)); } catch (e) { /* private mode */ }
}

function restoreTableRules() {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem("tilescope-table-rules") || "null"); } catch (e) { return; }
  if (!kept || typeof kept !== "object") return;
  const f = $("context");
  for (const k of TABLE_RULES) {
    if (!(k in kept)) continue;
    if (f[k].type === "checkbox") f[k].checked = Boolean(kept[k]);
    else if ([...f[k].options].some((o) => o.value === String(kept[k]))) f[k].value = String(kept[k]);
  }
}

$("context").addEventListener("change", keepTableRules);
restoreTableRules();
buildPicker();
showRulesetFields();
