// Set profiles in the browser: what the tiles of one physical set look like, and how much that
// weighs against the classifier. Port of vision/read/tileset.py (References.likeness, combine,
// Calibration, calibrate, apart, SURE), constant for constant.
//
// A profile as JSON (web/tools/profile_json.py writes one from a Python .npz):
//   {name, kinds: [46-class names], embeddings: [[D numbers], ...] (unit rows, float16 in the
//    .npz), crops?: base64 of (N, 48, 48, 3) uint8 BGR, model: the classifier's fingerprint,
//    sources: [where each reference came from],
//    calibration: the .npz meta's "calibration" object (Calibration.to_meta) or null}
// and, for tests, `references: {kind_ids: [...], embeddings: [[...], ...]}`: the reader's
// references as TileReader.with_set built them (the crops and their altered looks, embedded).

import { CLASS_INDEX, TILE_CLASSES } from './classes.js';
import { cut, fitSquare, PAD_VALUE, percentileSorted, pyRound } from './crops.js';
import { Generator } from './random.js';
import { resize } from './resize.js';

const NC = TILE_CLASSES.length;
const f32 = Math.fround;

export const BACK = CLASS_INDEX.back;
export const FIVES = ['m', 'p', 's'].map((s) => [CLASS_INDEX[`5${s}`], CLASS_INDEX[`0${s}`]]);

// The constants of vision/read/tileset.py; why each has its value is said there.
export const FAMILIAR = 0.97, UNFAMILIAR = 0.80;
export const LOST_ABOVE = 0.65, LOST_AT = 0.55;
export const WEIGHT_FAMILIAR = 10.0, WEIGHT_UNFAMILIAR = 30.0;
export const SEPARATE_LOW = 0.20, SEPARATE_HIGH = 0.26;
export const CONTRADICTED_LOW = 0.20, CONTRADICTED_HIGH = 0.30;
export const OVERRULE = 60.0;
export const MISREAD_BELOW = 0.5;
export const UNHELD_GAP = 0.15;
export const UNLIKE_SET = 0.6;
export const TEMPER = 2.0;
export const DECIDES = 0.2;
export const LOOKS = 8;
export const HAKU_LIGHT = 0.7;
export const SURE = 0.97;

const clip01 = (v) => Math.min(Math.max(v, 0), 1);

// ---- references ----------------------------------------------------------------------------

// Mirrors tileset.References: class ids (M) and unit embeddings (M x D, flat Float32Array).
export class References {
  constructor(kindIds, embeddings, dim) {
    this.kindIds = Int32Array.from(kindIds);
    this.embeddings = embeddings instanceof Float32Array ? embeddings : Float32Array.from(embeddings);
    this.dim = dim;
    if (this.embeddings.length !== this.kindIds.length * dim) throw new Error('references: one embedding per kind id');
    this.kinds = [...new Set(this.kindIds)].sort((a, b) => a - b);   // np.unique
  }

  // Mirrors References.likeness: (K rows of 46, Float32Array) cosine likeness of each crop to
  // each kind's nearest reference, -1 for kinds the profile lacks. `views`: V flat Float32Array
  // (K x D), the crops in V views (turns): a crop is as alike as its most alike view.
  likeness(views) {
    const d = this.dim, m = this.kindIds.length, k = views[0].length / d;
    const out = [];
    const sims = new Float32Array(m);
    for (let i = 0; i < k; i++) {
      sims.fill(-Infinity);
      for (const emb of views) {
        for (let r = 0; r < m; r++) {
          let s = 0;
          for (let t = 0; t < d; t++) s += emb[i * d + t] * this.embeddings[r * d + t];
          s = f32(s);
          if (s > sims[r]) sims[r] = s;
        }
      }
      const row = new Float32Array(NC).fill(-1);
      for (const j of this.kinds) {
        let best = -Infinity;
        for (let r = 0; r < m; r++) if (this.kindIds[r] === j && sims[r] > best) best = sims[r];
        row[j] = best;
      }
      out.push(row);
    }
    return out;
  }
}

// ---- calibration ---------------------------------------------------------------------------

// Python's round(x, digits): halves (exact binary ones) go to the even neighbour.
function pyRoundTo(x, digits) {
  const scale = 10 ** digits, t = x * scale;
  if (Number.isInteger(t * 2) && !Number.isInteger(t)) {
    const f = Math.floor(t);
    return (f % 2 === 0 ? f : f + 1) / scale;
  }
  return Number(x.toFixed(digits));
}

// Mirrors tileset.Calibration: how much one set's references weigh against the classifier.
export class Calibration {
  constructor(weight, { overrule = [], misread = [], hakuNotBack = false, familiar = 1.0, separation = 0.0,
    weights = [], contradicted = 0.0 } = {}) {
    Object.assign(this, { weight, overrule, misread, hakuNotBack, familiar, separation, weights, contradicted });
  }

  // Mirrors Calibration.kind_weights: (46,) float32, the weight of a crop most like each kind.
  kindWeights() {
    if (this.weights.length === NC) return Float32Array.from(this.weights);
    return new Float32Array(NC).fill(this.weight);
  }

  // Mirrors Calibration.to_meta: what a profile file keeps (the same keys and roundings).
  toMeta() {
    return {
      weight: pyRoundTo(this.weight, 3), overrule: [...this.overrule], misread: this.misread.map((m) => [...m]),
      haku_not_back: this.hakuNotBack, familiar: pyRoundTo(this.familiar, 4),
      separation: pyRoundTo(this.separation, 4), weights: this.weights.map((w) => pyRoundTo(w, 3)),
      contradicted: pyRoundTo(this.contradicted, 4),
    };
  }

  // Mirrors Calibration.from_meta; throws when it is malformed.
  static fromMeta(meta) {
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new Error('calibration is not an object');
    const num = (v) => { const x = Number(v); if (v === undefined || v === null || Number.isNaN(x)) throw new Error('calibration: not a number'); return x; };
    const weight = num(meta.weight), familiar = num(meta.familiar ?? 1.0);
    const separation = num(meta.separation ?? 0.0), contradicted = num(meta.contradicted ?? 0.0);
    const weights = (meta.weights ?? []).map(num);
    if (weights.length && weights.length !== NC) throw new Error('calibration weights are not one per kind');
    if (![weight, ...weights].every((w) => w >= 0 && w <= OVERRULE) || !(familiar >= 0 && familiar <= 1
      && separation >= 0 && separation <= 2 && contradicted >= 0 && contradicted <= 1)) {
      throw new Error('calibration out of range');
    }
    const overrule = (meta.overrule ?? []).map(String);
    const misread = (meta.misread ?? []).map(([a, b]) => [String(a), String(b)]);
    if ([...overrule, ...misread.flat()].some((k) => !(k in CLASS_INDEX))) throw new Error('calibration names an unknown kind');
    return new Calibration(weight, { overrule, misread, hakuNotBack: Boolean(meta.haku_not_back ?? false),
      familiar, separation, weights, contradicted });
  }
}

// ---- apart, calibrate ----------------------------------------------------------------------

// Mirrors tileset.apart: (N,) 1 - the cosine of each reference to the nearest reference of
// another kind (a five and its red five are one kind; zeros with fewer than two kinds).
// `embeddings`: flat Float32Array N x dim.
export function apart(kinds, embeddings, dim) {
  const ids = kinds.map((k) => {
    const id = CLASS_INDEX[k];
    const five = FIVES.find(([, red]) => red === id);
    return five ? five[0] : id;
  });
  const n = ids.length, out = new Float64Array(n);
  if (new Set(ids).size < 2) return out;
  for (let i = 0; i < n; i++) {
    let best = -Infinity;
    for (let j = 0; j < n; j++) {
      let c = -1.0;
      if (ids[i] !== ids[j]) {
        c = 0;
        for (let t = 0; t < dim; t++) c += embeddings[i * dim + t] * embeddings[j * dim + t];
        c = f32(c);
      }
      if (c > best) best = c;
    }
    out[i] = f32(1.0 - best);
  }
  return out;
}

// Mirrors tileset.calibrate: how much a set's references weigh, from its sheet. `sheetProbs`:
// N rows of 46 (the classifier's reading of each reference crop); `crops`: Uint8Array
// (N, S, S, 3) BGR; `embeddings`: flat Float32Array N x dim.
export function calibrate(kinds, sheetProbs, crops, embeddings, dim) {
  const ids = kinds.map((k) => CLASS_INDEX[k]);
  const n = ids.length;
  if (n === 0) return new Calibration(WEIGHT_FAMILIAR);
  const own = ids.map((id, i) => sheetProbs[i][id]);
  const familiar = f32(own.reduce((a, b) => a + b, 0) / n);
  const separation = percentileSorted(Float64Array.from(apart(kinds, embeddings, dim)).sort(), 10);
  const unfamiliar = clip01((FAMILIAR - familiar) / (FAMILIAR - UNFAMILIAR));
  const notLost = clip01((familiar - LOST_AT) / (LOST_ABOVE - LOST_AT));
  const separated = clip01((separation - SEPARATE_LOW) / (SEPARATE_HIGH - SEPARATE_LOW));
  const weight = WEIGHT_FAMILIAR + unfamiliar * notLost * (WEIGHT_UNFAMILIAR - WEIGHT_FAMILIAR);
  const held = new Set(kinds);
  let hakuNotBack = held.has('back');
  if (held.has('5z')) {
    // the middle of each crop: light haku faces are as light as drawn faces
    const s = Math.round(Math.sqrt(crops.length / n / 3)), a = Math.floor(s / 4), b = Math.floor((3 * s) / 4);
    const middle = ids.map((_, i) => {
      let t = 0;
      for (let y = a; y < b; y++) for (let x = a; x < b; x++) for (let c = 0; c < 3; c++) t += crops[((i * s + y) * s + x) * 3 + c];
      return t / ((b - a) * (b - a) * 3);
    });
    const meanOf = (pick) => { const v = middle.filter((_, i) => pick(kinds[i])); return v.reduce((p, q) => p + q, 0) / v.length; };
    const haku = meanOf((k) => k === '5z'), faces = meanOf((k) => k !== 'back');
    hakuNotBack = hakuNotBack || haku >= HAKU_LIGHT * faces;
  }
  const weights = new Array(NC).fill(weight);
  const misread = [], overrule = [];
  for (const kind of [...new Set(kinds)]) {      // dict.fromkeys: first-seen order
    const mine = ids.map((id) => id === CLASS_INDEX[kind]);
    const ownMax = Math.max(...own.filter((_, i) => mine[i]));
    if (ownMax < MISREAD_BELOW) {
      const mean = new Float64Array(NC);
      let count = 0;
      sheetProbs.forEach((row, i) => { if (mine[i]) { count++; for (let j = 0; j < NC; j++) mean[j] += row[j]; } });
      let best = 0;
      for (let j = 1; j < NC; j++) if (mean[j] / count > mean[best] / count) best = j;
      misread.push([kind, TILE_CLASSES[best]]);
      // only as far as the features hold the kinds apart; never a back nor a dark haku
      if (separated > 0 && kind !== 'back' && (kind !== '5z' || hakuNotBack)) {
        overrule.push(kind);
        weights[CLASS_INDEX[kind]] = weight + separated * (OVERRULE - weight);
      }
    }
  }
  // a sheet the classifier reads surely as other kinds: its pictures weigh nothing
  const contradicted = f32(sheetProbs.reduce((t, row, i) => t + (f32(Math.max(...row) - own[i])), 0) / n);
  const trusted = 1.0 - clip01((contradicted - CONTRADICTED_LOW) / (CONTRADICTED_HIGH - CONTRADICTED_LOW));
  return new Calibration(weight * trusted, { overrule, misread, hakuNotBack, familiar, separation,
    weights: weights.map((w) => w * trusted), contradicted });
}

// ---- combine -------------------------------------------------------------------------------

// Mirrors tileset.combine: the classifier's probabilities (K rows of 46) and the crops' likeness
// to a profile's kinds (K rows of 46, -1 for kinds it lacks) -> {probs: K Float32Array rows,
// decided: K booleans}. The joined log-probabilities are tempered as the set's weight rises.
export function combine(probs, likeness, calibration = null) {
  const k = likeness.length;
  if (k === 0) return { probs, decided: [] };
  const cal = calibration ?? new Calibration(WEIGHT_FAMILIAR);
  const held = Array.from(likeness[0], (v) => v > -1);
  const kindWeights = cal.kindWeights();
  const outProbs = [], decided = [];
  for (let i = 0; i < k; i++) {
    const like = Float32Array.from(likeness[i]);
    for (const [five, red] of FIVES) {   // the set says "a five"; the classifier's colour says red or not
      if (held[five] && held[red]) like[five] = like[red] = Math.max(like[five], like[red]);
    }
    const own = Float32Array.from(like, (v, j) => (held[j] ? v : -1.0));
    let nearest = 0;
    for (let j = 1; j < NC; j++) if (own[j] > own[nearest]) nearest = j;
    const best = own[nearest];
    const unheld = Math.max(f32(best - UNHELD_GAP), UNLIKE_SET);
    const alike = Float32Array.from(like, (v, j) => (held[j] ? v : unheld));
    if (!held[BACK]) {
      const haku = nearest === CLASS_INDEX['5z'];
      if (!(haku && cal.hakuNotBack)) alike[BACK] = Math.max(best, UNLIKE_SET);
    } else {   // a back unlike the one learned counts as one not held
      alike[BACK] = Math.max(alike[BACK], f32(best - UNHELD_GAP));
    }
    const weight = kindWeights[nearest];
    const sorted = Float32Array.from(own).sort();
    decided.push(f32(sorted[NC - 1] - sorted[NC - 2]) >= DECIDES && weight > 0);   // a doubted sheet decides nothing
    let amax = -Infinity;
    for (let j = 0; j < NC; j++) amax = Math.max(amax, alike[j]);
    const logits = new Float32Array(NC);
    for (let j = 0; j < NC; j++) logits[j] = Math.log(f32(probs[i][j] + 1e-6)) + weight * f32(alike[j] - amax);
    let lmax = -Infinity;
    for (let j = 0; j < NC; j++) lmax = Math.max(lmax, logits[j]);
    const temper = 1.0 + clip01((weight - WEIGHT_FAMILIAR) / (WEIGHT_UNFAMILIAR - WEIGHT_FAMILIAR)) * (TEMPER - 1.0);
    let total = 0;
    const out = new Float32Array(NC);
    for (let j = 0; j < NC; j++) { out[j] = Math.exp(f32(f32(logits[j] - lmax) / temper)); total += out[j]; }
    for (let j = 0; j < NC; j++) out[j] = out[j] / total;
    outProbs.push(out);
  }
  return { probs: outProbs, decided };
}

// ---- looks ---------------------------------------------------------------------------------

// Mirrors tileset.looks: each reference crop (Uint8Array, N x S x S x 3 BGR) and `n` altered
// copies of it, as a hand's photo may show the tile: foreshortened, blurred small, lighter or
// darker; numpy's default_rng(seed) draws (random.js), so the copies are Python's.
// Returns {crops: Uint8Array (N * (n + 1) x S x S x 3), index: Int32Array into the originals}.
export function looks(crops, size = 48, n = LOOKS, seed = 0) {
  const rng = new Generator(seed);
  const per = size * size * 3, count = crops.length / per;
  const out = new Uint8Array(count * (n + 1) * per), index = new Int32Array(count * (n + 1));
  let at = 0;
  for (let i = 0; i < count; i++) {
    const crop = { width: size, height: size, bgr: crops.subarray(i * per, (i + 1) * per) };
    out.set(crop.bgr, at * per);
    index[at++] = i;
    // the tile, not the pad: pixels more than 6 (summed over channels) from the pad grey
    let y0 = size, y1 = -1, x0 = size, x1 = -1;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const p = (y * size + x) * 3, b = crop.bgr;
        if (Math.abs(b[p] - PAD_VALUE) + Math.abs(b[p + 1] - PAD_VALUE) + Math.abs(b[p + 2] - PAD_VALUE) > 6) {
          y0 = Math.min(y0, y); y1 = Math.max(y1, y); x0 = Math.min(x0, x); x1 = Math.max(x1, x);
        }
      }
    }
    const tile = y1 >= 0 ? cut(crop, x0, y0, x1 + 1, y1 + 1) : crop;
    const w = tile.width, h = tile.height;
    for (let k = 0; k < n; k++) {
      const sw = Math.max(4, pyRound(w * rng.uniform(0.9, 1.05)));
      const sh = Math.max(4, pyRound(h * rng.uniform(0.55, 1.0)));
      let alt = resize(tile, sw, sh, 'area');
      if (rng.random() < 0.5) {
        const f = rng.uniform(0.35, 0.7);
        const small = [Math.max(3, pyRound(sw * f)), Math.max(3, pyRound(sh * f))];
        alt = resize(resize(alt, small[0], small[1], 'area'), sw, sh, 'linear');
      }
      // float32 arithmetic, clipped to 0..255, then truncated to bytes (astype(np.uint8))
      const gain = f32(rng.uniform(0.75, 1.2)), shift = f32(rng.uniform(-20, 20));
      const bytes = Uint8Array.from(alt.bgr, (v) => Math.min(Math.max(f32(f32(v * gain) + shift), 0), 255));
      out.set(fitSquare({ width: sw, height: sh, bgr: bytes }, size).bgr, at * per);
      index[at++] = i;
    }
  }
  return { crops: out, index };
}

// ---- profiles as JSON ----------------------------------------------------------------------

function fromBase64(text) {
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(text, 'base64'));
  const bin = atob(text);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

// A profile from its JSON (see the top of this file): {name, kinds, embeddings (flat
// Float32Array), dim, crops (Uint8Array or null), model, calibration (Calibration or null),
// references (References or null: the test file's, as Python's reader built them)}.
export function profileFromJson(json) {
  const obj = typeof json === 'string' ? JSON.parse(json) : json;
  const kinds = obj.kinds.map(String);
  const unknown = kinds.find((k) => !(k in CLASS_INDEX));
  if (unknown) throw new Error(`set ${obj.name}: unknown tile kind ${unknown}`);
  const dim = obj.embeddings.length ? obj.embeddings[0].length : 0;
  const embeddings = Float32Array.from(obj.embeddings.flat());
  let references = null;
  if (obj.references) {
    const rd = obj.references.embeddings[0].length;
    references = new References(obj.references.kind_ids, Float32Array.from(obj.references.embeddings.flat()), rd);
  }
  return {
    name: String(obj.name), kinds, embeddings, dim, crops: obj.crops ? fromBase64(obj.crops) : null,
    model: String(obj.model ?? ''), sources: (obj.sources ?? []).map(String), calibration: obj.calibration ? Calibration.fromMeta(obj.calibration) : null,
    references,
  };
}

// A profile as JSON text (what profileFromJson reads; the .npz's float16 embeddings are kept as
// float32 numbers here).
export function profileToJson(profile) {
  const rows = [];
  for (let i = 0; i < profile.kinds.length; i++) rows.push(Array.from(profile.embeddings.subarray(i * profile.dim, (i + 1) * profile.dim)));
  let crops = null;
  if (profile.crops) {
    if (typeof Buffer !== 'undefined') crops = Buffer.from(profile.crops).toString('base64');
    else { let bin = ''; for (const b of profile.crops) bin += String.fromCharCode(b); crops = btoa(bin); }
  }
  return JSON.stringify({ name: profile.name, kinds: profile.kinds, embeddings: rows, crops, model: profile.model,
    sources: profile.sources ?? [], calibration: profile.calibration ? profile.calibration.toMeta() : null });
}

// Mirrors TileSet.likeness: against the references as stored (no altered looks).
export function profileLikeness(profile, views) {
  return new References(profile.kinds.map((k) => CLASS_INDEX[k]), profile.embeddings, profile.dim).likeness(views);
}
