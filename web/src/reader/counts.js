// Name the tiles of one photo so that no name is used more often than one set holds.
// Port of vision/read/tile_counts.py (assign_within_counts), same constants, same tie-breaking:
// the surest tile first (a stable sort), each taking its most probable class with a copy left.

import { CLASS_INDEX, TILE_CLASSES } from './classes.js';

export const SET_TILES = 160;     // more tiles than the largest set (American, 152): several sets
export const COPIES = 4;          // of each playing tile in a set
export const RED_FIVES = 1;       // per suit in a set
export const MIN_PROB = 0.001;    // a name less likely than this is never given to make room
export const BACK_MIN_PROB = 0.1; // nor is "face down" to a tile the classifier sees face up

// tile_counts._kind: the physical kind a class counts against (a red five against its five).
const kindOf = (name) => (name[0] === '0' ? `5${name[1]}` : name);

const NC = TILE_CLASSES.length;
const KINDS = [...new Set(TILE_CLASSES.map(kindOf))].sort();
const KIND_OF = TILE_CLASSES.map((c) => KINDS.indexOf(kindOf(c)));
// copies of each kind in one set; backs are not counted
const KIND_LIMIT = KINDS.map((k) => (k === 'back' ? Infinity : k.endsWith('f') ? 1 : COPIES));
const RED = TILE_CLASSES.map((c) => ['0m', '0p', '0s'].includes(c));
const FLOOR = TILE_CLASSES.map((_, i) => (i === CLASS_INDEX.back ? BACK_MIN_PROB : MIN_PROB));

// First index of the largest value (np.argmax).
export function argmax(row) {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return best;
}

// Mirrors tile_counts.assign_within_counts: class ids (Int32Array, K) for probability rows
// (K rows of 46, TILE_CLASSES order) such that no kind is named more often than
// ceil(K / SET_TILES) sets hold. A tile with no name left keeps the classifier's best.
export function assignWithinCounts(probs) {
  const p = Array.from(probs);
  for (const row of p) {
    if (row.length !== NC) throw new Error(`expected probabilities (K, ${NC}), got a row of ${row.length}`);
  }
  const sets = Math.max(1, Math.ceil(p.length / SET_TILES));
  const kindLeft = KIND_LIMIT.map((l) => l * sets);
  const redLeft = RED.map((r) => (r ? RED_FIVES * sets : Infinity));
  const out = Int32Array.from(p, argmax);
  const top = p.map((row) => Math.max(...row));
  // np.argsort(-top, kind="stable"): surest first, ties in index order
  const order = p.map((_, i) => i).sort((a, b) => (top[b] - top[a]) || (a - b));
  for (const i of order) {
    const row = p[i];
    let best = -1, bestVal = -Infinity;
    for (let j = 0; j < NC; j++) {
      const likely = row[j] >= FLOOR[j] || j === out[i];   // its own best, however unsure
      if (likely && kindLeft[KIND_OF[j]] > 0 && redLeft[j] > 0 && row[j] > bestVal) {
        best = j; bestVal = row[j];
      }
    }
    if (best >= 0) out[i] = best;
    const c = out[i];
    kindLeft[KIND_OF[c]] -= 1;
    redLeft[c] -= 1;
  }
  return out;
}
