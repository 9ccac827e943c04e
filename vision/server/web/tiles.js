// Tiles as CSS chips, shared by the page (app.js) and the OBS overlay (overlay.js).
// No mahjong font is needed: phones and streaming PCs often lack one.
"use strict";

const HONOURS = ["E", "S", "W", "N", "Wh", "Gr", "Rd"];
const SUIT_NAMES = { m: "characters", p: "dots", s: "bamboo" };

function splitMpsz(text) {
  const out = []; let digits = [];
  for (const ch of (text || "").replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else { for (const d of digits) out.push(d + ch); digits = []; }
  }
  return out;
}

function chip(code) {
  const e = document.createElement("span");
  const n = code[0], s = code[1];
  e.className = "tile";
  e.dataset.tile = code;
  if (code === "back") { e.textContent = "■"; e.title = "face-down tile"; return e; }
  e.classList.add(s);
  if (s === "z") { e.textContent = HONOURS[Number(n) - 1] || "?"; return e; }
  if (s === "f") { e.innerHTML = `F<small>${n}</small>`; return e; }
  if (n === "0") e.classList.add("red");
  e.innerHTML = `${n === "0" ? 5 : n}<small>${s}</small>`;
  e.title = `${n === "0" ? "red 5" : n} ${SUIT_NAMES[s] || ""}`;
  return e;
}

// a tile as players say it: "4 bamboo", "red 5 dots", "South", "White dragon", "flower 2"
const HONOUR_WORDS = ["East", "South", "West", "North", "White dragon", "Green dragon", "Red dragon"];
function tileName(code) {
  const n = code[0], s = code[1];
  if (s === "z") return HONOUR_WORDS[Number(n) - 1] || code;
  if (s === "f") return `flower ${n}`;
  if (!SUIT_NAMES[s]) return code;
  return `${n === "0" ? "red 5" : n} ${SUIT_NAMES[s]}`;
}

// a text's tile codes ("tenpai: 4s 2z") in words ("tenpai: 4 bamboo, South")
function tilesInWords(text) {
  return String(text || "").replace(/\b[0-9][mpszf](?:\s+[0-9][mpszf])*\b/g,
    (run) => run.split(/\s+/).map(tileName).join(", "));
}
