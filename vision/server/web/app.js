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
  shown: 0,          // photoSeq of the photo on screen, 0 while none is
  // hand field name -> the photo it was set for: 0 when it was set with no photo on screen
  // (the user fills in the context first, then takes the photo: it is for that photo)
  setFor: {},
  cleared: [],       // [field, value] cleared by the last new photo, for "keep them"
  labels: [],        // the tile labels as drawn: {i, x, y, w, h, font} in canvas pixels
  set: "",           // the active set's name (photos are read with it), "" for none
  added: null,       // the last correction added to a set: {name, tile, references}, for Undo
};

// What belongs to one hand (table state — winds, honba, sticks, ruleset, table rules — stays):
// the winning tile, melds, discards, dora, riichi and the win's events. A new photo clears
// what was scored with the last photo, and says so; what was set before it is kept for it.
const HAND_FIELDS = ["melds", "win_tile", "discards", "dora_indicators", "ura_dora_indicators", "flowers"];
const HAND_CHECKS = ["ippatsu", "tenhou", "chiihou", "last_wall_tile", "replacement_tile", "robbing_kong", "last_copy"];
const HAND_KEYS = [...HAND_FIELDS, ...HAND_CHECKS, "riichi"];
const HAND_WORDS = { melds: "melds", win_tile: "winning tile", discards: "own discards",
  dora_indicators: "dora indicators", ura_dora_indicators: "ura dora", flowers: "flowers",
  ippatsu: "ippatsu", tenhou: "tenhou", chiihou: "chiihou", last_wall_tile: "last tile",
  replacement_tile: "replacement tile", robbing_kong: "robbing the kong", last_copy: "last copy",
  riichi: "riichi" };
// Tile labels on the photo are this many CSS pixels high whatever the photo's size: a
// 2048-pixel photo on a 390-pixel phone screen is drawn at 1/5, and labels sized in photo
// pixels came out 2-3 px high there.
const LABEL_CSS_PX = 13;
// A tap this close (CSS pixels) to a tile picks it: a finger is ~44 px wide (Apple HIG), a
// tile on a phone's photo often 15.
const TAP_SLACK_CSS_PX = 22;
// box and label colours; white text on each has a contrast of 4.5:1 or more (WCAG AA):
// #047857 5.5, #b45309 5.0, #1d4ed8 6.7
const COLORS = { fixed: "#1d4ed8", unsure: "#b45309", sure: "#047857" };
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

// Why a file the browser could not decode is refused, from its first bytes: an ISO media
// file's brand (as vision/common/filekind.py) names a HEIC photo (an iPhone's) or an AVIF image;
// anything else is not an image (a text file named notes.jpg was called "a HEIC photo")
const HEIC_BRANDS = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"];
async function unreadableMessage(file) {
  let head = new Uint8Array(0);
  try { head = new Uint8Array(await file.slice(0, 12).arrayBuffer()); } catch (e) { /* unreadable */ }
  const text = (a, b) => String.fromCharCode(...head.slice(a, b));
  if (head.length >= 12 && text(4, 8) === "ftyp") {
    const brand = text(8, 12);
    if (HEIC_BRANDS.includes(brand)) return "That file is a HEIC photo, which this browser cannot read: save it as JPEG (iPhone: Settings › Camera › Formats › Most Compatible).";
    if (brand === "avif" || brand === "avis") return "That file is an AVIF image, which this browser cannot read: save it as JPEG.";
  }
  return "That file is not an image (expected JPEG, PNG, WebP, BMP or TIFF).";
}

function forgetPhoto() {
  closePicker();
  if (state.pending) state.pending.abort();
  state.seq++;
  state.blob = null; state.bitmap = null; state.data = null; state.fixes = {}; state.shown = 0;
  showFixes();
  clearResult();
  $("new-hand").hidden = true;
  $("canvas-wrap").hidden = true;
}

const handValue = (k) => { const e = $("context")[k]; return e.type === "checkbox" ? e.checked : e.value; };
const handDefault = (k) => (k === "riichi" ? "none" : HAND_CHECKS.includes(k) ? false : "");
function setHandValue(k, v) {
  const e = $("context")[k];
  if (e.type === "checkbox") e.checked = v; else e.value = v;
}

// A new photo is a new hand: what was scored with the last photo is cleared, and the page
// says so (with one tap to keep it); what was set before any photo was shown is for this one.
function newHand(id, lastFixes) {
  const cleared = [];
  for (const k of HAND_KEYS) {
    const v = handValue(k);
    if (v === handDefault(k)) { delete state.setFor[k]; continue; }
    if (state.setFor[k]) { cleared.push([k, v]); setHandValue(k, handDefault(k)); delete state.setFor[k]; }
    else state.setFor[k] = id;
  }
  state.cleared = cleared;
  const said = cleared.map(([k, v]) => (v === true ? HAND_WORDS[k] : `${HAND_WORDS[k]} ${v}`));
  const fixes = Object.entries(lastFixes).map(([n, t]) => `${n}=${t}`).join(", ");
  if (fixes) said.push(`corrections ${fixes} (tile numbers of the last photo)`);
  $("new-hand-text").textContent = `New photo, new hand: cleared what was entered for the last one — ${said.join("; ")}.`;
  $("keep-hand").hidden = cleared.length === 0;
  $("new-hand").hidden = said.length === 0;
  showRulesetFields();
}

function keepLastHand() {
  for (const [k, v] of state.cleared) { setHandValue(k, v); state.setFor[k] = state.shown; }
  state.cleared = [];
  $("new-hand").hidden = true;
  score();
}

async function loadPhoto(file) {
  const mine = ++state.photoSeq;
  // the last photo's value, boxes and corrections must not stand while this one is read
  const lastFixes = state.fixes;
  forgetPhoto();
  setStatus("Reading the photo…");
  let bitmap;
  try {
    bitmap = await decodePhoto(file);
  } catch (e) {
    if (mine !== state.photoSeq) return;
    // the last photo's value must not stay on screen under this file's name
    forgetPhoto();
    setStatus(await unreadableMessage(file), true);
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
  const blob = await uploadBlob(file, c, scale);
  if (mine !== state.photoSeq) return;
  state.bitmap = drawn; state.blob = blob; state.shown = mine;
  newHand(mine, lastFixes);
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
  const k = cssScale();
  const lw = Math.max(2, Math.round(1.5 * k));
  const fs = LABEL_CSS_PX * k;
  g.textBaseline = "bottom";
  g.font = `bold ${fs}px system-ui, sans-serif`;
  const boxes = tiles.map(tileBox);
  const colors = tiles.map((t, i) => {
    const fixed = state.fixes[tileNumber(t, i)] !== undefined;
    // a tile a warning names (re-read, counted as a flower, …) is a guess, whatever its confidence
    const low = t.confidence < 0.6 || warned.has(tileNumber(t, i));
    return fixed ? COLORS.fixed : low ? COLORS.unsure : COLORS.sure;
  });
  boxes.forEach(([x1, y1, x2, y2], i) => {
    g.lineWidth = lw; g.strokeStyle = colors[i];
    g.strokeRect(x1, y1, x2 - x1, y2 - y1);
  });
  state.labels = placeLabels(boxes, tiles.map((t) => g.measureText(t.tile).width + 6 * k), fs + 4 * k,
    cv.width, cv.height);
  for (const r of state.labels) {
    const [x1, y1, x2] = boxes[r.i];
    if (r.apart) {                  // a crowded row's label, in a line above it: its leader line
      g.lineWidth = Math.max(1, k); g.strokeStyle = colors[r.i];
      g.beginPath(); g.moveTo((x1 + x2) / 2, y1); g.lineTo(r.x + r.w / 2, r.y + r.h); g.stroke();
    }
  }
  for (const r of state.labels) {
    const t = tiles[r.i];
    g.fillStyle = colors[r.i];
    g.fillRect(r.x, r.y, r.w, r.h);
    g.fillStyle = "#fff";
    g.fillText(t.tile, r.x + 3 * k, r.y + r.h - 2 * k);
  }
}

// Each tile's label ({i, x, y, w, h, apart}), none covering another or a tile (as
// vision/photo/annotate.py places them): above its tile, else below it; a row of tiles too small
// for that (a broadcast frame's 6-px tiles) gets its labels in one line above the row, in the
// tiles' order, each joined to its tile by a leader line (apart).
function placeLabels(boxes, widths, h, cw, chh) {
  const taken = boxes.map(([x1, y1, x2, y2]) => ({ x: x1, y: y1, w: x2 - x1, h: y2 - y1 }));
  const hits = (r) => taken.some((o) => r.x < o.x + o.w && o.x < r.x + r.w && r.y < o.y + o.h && o.y < r.y + r.h);
  const out = [];
  for (const row of labelRows(boxes)) {
    const mark = taken.length, mine = [];
    let crowded = false;
    for (const i of row) {
      const [x1, y1, , y2] = boxes[i], w = widths[i];
      const x = Math.min(Math.max(0, x1), Math.max(0, cw - w));
      const above = { i, x, y: Math.max(0, y1 - h), w, h, font: LABEL_CSS_PX };
      const below = { ...above, y: Math.min(chh - h, y2) };
      const r = !hits(above) ? above : !hits(below) ? below : null;
      if (!r) { crowded = true; break; }
      taken.push(r); mine.push(r);
    }
    if (!crowded) { out.push(...mine); continue; }
    taken.length = mark;
    const order = [...row].sort((a, b) => boxes[a][0] + boxes[a][2] - boxes[b][0] - boxes[b][2]);
    const width = order.reduce((s, i) => s + widths[i] + 2, -2);
    const centre = order.reduce((s, i) => s + (boxes[i][0] + boxes[i][2]) / 2, 0) / order.length;
    const top = Math.min(...order.map((i) => boxes[i][1]));
    let x = Math.round(Math.min(Math.max(0, centre - width / 2), Math.max(0, cw - width)));
    for (let k = 1; k <= 4; k++) {
      const y = top - h * (k + 1);
      if (y < 0) break;
      let at = x;
      const line = order.map((i) => { const r = { i, x: at, y, w: widths[i], h, font: LABEL_CSS_PX, apart: true }; at += widths[i] + 2; return r; });
      if (!line.some(hits)) { taken.push(...line); out.push(...line); break; }
    }
  }
  return out;
}

// tiles side by side (overlapping by half their height, less than a tile's width apart) are
// one row, joined transitively (vision/photo/annotate.py's _rows)
function labelRows(boxes) {
  const parent = boxes.map((_, i) => i);
  const find = (i) => { while (parent[i] !== i) i = parent[i] = parent[parent[i]]; return i; };
  boxes.forEach((a, i) => {
    for (let j = i + 1; j < boxes.length; j++) {
      const b = boxes[j];
      const overlap = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
      const gap = Math.max(a[0], b[0]) - Math.min(a[2], b[2]);
      if (overlap > 0.5 * Math.min(a[3] - a[1], b[3] - b[1]) && gap < Math.max(a[2] - a[0], b[2] - b[0]))
        parent[find(j)] = find(i);
    }
  });
  const rows = new Map();
  boxes.forEach((_, i) => { const r = find(i); if (!rows.has(r)) rows.set(r, []); rows.get(r).push(i); });
  return [...rows.values()];
}

// canvas pixels per CSS pixel: labels and tap slack are sized for the eye and the finger
function cssScale() {
  const cv = $("view"), w = cv.getBoundingClientRect().width;
  return w ? cv.width / w : 1;
}

// A tile's box on the canvas. The server's boxes are in the pixels of the image it read,
// which is smaller than the upload when the upload was over its pixel limit (read at 1/2,
// 1/4, 1/8: `image` in the answer); drawn as they came, they marked the wrong tiles.
function tileBox(t) {
  const im = state.data && state.data.image, bm = state.bitmap;
  const sx = im && im.width && bm ? bm.width / im.width : 1, sy = im && im.height && bm ? bm.height / im.height : 1;
  const [x1, y1, x2, y2] = t.box;
  return [x1 * sx, y1 * sy, x2 * sx, y2 * sy];
}

const tileNumber = (t, i) => (t.n !== undefined ? t.n : i + 1);

// canvas pixel under a tap -> index of the tile there, or -1: the box under it (smallest wins),
// else the label under it, else the nearest box within a finger's slack (small tiles on a phone)
function tileAt(ev) {
  const cv = $("view"), r = cv.getBoundingClientRect();
  const x = (ev.clientX - r.left) * cv.width / r.width;
  const y = (ev.clientY - r.top) * cv.height / r.height;
  const tiles = (state.data && state.data.tiles) || [];
  let best = -1, bestArea = Infinity;
  tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = tileBox(t);
    const a = (x2 - x1) * (y2 - y1);
    if (x >= x1 && x <= x2 && y >= y1 && y <= y2 && a < bestArea) { best = i; bestArea = a; }
  });
  if (best >= 0) return best;
  const label = state.labels.find((l) => x >= l.x && x <= l.x + l.w && y >= l.y && y <= l.y + l.h);
  if (label) return label.i;
  let bestD = TAP_SLACK_CSS_PX * cssScale();
  tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = tileBox(t);
    const d = Math.hypot(Math.max(x1 - x, 0, x - x2), Math.max(y1 - y, 0, y - y2));
    if (d <= bestD) { best = i; bestD = d; }
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

const percent = (c) => `${Math.round(c * 100)}%`;

// The tapped tile, enlarged from the photo, with its reading and the reader's next guesses
// (one tap each), and its neighbours one tap away: on a phone a tile is often narrower than
// the finger that taps it, and the tile under the finger may not be the one meant.
function openPicker(index) {
  const tiles = state.data.tiles, t = tiles[index];
  $("picker-index").textContent = String(tileNumber(t, index));
  $("picker-current").textContent = t.tile;
  $("picker-confidence").textContent = t.corrected || state.fixes[tileNumber(t, index)] !== undefined
    ? "(corrected)" : `(${percent(t.confidence)} sure)`;
  const alts = $("picker-alternatives");
  alts.textContent = "";
  for (const [code, conf] of t.alternatives || []) {
    if (code === t.tile) continue;
    const b = document.createElement("button");
    b.value = code; b.dataset.tile = code; b.className = "alt";
    b.setAttribute("aria-label", `${code}, ${percent(conf)}`);
    b.append(chip(code), ` ${percent(conf)}`);
    alts.appendChild(b);
  }
  $("picker-guesses").hidden = alts.childElementCount === 0;
  zoomInto($("picker-zoom"), t);
  for (const [id, j] of [["picker-prev", index - 1], ["picker-next", index + 1]]) {
    const b = $(id);
    b.hidden = j < 0 || j >= tiles.length;
    if (!b.hidden) b.textContent = id === "picker-prev" ? `◀ tile ${tileNumber(tiles[j], j)}` : `tile ${tileNumber(tiles[j], j)} ▶`;
    b.onclick = () => openPicker(j);
  }
  const dlg = $("picker");
  dlg.dataset.index = String(index);
  dlg.dataset.photo = String(state.shown);
  dlg.dataset.n = String(tileNumber(t, index));
  dlg.dataset.tile = t.tile;
  dlg.returnValue = "";
  if (!dlg.open) dlg.showModal();
}

// the tile's box and a margin of half a tile around it, enlarged to 120 CSS pixels high
// (a sideways tile: at most 300 wide)
function zoomInto(cv, t) {
  const [x1, y1, x2, y2] = tileBox(t), bm = state.bitmap;
  const mx = (x2 - x1) / 2, my = (y2 - y1) / 2;
  const sx = Math.max(0, x1 - mx), sy = Math.max(0, y1 - my);
  const sw = Math.max(1, Math.min(bm.width, x2 + mx) - sx), sh = Math.max(1, Math.min(bm.height, y2 + my) - sy);
  const css = Math.min(120 / sh, 300 / sw), dpr = window.devicePixelRatio || 1;
  cv.style.width = `${sw * css}px`; cv.style.height = `${sh * css}px`;
  cv.width = Math.round(sw * css * dpr); cv.height = Math.round(sh * css * dpr);
  const k = cv.width / sw, g = cv.getContext("2d");
  g.drawImage(bm, sx, sy, sw, sh, 0, 0, cv.width, cv.height);
  g.lineWidth = 2 * dpr; g.strokeStyle = COLORS.fixed;
  g.strokeRect((x1 - sx) * k, (y1 - sy) * k, (x2 - x1) * k, (y2 - y1) * k);
}

// A picker still open on the last photo's tile goes with that photo: a newer photo closes it
// as it is picked (forgetPhoto), and a choice that still reaches it is refused (the close
// handler: dataset.photo). It corrected the new photo's tile of the same number.
function closePicker() {
  if ($("picker").open) $("picker").close("cancel");
}

$("picker").addEventListener("close", () => {
  const dlg = $("picker"), v = dlg.returnValue, n = dlg.dataset.n;
  if (!v || v === "cancel") return;
  // a correction is by tile number, the photo's reading order: it holds while the same photo
  // is scored again (the answer may come while the picker is open), not for another photo
  if (Number(dlg.dataset.photo) !== state.shown || !state.shown) {
    setStatus(`Tile ${n} was on the last photo: tap the tile on this one to correct it.`, true);
    return;
  }
  if (v === "reset") delete state.fixes[n];
  else if (v === dlg.dataset.tile && state.fixes[n] === undefined) return;
  else state.fixes[n] = v;
  showFixes();
  score();
  // the set read with learns the tile's picture as what the user says it is
  if (v !== "reset" && state.set) addToSet(Number(n), v);
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
  state.setFor.melds = state.shown;
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
// /api/score's codes for a photo it cannot read at all
const UNREADABLE_PHOTO = new Set(["not_an_image", "empty_file", "too_many_pixels"]);

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
  const body = photoForm();
  // the value on screen is for the inputs before this change until the answer comes
  markStale("Reading the tiles…", true);
  let answer;
  try {
    const resp = await send("/api/score", { body, signal: ctl.signal });
    answer = await resp.json();
    if (!resp.ok) throw Object.assign(new Error(answer.error || `server answered ${resp.status}`),
      { status: resp.status, code: answer.code });
  } catch (e) {
    if (e.name === "AbortError") return;
    // a hand the scorer refuses as a win (its context makes a fifth copy with the tile it
    // would win on...) may still be a hand in play that /api/waits can answer
    if (e.status === 422 && seq === state.seq && await waits(body, seq, null)) {
      state.data = null;
      markStale(null);
      draw();
      return;
    }
    if (seq === state.seq) {
      // an answer for other inputs must not stay on screen as if it were this one's
      state.data = null;
      clearResult();
      draw();
      // the server could not read the photo (a truncated JPEG the browser drew in part): no
      // picture under "Tap a tile to correct it", only the error
      if (UNREADABLE_PHOTO.has(e.code)) $("canvas-wrap").hidden = true;
      setStatus(`Could not score: ${e.message}`, true);
    }
    return;
  }
  if (seq !== state.seq) return;
  state.data = answer;
  markStale(null);
  const n = (answer.tiles || []).length;
  draw();
  showResult(answer);
  // the value in one line above the photo: on a phone the value's section is below the fold
  const value = answer.request && !(answer.result || {}).error ? $("headline").textContent : "";
  setStatus(`${n} tile${n === 1 ? "" : "s"} found` + (value ? `: ${value} (details below).` : "."));
  // a win: the referee's ruling; not a win (13 tiles, or 14 that are not complete): a hand
  // in play, whose waits and their values replace "not a complete hand" when it has them
  if (answer.request && !(answer.result || {}).error) verdict(body, answer.request, seq);
  else waits(body, seq, answer);
}

// The value on screen is not for what the form says now: dimmed, and the status line says why,
// until an answer for the form as it is replaces it (text null: it is current). Nothing is
// added to the page: a line appearing above the form moved the box a finger was about to tap.
// busy: the answer for the form as it is now is on its way (aria-busy), not only typed.
function markStale(text, busy = false) {
  const r = $("result-section");
  r.classList.toggle("stale", text !== null);
  r.setAttribute("aria-busy", String(text !== null && busy));
  if (text !== null) setStatus(text);
}

// What the value was worked out with, from the request the server scored (not from the form):
// a context the user meant but the value did not use shows here.
function scoredWith(req) {
  const wind = { E: "East", S: "South", W: "West", N: "North" };
  const bits = [req.ruleset === "mcr" ? "MCR" : "riichi rules", req.win,
    `seat ${wind[req.seat_wind] || req.seat_wind || "East"}, round ${wind[req.round_wind] || req.round_wind || "East"}`];
  if (req.riichi && req.riichi !== "none") bits.push(req.riichi === "double" ? "double riichi" : "riichi");
  for (const k of ["ippatsu", "tenhou", "chiihou", "last_wall_tile", "replacement_tile", "robbing_kong", "last_copy"])
    if (req[k]) bits.push(HAND_WORDS[k]);
  if (req.dora_indicators) bits.push(`dora indicators ${req.dora_indicators}`);
  if (req.ura_dora_indicators) bits.push(`ura dora ${req.ura_dora_indicators}`);
  if (req.honba) bits.push(`honba ${req.honba}`);
  if (req.riichi_sticks) bits.push(`riichi sticks ${req.riichi_sticks}`);
  if (req.flowers !== undefined) bits.push(`flowers ${req.flowers}`);
  return bits.join(" · ");
}

function clearResult() {
  markStale(null);
  inPlay(false);
  $("result-section").hidden = true;
  for (const id of ["hand", "headline", "scored-with", "lines", "verdict"]) $(id).textContent = "";
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
    const resp = await send("/api/check-photo", { body: form });
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

// pair(), pairedByLink: vision/server/web/pairing.js (loaded before this file)

// A POST; a 503 "busy" (the server's line of photos is full, or this one waited too long in
// it) is sent again by itself after the Retry-After the server names, and the status line says
// so, up to BUSY_TRIES times; the last answer is returned as it came.
const BUSY_TRIES = 8;
async function send(path, init) {
  await pairedByLink;
  for (let attempt = 1; ; attempt++) {
    const resp = await fetch(path, { method: "POST", ...init });
    if (resp.status === 401 && attempt < BUSY_TRIES) {
      const refused = await resp.clone().json().catch(() => ({}));
      if (refused.code === "pairing_needed" && await pair()) continue;
      return resp;
    }
    if (resp.status !== 503 || attempt >= BUSY_TRIES) return resp;
    const data = await resp.clone().json().catch(() => ({}));
    if (data.code !== "busy") return resp;
    const wait = Math.min(30, Math.max(1, Number(resp.headers.get("retry-after")) || 2));
    setStatus(`The server is busy with other photos: sending it again in ${wait} s ` +
              `(try ${attempt + 1} of ${BUSY_TRIES})…`);
    await new Promise((done) => setTimeout(done, wait * 1000));
    if (init.signal && init.signal.aborted) throw new DOMException("aborted", "AbortError");
  }
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
  $("result-section").hidden = false;
  inPlay(false);
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
  $("scored-with").textContent = req ? `Scored with: ${scoredWith(req)}` : "";
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
  showWarnings(data.warnings);
}

// text into el, each tile range or grouping ("9-11", "12-14=concealed") in a span kept on
// one line: a phone broke "12-14=concealed" at its hyphen, which then read as two things
function withCodes(el, text) {
  const parts = String(text).split(/(\b\d+-\d+(?:=\w+)?)/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) { if (part) el.appendChild(document.createTextNode(part)); return; }
    const code = document.createElement("span");
    code.className = "code"; code.textContent = part;
    el.appendChild(code);
  });
  return el;
}

function showWarnings(list) {
  const warn = $("warnings");
  warn.textContent = "";
  for (const w of list || []) {
    if (typeof w === "string") { warn.appendChild(li(w)); continue; }
    // The pipeline words fixes as CLI options; say what to do on this page instead.
    const meld = (w.fix || "").startsWith("--meld");
    const hint = !w.fix || meld || w.message.includes(w.fix) ? "" : w.fix.startsWith("--fix") ? " — tap the tile to correct it"
      : w.fix.startsWith("--win-tile") ? ` — set the winning tile (${w.fix.split(" ")[1] || ""})` : ` (${w.fix})`;
    const item = withCodes(li(""), inPageWords(w.message) + hint);
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

// ---- a hand in play: its shanten, waits and what each would be worth (/api/waits) ----
// What only a win has: a hand in play is valued both by ron and by tsumo, without win events
const WIN_ONLY = ["win", "last_wall_tile", "replacement_tile", "robbing_kong", "ippatsu", "tenhou",
  "chiihou", "ura_dora_indicators", "last_copy"];

function waitsForm(body) {
  const form = new FormData();
  for (const [k, v] of body.entries()) {
    if (k === "win_tile") continue;
    if (k !== "context") { form.append(k, v); continue; }
    const ctx = JSON.parse(v);
    for (const w of WIN_ONLY) delete ctx[w];
    form.append(k, JSON.stringify(ctx));
  }
  const discards = $("context").discards.value.trim();
  if (discards) form.append("discards", discards);
  return form;
}

// scored: the /api/score answer (null when it refused the hand); true when the waits are shown
async function waits(body, seq, scored) {
  let answer;
  try {
    const resp = await send("/api/waits", { body: waitsForm(body) });
    answer = await resp.json();
    if (!resp.ok) return false;       // not a hand in play either: the score's message stands
  } catch (e) {
    return false;
  }
  if (seq !== state.seq) return false;
  showWaits(answer, scored);
  return true;
}

// One win in a few words: "3900 (2 han 40 fu: ittsu)", "no yaku", "24 points (Full Flush...)"
function winWords(r) {
  if (!r || r.error) return "cannot be won";
  if (r.han !== undefined) {
    if (!r.valid) return "no yaku";
    const d = r.dora || {};
    const names = (r.yaku || []).map((y) => y.name)
      .concat([["dora", "dora"], ["aka", "red"], ["ura", "ura"]].filter(([k]) => d[k]).map(([k, n]) => `${n} ${d[k]}`));
    const value = r.limit ? `${r.limit}, ${r.han} han` : `${r.han} han ${r.fu} fu`;
    return `${r.payment.total} (${value}${names.length ? `: ${names.join(", ")}` : ""})`;
  }
  const pts = r.total_without_flowers !== undefined ? r.total_without_flowers : r.total;
  const fans = (r.fans || []).map((f) => f.count > 1 ? `${f.name} ×${f.count}` : f.name).join(", ");
  return r.valid ? `${pts} points${fans ? ` (${fans})` : ""}` : `${pts} points: under 8, no win`;
}

function shantenWords(s) {
  return s === -1 ? "complete" : s === 0 ? "tenpai" : `${s}-shanten (${s} tile${s === 1 ? "" : "s"} from tenpai)`;
}

function tilesLeft(list) {
  return list.map((a) => `${a.tile} (${a.left})`).join(" ") +
    ` — ${list.reduce((n, a) => n + a.left, 0)} tiles left`;
}

function waitItem(w, prefix = "") {
  const e = li(`${prefix}${w.tile} · ${w.left} left`);
  e.classList.add("wait");
  const v = document.createElement("span");
  v.className = "v";
  // no copy left: no win takes it, whatever its values; furiten: its ron is not paid
  v.textContent = w.no_copy_left ? "no copy left: all four are in sight, no win on it"
    : `ron ${w.furiten ? "furiten: no ron" : winWords(w.ron)} · tsumo ${winWords(w.tsumo)}`;
  e.appendChild(v);
  if (w.note && !w.no_copy_left) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = w.note;
    e.appendChild(p);
  }
  return e;
}

// A hand in play has no win yet: the section is titled "Waits" and the win-only fields are
// hidden (a complete 14-tile hand keeps them: setting its winning tile scores it)
function inPlay(yes) {
  document.body.classList.toggle("in-play", yes);
  $("result-title").textContent = yes ? "Waits" : "Value";
}

function showWaits(data, scored) {
  $("result-section").hidden = false;
  inPlay(!data.complete);
  const hand = $("hand"), head = $("headline"), lines = $("lines");
  hand.textContent = "";
  hand.appendChild(group(splitMpsz(data.concealed)));
  for (const m of data.melds || []) hand.appendChild(group(splitMpsz(m.tiles)));
  const mp = document.createElement("span");
  mp.className = "mpsz";
  mp.textContent = [data.concealed, ...(data.melds || []).map((m) => `${m.type} ${m.tiles}`)].join(" · ") +
    ` (${data.tiles} tiles: a hand in play)`;
  hand.appendChild(mp);
  head.classList.remove("invalid");
  lines.textContent = "";
  $("payment").textContent = "";
  $("verdict").textContent = "";
  const rules = data.ruleset === "mcr" ? "MCR" : "riichi rules";
  $("scored-with").textContent = `Valued with: ${rules}; each wait both by ron and by tsumo`;
  if (data.tiles === 13) {
    head.textContent = data.tenpai
      ? `Tenpai — waits ${data.waits.map((w) => w.tile).join(" ")} (${data.waits_left} left)`
      : `Shanten ${data.shanten}: ${shantenWords(data.shanten)}`;
    for (const w of data.waits) lines.appendChild(waitItem(w));
    if (!data.tenpai && data.accept.length) lines.appendChild(li(`Tiles that help: ${tilesLeft(data.accept)}`));
    if (data.furiten === true) {
      const f = li("Furiten: a wait is among your discards — no ron on any wait, only tsumo");
      f.className = "furiten";
      lines.appendChild(f);
    } else if (data.furiten === false) lines.appendChild(li("Not furiten"));
  } else {
    head.textContent = data.complete ? "Complete hand: set the winning tile apart to score it"
      : `Shanten ${data.shanten}: choose a discard`;
    for (const d of data.discards.slice(0, 8)) {
      const e = li(`Discard ${d.discard} → ${shantenWords(d.shanten)}`);
      e.classList.add("discard");
      const v = document.createElement("span");
      v.className = "v";
      v.textContent = d.accept.length ? tilesLeft(d.accept) : "nothing helps";
      e.appendChild(v);
      if (d.furiten) e.appendChild(Object.assign(document.createElement("p"),
        { className: "note furiten", textContent: "furiten: it waits on a tile it throws" }));
      const sub = document.createElement("ul");
      for (const w of d.waits || []) sub.appendChild(waitItem(w, "wait "));
      if (sub.children.length) e.appendChild(sub);
      lines.appendChild(e);
    }
  }
  // the furiten note is the line above, in the page's words
  for (const n of data.notes || []) if (!n.startsWith("furiten")) lines.appendChild(li(n));
  showWarnings(data.warnings);
  const count = data.tiles === 13 ? (data.tenpai ? `${data.waits.length} wait${data.waits.length === 1 ? "" : "s"}` : shantenWords(data.shanten)) : "a discard to choose";
  setStatus(`A hand in play: ${count}.`);
}

// ---- your set: a set profile (docs/sets.md) the photos are read with ----
const SET_KEY = "tilescope-set";

function setStatusLine(text, isError = false) {
  const s = $("set-status");
  s.textContent = text;
  s.classList.toggle("error", isError);
}

// the named sets of the server -> the picker; the remembered one is picked when it is there
async function loadSets(pick) {
  let answer;
  try {
    const resp = await fetch("/api/sets");
    answer = await resp.json();
    if (!resp.ok) throw new Error(answer.error || `server answered ${resp.status}`);
  } catch (e) {
    setStatusLine(`Could not list the sets: ${e.message}`, true);
    return;
  }
  const sel = $("set-pick");
  sel.textContent = "";
  const none = document.createElement("option");
  none.value = "";
  none.textContent = answer.server_set ? `the server's set (${answer.server_set})` : "no set";
  sel.appendChild(none);
  for (const t of answer.sets || []) {
    if (t.error) continue;
    const o = document.createElement("option");
    o.value = t.name;
    o.textContent = `${t.name} (${t.references} tile${t.references === 1 ? "" : "s"})`;
    sel.appendChild(o);
  }
  const want = pick !== undefined ? pick : state.set;
  state.set = [...sel.options].some((o) => o.value === want) ? want : "";
  sel.value = state.set;
}

function chooseSet(name) {
  state.set = name;
  try { localStorage.setItem(SET_KEY, name); } catch (e) { /* private mode */ }
  score();
}

// A photo of the set's tiles -> /api/set/learn into the named set, which becomes the active
// one. A count that does not match shows the tiles found, numbered, to see which was missed.
async function teachSet(file) {
  const nameEl = $("set-name"), name = nameEl.value.trim();
  $("set-found").hidden = true;
  if (!name || !nameEl.checkValidity()) {
    setStatusLine("Name the set first: letters, digits, _ - or . (e.g. club).", true);
    nameEl.focus();
    return;
  }
  setStatusLine(`Learning the tiles into ${name}…`);
  let bitmap, blob;
  try {
    ({ bitmap, blob } = await scaledPhoto(file));
  } catch (e) {
    setStatusLine(await unreadableMessage(file), true);
    return;
  }
  const body = new FormData();
  body.append("image", blob, "sheet.jpg");
  body.append("name", name);
  let answer, ok = false;
  try {
    const resp = await send("/api/set/learn", { body });
    answer = await resp.json();
    ok = resp.ok;
  } catch (e) {
    setStatusLine(`Could not learn the set: ${e.message}`, true);
    return;
  }
  if (!ok) {
    setStatusLine(`Not learned: ${answer.error || "the server refused it"}`, true);
    if (answer.found) drawFound(bitmap, answer.found);
    return;
  }
  const more = answer.references > answer.learned ? ` (it now holds ${answer.references})` : "";
  let text = `Learned ${answer.learned} tiles into ${answer.name}${more}; photos are now read with it.`;
  // two tiles read as each other's kind come first: swapped on the table?
  (answer.swaps || []).forEach((w) => { text = `Look: ${w.message}. ` + text; });
  if ((answer.disagreements || []).length)
    text += ` Read otherwise without the set (learned as laid out): ${answer.disagreements.map((d) => `tile ${d.n} ${d.given} (looks like ${d.read})`).join(", ")}.`;
  setStatusLine(text);
  await loadSets(answer.name);
  chooseSet(answer.name);
}

// the sheet with the tiles the server found, numbered in reading order
function drawFound(bitmap, found) {
  const cv = $("set-found");
  cv.hidden = false;
  cv.width = bitmap.width; cv.height = bitmap.height;
  const g = cv.getContext("2d");
  g.drawImage(bitmap, 0, 0);
  const r = cv.getBoundingClientRect(), k = r.width ? cv.width / r.width : 1;
  const sx = found.image && found.image.width ? bitmap.width / found.image.width : 1;
  const sy = found.image && found.image.height ? bitmap.height / found.image.height : 1;
  g.lineWidth = Math.max(2, 1.5 * k);
  g.font = `bold ${LABEL_CSS_PX * k}px system-ui, sans-serif`;
  g.textBaseline = "top";
  (found.tiles || []).forEach((t, i) => {
    const [x1, y1, x2, y2] = t.box;
    g.strokeStyle = COLORS.unsure;
    g.strokeRect(x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy);
    const label = String(i + 1), w = g.measureText(label).width + 4 * k;
    g.fillStyle = COLORS.unsure;
    g.fillRect(x1 * sx, y2 * sy, w, (LABEL_CSS_PX + 3) * k);
    g.fillStyle = "#fff";
    g.fillText(label, x1 * sx + 2 * k, y2 * sy + k);
  });
}

function showAdded(text, undo, isError = false) {
  $("set-added").hidden = false;
  $("set-added-text").textContent = text;
  $("set-added").classList.toggle("error", isError);
  $("set-undo").hidden = !undo;
}

// The photo and everything typed about it, as /api/score and /api/set/add take them
function photoForm() {
  const body = new FormData();
  body.append("image", state.blob, "photo.jpg");
  body.append("context", JSON.stringify(context()));
  if (Object.keys(state.fixes).length) body.append("fixes", JSON.stringify(state.fixes));
  const declared = melds();
  if (Object.keys(declared).length) body.append("melds", JSON.stringify(declared));
  const win = $("context").win_tile.value.trim();
  if (win) body.append("win_tile", win);
  if (state.set) body.append("set", state.set);
  return body;
}

// A tap-correction while a set is active: the tile's picture joins the set (one tap undoes it)
async function addToSet(n, tile) {
  if (!state.blob) return;
  const name = state.set, body = photoForm();
  body.append("name", name);
  body.append("n", String(n));
  body.append("tile", tile);
  state.added = null;
  showAdded(`Adding ${tile} to set ${name}…`, false);
  let answer;
  try {
    const resp = await send("/api/set/add", { body });
    answer = await resp.json();
    if (!resp.ok) throw new Error(answer.error || `server answered ${resp.status}`);
  } catch (e) {
    showAdded(`Not added to set ${name}: ${e.message}`, false, true);
    return;
  }
  state.added = { name: answer.name, tile: answer.tile, references: answer.references };
  showAdded(`Added ${answer.tile} to set ${answer.name} (${answer.references} tiles) · `, true);
  loadSets();
}

async function undoAdded() {
  const a = state.added;
  if (!a) return;
  state.added = null;
  $("set-undo").hidden = true;
  const body = new FormData();
  body.append("name", a.name);
  body.append("expect", String(a.references));
  let answer;
  try {
    const resp = await send("/api/set/undo", { body });
    answer = await resp.json();
    if (!resp.ok) throw new Error(answer.error || `server answered ${resp.status}`);
  } catch (e) {
    showAdded(`Could not undo: ${e.message}`, false, true);
    return;
  }
  showAdded(`Undone: ${a.tile} taken out of set ${answer.name} (${answer.references} tiles).`, false);
  loadSets();
}

// The photo to send: the file itself when it needs no scaling and the server reads its format
// (it applies the EXIF rotation as the browser does), so the page reads what `tilescope score`
// reads — a JPEG 0.92 copy of mcr_flowers.jpg flipped a near-tie (tile 5z 0.10 read 1f 0.09)
// and the tiles set aside as flowers were numbered apart from the CLI's; else the canvas's
// JPEG (scaled to MAX_SIDE, or a format the server does not read)
const SENT_AS_IS = ["image/jpeg", "image/png", "image/webp"];
const AS_IS_MAX_BYTES = 8 * 1024 * 1024;
function uploadBlob(file, canvas, scale) {
  if (scale === 1 && SENT_AS_IS.includes(file.type) && file.size <= AS_IS_MAX_BYTES) return Promise.resolve(file);
  return new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.92));
}

// File -> the photo scaled to MAX_SIDE: a bitmap to draw and the blob to send (uploadBlob)
async function scaledPhoto(file) {
  const bitmap = await decodePhoto(file);
  const bw = bitmap.naturalWidth || bitmap.width, bh = bitmap.naturalHeight || bitmap.height;
  const scale = Math.min(1, MAX_SIDE / Math.max(bw, bh));
  const c = document.createElement("canvas");
  c.width = Math.round(bw * scale); c.height = Math.round(bh * scale);
  c.getContext("2d").drawImage(bitmap, 0, 0, c.width, c.height);
  const drawn = await createImageBitmap(c);
  const blob = await uploadBlob(file, c, scale);
  return { bitmap: drawn, blob };
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
// a hand field changed while a photo is shown belongs to that photo's hand (see newHand)
for (const type of ["input", "change"]) {
  $("context").addEventListener(type, (e) => {
    if (HAND_KEYS.includes(e.target.name)) state.setFor[e.target.name] = state.shown;
  });
}
// Typing changes nothing until the field is left (half a tile code is no request): until then
// the value shown is marked as for the form before the change.
$("context").addEventListener("input", (e) => {
  if (state.data && !$("result-section").hidden && e.target.tagName === "INPUT" && e.target.type !== "checkbox")
    markStale("Changed: the value below is for the options before it; leave the field to score again.");
});
$("keep-hand").addEventListener("click", keepLastHand);
// labels are sized in CSS pixels: a rotated phone or a resized window draws them again
window.addEventListener("resize", () => draw());
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
$("set-pick").addEventListener("change", (e) => chooseSet(e.target.value));
$("set-photo").addEventListener("change", (e) => {
  const f = e.target.files && e.target.files[0];
  if (f) teachSet(f);
  e.target.value = "";
});
$("set-undo").addEventListener("click", undoAdded);
try { state.set = localStorage.getItem(SET_KEY) || ""; } catch (e) { /* private mode */ }
loadSets();
restoreTableRules();
buildPicker();
showRulesetFields();
