// Learning and preparing a set profile in the browser: the reading part of
// vision/read/set_learning.py (learn_sheet after its tiles are found and put in sheet order,
// reference_crops, disagreements, swapped, calibrated) and what TileReader.with_set,
// TileReader.embed and TileReader.reference_probs do with the classifier.
//
// A profile here is {name, kinds, embeddings (flat Float32Array N x dim), dim, crops
// (Uint8Array N x 48 x 48 x 3 BGR), model, sources, calibration (tileset.Calibration or null)}:
// what tileset.profileFromJson gives.

import { CLASS_INDEX, TILE_CLASSES } from './classes.js';
import { classify, views } from './classify.js';
import { cropBoxes, halfTurn, toTensor } from './crops.js';
import { calibrate, looks, References } from './tileset.js';

// Constants of vision/read/set_learning.py (why these values: see there).
export const SURE_OTHER = 0.9;
export const GIVEN_UNLIKELY = 0.02;
export const MOSTLY_OTHER = 0.25;
export const MAX_REFERENCES = 2000;     // tileset.MAX_REFERENCES

const f32 = Math.fround;

// Byte squares (Uint8Array N x S x S x 3) as the photos image.js makes, for toTensor.
function squaresOf(bytes, size) {
  const per = size * size * 3, out = [];
  for (let i = 0; i < bytes.length / per; i++) out.push({ width: size, height: size, bgr: bytes.subarray(i * per, (i + 1) * per) });
  return out;
}

// Mirrors TileReader.embed: embeddings (flat Float32Array N x dim) of crops (Uint8Array
// N x S x S x 3 BGR) as crop_boxes cuts them. Returns {embeddings, dim}.
export async function embed(reader, crops) {
  const size = reader.cropSize;
  if (crops.length === 0) return { embeddings: new Float32Array(0), dim: 0 };
  const seen = await views(reader, [toTensor(squaresOf(crops, size), size)]);
  if (!seen.emb) throw new Error('this classifier gives no embedding output, which a set profile needs');
  return { embeddings: seen.emb[0], dim: seen.dim };
}

// Mirrors TileReader.reference_probs: the classifier's probabilities (N rows of 46) for
// reference crops (upright, as a sheet lies): the mean of the 0 and 180 degree views.
export async function referenceProbs(reader, crops) {
  const size = reader.cropSize;
  const tensors = toTensor(squaresOf(crops, size), size);
  const seen = await views(reader, [tensors, halfTurn(tensors)]);
  return seen.logp[0].map((row0, i) => {
    const row1 = seen.logp[1][i];
    const logp = Float32Array.from(row0, (x, j) => f32(x + row1[j]) / 2);
    let m = -Infinity;
    for (const x of logp) m = Math.max(m, x);
    const out = Float32Array.from(logp, (x) => Math.exp(f32(x - m)));
    let t = 0;
    for (const x of out) t += x;
    return out.map((x) => x / t);
  });
}

// Mirrors set_learning.reference_crops: boxes cut as the classifier sees them, kept as a
// profile keeps them: Uint8Array (N x size x size x 3) BGR.
export function referenceCrops(image, boxes, size) {
  const t = cropBoxes(image, boxes, size), plane = size * size;
  const out = new Uint8Array(t.n * plane * 3);
  for (let i = 0; i < t.n; i++) {
    for (let p = 0; p < plane; p++) {
      for (let c = 0; c < 3; c++) {
        // (tensors * 255.0 + 0.5).astype(np.uint8), in float32
        out[(i * plane + p) * 3 + c] = f32(f32(t.data[(i * 3 + c) * plane + p] * 255.0) + 0.5);
      }
    }
  }
  return out;
}

// Mirrors set_learning.calibrated: the profile with its weight against the classifier decided
// from all its references.
export async function calibrated(reader, profile) {
  const probs = await referenceProbs(reader, profile.crops);
  return { ...profile, calibration: calibrate(profile.kinds, probs, profile.crops, profile.embeddings, profile.dim) };
}

// Mirrors the set part of TileReader.with_set: {tileset, references} for a reader naming tiles
// with this profile's help (read.js's withSet puts them on its reader). References embedded by
// another classifier are embedded anew; a profile without calibration is calibrated; each
// crop is matched in its altered looks too (tileset.looks).
export async function prepareSet(reader, profile) {
  let tileset = profile;
  if (tileset.model !== reader.modelId) {
    const { embeddings, dim } = await embed(reader, tileset.crops);
    tileset = { ...tileset, embeddings, dim, model: reader.modelId, calibration: null };
  }
  if (!tileset.calibration) tileset = await calibrated(reader, tileset);
  const { crops: altered, index } = looks(tileset.crops, reader.cropSize);
  const { embeddings, dim } = await embed(reader, altered);
  const kindIds = Array.from(index, (i) => CLASS_INDEX[tileset.kinds[i]]);
  return { tileset, references: new References(kindIds, embeddings, dim) };
}

// Mirrors set_learning.disagreements: tiles whose given kind the reader finds unlikely while
// it is sure of another: [{index, given, read, confidence}].
export function disagreements(probs, kinds) {
  const out = [];
  kinds.forEach((kind, i) => {
    let best = 0;
    for (let j = 1; j < TILE_CLASSES.length; j++) if (probs[i][j] > probs[i][best]) best = j;
    if (TILE_CLASSES[best] !== kind && probs[i][best] >= SURE_OTHER && probs[i][CLASS_INDEX[kind]] < GIVEN_UNLIKELY) {
      out.push({ index: i, given: kind, read: TILE_CLASSES[best], confidence: probs[i][best] });
    }
  });
  return out;
}

// Mirrors set_learning.swapped: pairs of disagreeing tiles each read as the other's given kind.
export function swapped(found) {
  const byGiven = new Map();
  for (const d of found) { if (!byGiven.has(d.given)) byGiven.set(d.given, []); byGiven.get(d.given).push(d); }
  const pairs = [];
  for (const d of found) {
    for (const e of byGiven.get(d.read) ?? []) if (e.read === d.given && d.index < e.index) pairs.push([d, e]);
  }
  return pairs;
}

// Mirrors set_learning.learn_sheet from its boxes on: `boxes` are the sheet's tiles in
// sheet order (set_learning.sheet_order, the layout parser's rows: Python's, in Pyodide) and
// as many as `kinds`. Adds one reference per tile to `into` (a new profile when null). Throws
// an Error with `.misread` when most tiles read surely as other kinds than named (unless
// `trustOrder`). Returns {tileset, kinds, disagreements, swaps, sheetProbs}.
export async function learnSheet(reader, image, boxes, kinds, { into = null, name = 'set', source = 'photo', trustOrder = false } = {}) {
  if (boxes.length !== kinds.length) {
    throw Object.assign(new Error(`found ${boxes.length} tiles in the photo, but ${kinds.length} are named`), { found: boxes.length, named: kinds.length });
  }
  const plain = { ...reader, references: null, tileset: null };     // the sheet is judged by the classifier alone
  const probs = await classify(plain, image, boxes);
  const found = disagreements(probs, kinds);
  if (found.length > MOSTLY_OTHER * kinds.length && !trustOrder) {
    throw Object.assign(new Error(`${found.length} of the ${kinds.length} tiles read surely as other kinds than named`),
      { misread: found, named: kinds.length });
  }
  const crops = referenceCrops(image, boxes, reader.cropSize);
  let base = into ?? { name, kinds: [], embeddings: new Float32Array(0), dim: 0, crops: new Uint8Array(0), model: reader.modelId, sources: [] };
  if (base.model !== reader.modelId && base.kinds.length) base = (await prepareSet(reader, base)).tileset;   // embedded anew
  if (base.kinds.length + kinds.length > MAX_REFERENCES) {
    throw new Error(`set ${base.name} would hold ${base.kinds.length + kinds.length} references; at most ${MAX_REFERENCES}`);
  }
  const { embeddings, dim } = await embed(reader, crops);
  const joinedCrops = new Uint8Array(base.crops.length + crops.length);
  joinedCrops.set(base.crops); joinedCrops.set(crops, base.crops.length);
  const joinedEmb = new Float32Array(base.embeddings.length + embeddings.length);
  joinedEmb.set(base.embeddings); joinedEmb.set(embeddings, base.embeddings.length);
  const added = {
    name: base.name, kinds: [...base.kinds, ...kinds], embeddings: joinedEmb, dim, crops: joinedCrops,
    model: reader.modelId, sources: [...(base.sources ?? []), ...kinds.map((_, i) => `${source} #${i + 1}`)],
  };
  const sheetProbs = await referenceProbs(reader, added.crops);
  const tileset = { ...added, calibration: calibrate(added.kinds, sheetProbs, added.crops, added.embeddings, dim) };
  return { tileset, kinds: [...kinds], disagreements: found, swaps: swapped(found), sheetProbs };
}
