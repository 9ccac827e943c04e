// The browser's TileReader: vision/read/detector.py TileReader (read, look_again, with_set) on
// onnxruntime-web. The detector half is detect.js; the naming of the boxes (classifier views, set
// profile, tile counts) is R2's classify.js / tileset.js / counts.js, called as TileReader._read
// calls its Python counterparts. A result is a plain object shaped like Python's Detections, floats
// unrounded, so the page's Python (Pyodide) rebuilds the same Detections from it:
//   {width, height, tiles: [{tile, box, confidence, sideways, alternatives}], windows,
//    reflections, crowded}

import { TILE_CLASSES } from './classes.js';
import { detect, flippedBack, markSideways, readingOrder, MAX_BOXES } from './detect.js';
import { flip } from './image.js';
import { assignWithinCounts, argmax } from './counts.js';
import { classifyBoxes, mergeBack, turnedOver } from './classify.js';
import { combine } from './tileset.js';
import { reflections } from './reflections.js';
import { prepareSet } from './set_learning.js';

export const SECOND_LOOKS = { x: 'at the photo mirrored left to right', y: 'at the photo mirrored top to bottom' };
export const CONFIRM_FROM = 0.1;      // detector.CONFIRM_FROM
export const CONFIRM_ALIKE = 0.85;    // detector.CONFIRM_ALIKE

async function session(ort, model) {
  // a URL string or the model's bytes, as onnxruntime-web takes them
  return ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

export class TileReader {
  // TileReader.__init__ with its defaults (conf 0.25, iou 0.5, 4 turns, zoom, counts, contrast,
  // mirrors); `meta` is web/tools/reader_meta.py's reader.json: {names, imgsz, crop_size,
  // end2end, model_id}.
  static async create({ ort, detector, classifier, meta, threads = 1 }) {
    if (ort.env?.wasm && threads) ort.env.wasm.numThreads = threads;
    const r = new TileReader();
    r.ort = ort;
    r.detector = await session(ort, detector);
    r.classifier = classifier ? await session(ort, classifier) : null;
    r.names = meta.names;
    r.imgsz = meta.imgsz;
    r.cropSize = meta.crop_size;
    r.end2end = Boolean(meta.end2end);
    r.modelId = meta.model_id || '';
    r.singleStage = r.names.length === TILE_CLASSES.length && r.names.every((n, i) => n === TILE_CLASSES[i]);
    r.embeds = r.classifier ? r.classifier.outputNames[1] === 'embedding' : false;
    return r;
  }

  constructor() {
    this.conf = 0.25;
    this.iou = 0.5;
    this.turns = 4;
    this.zoom = true;
    this.counts = true;
    this.contrast = true;
    this.mirrors = true;
    this.tileset = null;
    this.references = null;
    this.confirmBelow = 0.0;
  }

  // TileReader.read: all tiles of `image` ({width, height, bgr}) in reading order; `windows`:
  // an earlier result's windows of the same scene, looked through first
  async read(image, { windows = [] } = {}) {
    return this._read(image, windows, '');
  }

  // TileReader.look_again: 'x' or 'y', the detector looking at the photo mirrored so
  async lookAgain(image, how) {
    if (!(how in SECOND_LOOKS)) {
      throw new Error(`how must be one of ${Object.keys(SECOND_LOOKS).join(', ')}, not ${JSON.stringify(how)}`);
    }
    return this._read(image, [], how);
  }

  // TileReader.with_set: a reader naming tiles with a set profile's help (models shared), for
  // a profile as tileset.js's profileFromJson gives it; null or empty: the reader without one.
  // Async: a profile of another classifier is embedded anew, and the references' altered looks
  // are embedded (set_learning.js prepareSet). `prepare(reader, profile)`: another way to set
  // reader.tileset and reader.references (tests).
  async withSet(profile, prepare = null) {
    const reader = Object.assign(Object.create(TileReader.prototype), this);
    reader.tileset = reader.references = null;
    reader.conf = Math.max(this.conf, this.confirmBelow);
    reader.confirmBelow = 0.0;
    if (!profile || profile.kinds.length === 0) return reader;
    if (!this.classifier || !this.embeds) {
      throw new Error('this classifier gives no embedding output, which a set profile needs '
        + '(re-export it with models/train_classifier.py)');
    }
    if (prepare) await prepare(reader, profile);
    else Object.assign(reader, await prepareSet(reader, profile));
    // boxes down to CONFIRM_FROM are looked at; those under the reader's own threshold are kept
    // only when the set confirms them (_read)
    reader.confirmBelow = reader.conf;
    reader.conf = Math.min(reader.conf, CONFIRM_FROM);
    return reader;
  }

  // TileReader._detect (detect.js), for tests: {boxes, scores, cls, windows}
  async detect(image, hint = []) {
    return detect(this, image, hint);
  }

  // TileReader._read
  async _read(image, windows, how) {
    const w = image.width, h = image.height;
    let det;
    let used;
    if (how) {
      det = await detect(this, flip(image, how));
      det.boxes = flippedBack(det.boxes, how, w, h);
      used = flippedBack(det.windows, how, w, h).map((b) => b.map((v) => Math.trunc(v)));
    } else {
      det = await detect(this, image, windows);
      used = det.windows;
    }
    let { boxes, scores, cls } = det;
    if (boxes.length >= MAX_BOXES) {     // no hand: not worth seconds of naming (Detections.crowded)
      return { width: w, height: h, tiles: [], windows: used, reflections: [], crowded: boxes.length };
    }
    let mirrored = [];
    let probs;
    if (this.classifier) {
      let likeness;
      ({ probs, likeness } = await classifyBoxes(this, image, boxes));
      if (!this.singleStage) probs = mergeBack(probs, cls, this.names);
      if (likeness !== null) {      // after the detector's back call: a haku the set holds stays one
        const combined = combine(probs, likeness, this.tileset.calibration);
        probs = combined.probs;
        const below = Math.fround(this.confirmBelow);    // float32 scores against a Python float
        const weak = scores.map((s) => s < below);
        if (weak.some(Boolean)) {   // a box under the threshold is a tile if the set knows it
          const alike = likeness.map((row) => Math.max(...row));
          const sure = combined.decided.map((d, i) => Boolean(d) && alike[i] >= CONFIRM_ALIKE);
          const keep = [];
          boxes.forEach((_, i) => { if (!weak[i] || sure[i]) keep.push(i); });
          scores = scores.map((s, i) => (weak[i] && sure[i] ? alike[i] : s));
          [boxes, scores, cls, probs] = [boxes, scores, cls, probs].map((a) => keep.map((i) => a[i]));
        }
      }
      if (this.mirrors) {
        const names = probs.map(argmax);
        const gone = await reflections(image, boxes, names,
          (idx, theta) => turnedOver(this, image, idx.map((i) => boxes[i]), theta), markSideways(boxes));
        mirrored = boxes.filter((_, i) => gone[i]).map((b) => [...b]);
        const keep = boxes.map((_, i) => i).filter((i) => !gone[i]);
        [boxes, scores, probs] = [boxes, scores, probs].map((a) => keep.map((i) => a[i]));
      }
    } else {   // single-stage detector: its class scores are the only opinion
      probs = cls.map((c) => { const row = new Float32Array(TILE_CLASSES.length); row[c] = 1; return row; });
    }
    const sideways = markSideways(boxes);
    const names = this.counts ? assignWithinCounts(probs) : Int32Array.from(probs, argmax);
    const tiles = readingOrder(boxes).map((i) => {
      const best = names[i];
      const row = probs[i];
      // np.argsort(-probs[i])[:4]: the four likeliest, ties in index order
      const order = Array.from(row.keys()).sort((a, b) => (row[b] - row[a]) || (a - b)).slice(0, 4);
      const top = order.filter((j) => j !== best).slice(0, 3);
      const s = scores[i];
      return {
        tile: TILE_CLASSES[best],
        box: [...boxes[i]],
        confidence: s * row[best],
        sideways: sideways[i],
        // det_scores[i] * probs[i, j] is a float32 product, then round(..., 4)
        alternatives: top.filter((j) => row[j] > 0.001)
          .map((j) => [TILE_CLASSES[j], Number(Math.fround(s * row[j]).toFixed(4))]).slice(0, 3),
      };
    });
    return { width: w, height: h, tiles, windows: used, reflections: mirrored, crowded: 0 };
  }
}
