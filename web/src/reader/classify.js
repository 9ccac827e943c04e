// Name each detector box with the crop classifier, in the browser (onnxruntime-web).
// Port of vision/read/detector.py's TileReader._classify / classify / _views / _turned_over and
// the module functions _red_split and _merge_back, constant for constant.
//
// `reader`: {classifier: an ort.InferenceSession of classifier.onnx, ort: the onnxruntime-web
// module (for ort.Tensor), cropSize (the classifier's input side, 48), turns (1, 2 or 4),
// contrast (bool), references (tileset.References or null), tileset ({calibration} or null)}.
// Probabilities are K rows of 46 (Float32Array, TILE_CLASSES order).

import { CLASS_INDEX, TILE_CLASSES } from './classes.js';
import { concat, contrastCrops, cropBoxes, halfTurn, pick, quarterTurn, turnedOver as turnCrops } from './crops.js';
import { combine, SURE as SET_SURE } from './tileset.js';

// A crop this sure after two turns skips the other two (TileReader.classify).
export const SURE_AFTER_TWO_TURNS = 0.95;
// A photo whose tiles the colour views name unsurely (median top probability under
// CONTRAST_BELOW) is looked at again in contrast views (detector.py says why these values).
export const CONTRAST_VIEWS = true;
export const CONTRAST_BELOW = 0.6;
export const BATCH = 64;          // crops per classifier run, as in TileReader._views

const NC = TILE_CLASSES.length;
const f32 = Math.fround;
// np.log of a Python float is a float64 scalar: float32 values are compared with it in float64
const LOG_SURE = Math.log(SURE_AFTER_TWO_TURNS);
const LOG_CONTRAST = Math.log(CONTRAST_BELOW);

// Mirrors TileReader._views: the same K crops in V views -> {logp: V arrays of K Float32Array
// rows (log(p + 1e-6)), emb: V flat Float32Array (K x D) or null when the classifier gives no
// `embedding`}. Runs the classifier on batches of BATCH crops.
export async function views(reader, turned) {
  const batch = concat(turned);
  const session = reader.classifier, ort = reader.ort;
  const inputName = session.inputNames[0];
  const embeds = session.outputNames[1] === 'embedding';
  const per = 3 * batch.size * batch.size;
  const probs = new Float32Array(batch.n * NC);
  let emb = null, dim = 0;
  for (let i = 0; i < batch.n; i += BATCH) {
    const b = Math.min(BATCH, batch.n - i);
    const input = new ort.Tensor('float32', batch.data.slice(i * per, (i + b) * per), [b, 3, batch.size, batch.size]);
    const out = await session.run({ [inputName]: input });
    probs.set(out[session.outputNames[0]].data, i * NC);
    if (embeds) {
      const e = out.embedding;
      dim = e.dims[1];
      if (!emb) emb = new Float32Array(batch.n * dim);
      emb.set(e.data, i * dim);
    }
  }
  const v = turned.length, k = turned[0].n;
  const logp = [];
  for (let view = 0; view < v; view++) {
    const rows = [];
    for (let r = 0; r < k; r++) {
      const row = new Float32Array(NC), at = (view * k + r) * NC;
      for (let j = 0; j < NC; j++) row[j] = Math.log(f32(probs[at + j] + 1e-6));
      rows.push(row);
    }
    logp.push(rows);
  }
  const embViews = emb ? turned.map((_, view) => emb.slice(view * k * dim, (view + 1) * k * dim)) : null;
  return { logp, emb: embViews, dim };
}

// The mean over views (axis 0) of V arrays of K rows: float32, as numpy's mean of float32.
function meanViews(logp) {
  const v = logp.length;
  return logp[0].map((_, r) => {
    const row = new Float32Array(NC);
    for (let j = 0; j < NC; j++) {
      let t = 0;
      for (let view = 0; view < v; view++) t = f32(t + logp[view][r][j]);
      row[j] = t / v;
    }
    return row;
  });
}

const rowMax = (row) => { let m = -Infinity; for (const x of row) if (x > m) m = x; return m; };
const argmaxRow = (row) => { let b = 0; for (let j = 1; j < row.length; j++) if (row[j] > row[b]) b = j; return b; };

// np.median of numbers.
function median(values) {
  const s = Float64Array.from(values).sort(), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Mirrors TileReader._classify: the classifier's probabilities (K rows of 46) for boxes in
// image pixels, and the crops' likeness to the set's kinds (null without a set):
// {probs, likeness}. Views: 0 and 180 degrees; with 4 turns the crops not yet sure also at 90
// and 270; with `contrast`, a photo named unsurely again in contrast views (0 and 180).
export async function classifyBoxes(reader, image, boxes) {
  const k = boxes.length && typeof boxes[0] === 'number' ? boxes.length / 4 : boxes.length;
  if (k === 0) return { probs: [], likeness: null };
  const crops = cropBoxes(image, boxes, reader.cropSize);
  const first = await views(reader, [crops, halfTurn(crops)].slice(0, reader.turns));
  const logp = meanViews(first.logp);
  const sure = logp.map((row) => rowMax(row) >= LOG_SURE);
  let likeness = null;
  if (reader.references) {
    likeness = reader.references.likeness(first.emb);
    const { probs: bySet, decided } = combine(logp.map((row) => Float32Array.from(row, Math.exp)), likeness,
      reader.tileset.calibration);
    for (let i = 0; i < k; i++) {
      // a blank face against a profile without backs needs more turns: the set cannot tell it from a back
      const blank = argmaxRow(bySet[i]) === CLASS_INDEX['5z'] && likeness[0][CLASS_INDEX.back] === -1;
      if (decided[i] && rowMax(bySet[i]) >= SET_SURE && !blank) sure[i] = true;
    }
  }
  if (reader.turns === 4) {
    const unsure = [];
    sure.forEach((s, i) => { if (!s) unsure.push(i); });
    if (unsure.length) {
      const some = pick(crops, unsure);
      const rest = await views(reader, [quarterTurn(some, 1), quarterTurn(some, 3)]);
      const restMean = meanViews(rest.logp);
      unsure.forEach((i, u) => {       // the mean over all four
        for (let j = 0; j < NC; j++) logp[i][j] = f32(logp[i][j] + restMean[u][j]) / 2;
      });
      if (likeness) {                  // a sideways tile is like its references turned
        const turnedLike = reader.references.likeness(rest.emb);
        unsure.forEach((i, u) => {
          for (let j = 0; j < NC; j++) likeness[i][j] = Math.max(likeness[i][j], turnedLike[u][j]);
        });
      }
    }
  }
  // log of each crop's top probability once the views' mean is normalised
  let top = logp.map((row) => {
    const m = rowMax(row);
    let t = 0;
    for (const x of row) t += f32(Math.exp(f32(x - m)));
    return -Math.log(f32(t));
  });
  const colour = logp;
  if (likeness) top = top.map((t, i) => (sure[i] ? 0.0 : t));   // the set's references named most crops
  const lookAgain = reader.contrast && median(top) < LOG_CONTRAST;
  let final = logp;
  if (lookAgain) {
    const contrast = contrastCrops(crops);
    const seen = await views(reader, [contrast, halfTurn(contrast)].slice(0, Math.max(1, Math.floor(reader.turns / 2))));
    const mean = meanViews(seen.logp);
    final = colour.map((row, i) => Float32Array.from(row, (x, j) => f32(x + mean[i][j]) / 2));
  }
  const out = final.map((row) => {
    const m = rowMax(row);
    const p = Float32Array.from(row, (x) => Math.exp(f32(x - m)));
    let t = 0;
    for (const x of p) t += x;
    for (let j = 0; j < NC; j++) p[j] = p[j] / t;
    return p;
  });
  // contrastViews: whether the contrast views were looked at (for tests)
  return { probs: lookAgain ? redSplit(out, colour) : out, likeness, contrastViews: lookAgain };
}

// Mirrors TileReader.classify: the probabilities after the set profile's word (combine).
export async function classify(reader, image, boxes) {
  const { probs, likeness } = await classifyBoxes(reader, image, boxes);
  return likeness === null ? probs : combine(probs, likeness, reader.tileset.calibration).probs;
}

const FIVE_PAIRS = ['m', 'p', 's'].map((s) => [TILE_CLASSES.indexOf(`5${s}`), TILE_CLASSES.indexOf(`0${s}`)]);

// Mirrors detector._red_split: each suit's five-or-red-five total kept and shared out as the
// colour views say (a contrast view sees a five but not its red). Changes `probs` in place.
export function redSplit(probs, colourLogp) {
  probs.forEach((row, i) => {
    const colour = colourLogp[i];
    for (const [five, red] of FIVE_PAIRS) {
      const total = f32(row[five] + row[red]);
      const cr = f32(Math.exp(colour[red])), cf = f32(Math.exp(colour[five]));
      const share = f32(cr / f32(f32(cr + cf) + 1e-12));
      row[red] = total * share;
      row[five] = total - row[red];
    }
  });
  return probs;
}

// Mirrors detector._merge_back: a detector `back` call (class id of "back" in the detector's
// `names`) halves every face probability and adds the half to "back", so a blurry back is not
// named a haku on the classifier's word alone. Returns new rows.
export function mergeBack(probs, detCls, names) {
  const backId = names.indexOf('back');
  if (backId < 0) return probs;
  const backCol = CLASS_INDEX.back;
  return probs.map((row, i) => {
    const out = Float32Array.from(row);
    if (detCls[i] === backId) {
      for (let j = 0; j < NC; j++) out[j] *= 0.5;
      out[backCol] += 0.5;
    }
    return out;
  });
}

// Mirrors TileReader._turned_over: the class index (Int32Array) of each box read turned over
// across a row at `theta` radians; the mean of the 0 and 180 degree views.
export async function turnedOver(reader, image, boxes, theta) {
  const crops = turnCrops(cropBoxes(image, boxes, reader.cropSize), theta);
  if (crops.n === 0) return new Int32Array(0);
  const seen = await views(reader, [crops, halfTurn(crops)]);
  return Int32Array.from(meanViews(seen.logp), argmaxRow);
}
