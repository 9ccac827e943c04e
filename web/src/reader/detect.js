// The detector half of the reader: letterbox, YOLO decoding, NMS, boxes back to the photo, rows
// and reading order, sideways tiles, and the zoom windows. A port of vision/read/detector.py and
// vision/read/zoom.py, constant for constant, with numpy's dtypes kept where they decide a
// rounding: the model's output is float32 and decode_yolo's corners are float32 sums; from NMS
// on, boxes are float64 (JS numbers), as numpy casts them there.
//
// Boxes are arrays of [x1, y1, x2, y2]; scores plain numbers (float32 values); class ids ints.
// A detection result is {boxes, scores, cls}, three arrays of one length.

import { resize } from './resize.js';
import { crop } from './image.js';

export const MAX_BOXES = 300;          // detections.MAX_BOXES
export const LETTERBOX_PAD = 114;      // detector.LETTERBOX_PAD
export const ZOOM_AGAIN = 1;           // detector.ZOOM_AGAIN
export const SIDEWAYS_RATIO = 1.25;    // detector.SIDEWAYS_RATIO
// zoom.py
export const ZOOM_BELOW_PX = 24.0;
export const TARGET_TILE_PX = 44.0;
export const MIN_GAIN = 1.4;
export const MAX_WINDOWS = 8;
export const MARGIN_TILES = 2.0;
export const OVERLAP_TILES = 1.6;
export const BLIND_SIDE = 2.0;
export const EDGE_PX = 2.0;

const f32 = Math.fround;

// Python's round() on a float: halves to the even neighbour.
export function pyRound(x) {
  const f = Math.floor(x), d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

// np.median of numbers (the mean of the two middle ones for an even count)
export function median(values) {
  const s = Float64Array.from(values).sort();
  const n = s.length, m = n >> 1;
  return n % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// np.argsort(-scores, kind="stable"): best first, ties in index order
function bestFirst(scores) {
  return Array.from(scores.keys()).sort((a, b) => (scores[b] - scores[a]) || (a - b));
}

function take({ boxes, scores, cls }, idx) {
  return { boxes: idx.map((i) => boxes[i]), scores: idx.map((i) => scores[i]), cls: idx.map((i) => cls[i]) };
}

// detector.letterbox: the model input (1, 3, size, size) float32 RGB 0..1 and {scale, padX, padY}
export function letterbox(image, size) {
  const h = image.height, w = image.width;
  const r = Math.min(size / h, size / w);
  const nw = Math.max(1, pyRound(w * r)), nh = Math.max(1, pyRound(h * r));
  const dw = (size - nw) / 2, dh = (size - nh) / 2;
  const left = pyRound(dw - 0.1), top = pyRound(dh - 0.1);
  const resized = nw === w && nh === h ? image : resize(image, nw, nh, 'linear');
  const plane = size * size;
  const blob = new Float32Array(3 * plane);
  const pad = f32(LETTERBOX_PAD / 255);
  blob.fill(pad);
  const px = resized.bgr;
  for (let y = 0; y < nh; y++) {
    for (let x = 0; x < nw; x++) {
      const s = (y * nw + x) * 3, d = (top + y) * size + left + x;
      // canvas[..., ::-1]: channel 0 of the blob is R; uint8 / 255.0 rounds to float32
      blob[d] = px[s + 2] / 255;
      blob[plane + d] = px[s + 1] / 255;
      blob[2 * plane + d] = px[s] / 255;
    }
  }
  return { blob, lb: { scale: r, padX: left, padY: top } };
}

// detector.decode_yolo: output (1, 4 + nc, N) float32 as a flat array with its dims
export function decodeYolo(data, dims, conf) {
  if (dims.length !== 3 || dims[0] !== 1 || dims[1] < 5) {
    throw new Error(`expected YOLO output (1, 4+nc, N), got (${dims.join(', ')})`);
  }
  const nc = dims[1] - 4, n = dims[2];
  const thr = f32(conf);    // numpy 2 compares float32 scores with a Python float as float32
  const boxes = [], scores = [], cls = [];
  for (let i = 0; i < n; i++) {
    let best = 0, score = data[4 * n + i];
    for (let c = 1; c < nc; c++) {
      const v = data[(4 + c) * n + i];
      if (v > score) { score = v; best = c; }
    }
    if (!(score >= thr)) continue;
    const cx = data[i], cy = data[n + i], bw = data[2 * n + i], bh = data[3 * n + i];
    // float32 arithmetic: w / 2 is exact, each corner one float32 rounding
    boxes.push([f32(cx - bw / 2), f32(cy - bh / 2), f32(cx + bw / 2), f32(cy + bh / 2)]);
    scores.push(score);
    cls.push(best);
  }
  return { boxes, scores, cls };
}

// detector.decode_end2end: output (1, K, 6): x1 y1 x2 y2 score class
export function decodeEnd2end(data, dims, conf) {
  if (dims.length !== 3 || dims[0] !== 1 || dims[2] !== 6) {
    throw new Error(`expected end-to-end output (1, K, 6), got (${dims.join(', ')})`);
  }
  const thr = f32(conf);
  const boxes = [], scores = [], cls = [];
  for (let k = 0; k < dims[1]; k++) {
    const o = k * 6;
    if (!(data[o + 4] >= thr)) continue;
    boxes.push([data[o], data[o + 1], data[o + 2], data[o + 3]]);
    scores.push(data[o + 4]);
    cls.push(pyRound(data[o + 5]));    // numpy's round(): halves to even
  }
  return { boxes, scores, cls };
}

// detector.box_iou for one pair
export function boxIou(a, b) {
  const ix1 = Math.max(a[0], b[0]), iy1 = Math.max(a[1], b[1]);
  const ix2 = Math.min(a[2], b[2]), iy2 = Math.min(a[3], b[3]);
  const inter = Math.max(ix2 - ix1, 0) * Math.max(iy2 - iy1, 0);
  const area = (a[2] - a[0]) * (a[3] - a[1]);
  const areaB = (b[2] - b[0]) * (b[3] - b[1]);
  return inter / Math.max(area + areaB - inter, 1e-9);
}

// detector._best: the `most` best-scored detections, kept in their order
export function best(det, most = MAX_BOXES) {
  if (det.scores.length <= most) return det;
  const keep = bestFirst(det.scores).slice(0, most).sort((a, b) => a - b);
  return take(det, keep);
}

// detector.nms: kept indices, best score first; classIds null suppresses across classes
export function nms(boxes, scores, classIds = null, iou = 0.5) {
  let order = bestFirst(scores);
  const keep = [];
  while (order.length) {
    const i = order[0];
    keep.push(i);
    order = order.slice(1).filter((j) => !(boxIou(boxes[i], boxes[j]) > iou
                                           && (classIds === null || classIds[j] === classIds[i])));
  }
  return keep;
}

// detector.unletterbox_boxes
export function unletterboxBoxes(boxes, lb, width, height) {
  const clip = (v, hi) => Math.min(Math.max(v, 0), hi);
  return boxes.map(([x1, y1, x2, y2]) => [
    clip((x1 - lb.padX) / lb.scale, width), clip((y1 - lb.padY) / lb.scale, height),
    clip((x2 - lb.padX) / lb.scale, width), clip((y2 - lb.padY) / lb.scale, height)]);
}

// detector._rows: rows of box indices, a chain by centre y
export function rows(boxes) {
  if (boxes.length === 0) return [];
  const cy = boxes.map((b) => (b[1] + b[3]) / 2);
  const gap = 0.6 * median(boxes.map((b) => Math.max(b[3] - b[1], Math.min(b[2] - b[0], b[3] - b[1]))));
  const order = Array.from(cy.keys()).sort((a, b) => (cy[a] - cy[b]) || (a - b));
  const out = [];
  for (const i of order) {
    if (out.length && cy[i] - cy[out[out.length - 1].at(-1)] <= gap) out[out.length - 1].push(i);
    else out.push([i]);
  }
  return out;
}

// detector.reading_order: left to right within rows, rows top to bottom
export function readingOrder(boxes) {
  const cx = boxes.map((b) => (b[0] + b[2]) / 2);
  return rows(boxes).flatMap((row) => [...row].sort((a, b) => (cx[a] - cx[b]) || 0));
}

// detector.mark_sideways: booleans, a box wider than its row's typical aspect
export function markSideways(boxes, ratio = SIDEWAYS_RATIO) {
  const aspect = boxes.map((b) => (b[2] - b[0]) / Math.max(b[3] - b[1], 1e-9));
  const out = new Array(boxes.length).fill(false);
  for (const row of rows(boxes)) {
    const a = row.map((i) => aspect[i]);
    const limit = row.length >= 3 ? ratio * median(a) : 1.2;
    row.forEach((i, k) => { out[i] = a[k] > limit; });
  }
  return out;
}

// detector._flipped_back: boxes found in a mirrored photo, mapped back
export function flippedBack(boxes, axis, width, height) {
  return boxes.map(([x1, y1, x2, y2]) => (axis === 'x'
    ? [width - x2, y1, width - x1, y2]
    : [x1, height - y2, x2, height - y1]));
}

// zoom.tile_height
export function tileHeight(boxes) {
  if (boxes.length === 0) return 0.0;
  return median(boxes.map((b) => Math.max(b[2] - b[0], b[3] - b[1])));
}

// zoom.plan_windows
export function planWindows(boxes, width, height, imgsz) {
  const h = tileHeight(boxes);
  if (h <= 0 || width <= 0 || height <= 0) return [];
  const firstScale = imgsz / Math.max(width, height);
  if (h * firstScale >= ZOOM_BELOW_PX) return [];
  const margin = MARGIN_TILES * h;
  const minOf = (k) => Math.min(...boxes.map((b) => b[k]));
  const maxOf = (k) => Math.max(...boxes.map((b) => b[k]));
  const rx1 = Math.max(0.0, minOf(0) - margin), ry1 = Math.max(0.0, minOf(1) - margin);
  const rx2 = Math.min(width, maxOf(2) + margin), ry2 = Math.min(height, maxOf(3) + margin);
  const out = grid(rx1, ry1, rx2, ry2, imgsz * h / TARGET_TILE_PX, OVERLAP_TILES * h, width, height);
  const gain = Math.min(...out.map(([x1, y1, x2, y2]) => imgsz / Math.max(x2 - x1, y2 - y1))) / firstScale;
  if (gain < MIN_GAIN) return [];
  return out;
}

// zoom.blind_windows
export function blindWindows(width, height, imgsz) {
  const side = BLIND_SIDE * imgsz;
  if (Math.max(width, height) < 1.2 * side) return [];
  return grid(0.0, 0.0, width, height, side, 0.1 * side, width, height);
}

// zoom._grid
function grid(rx1, ry1, rx2, ry2, side, overlap, width, height) {
  let nx, ny;
  for (;;) {
    nx = count(rx2 - rx1, side, overlap);
    ny = count(ry2 - ry1, side, overlap);
    if (nx * ny <= MAX_WINDOWS) break;
    side *= 1.25;
  }
  const out = [];
  for (let y of starts(ry1, ry2, side, ny)) {
    for (let x of starts(rx1, rx2, side, nx)) {
      x = Math.min(Math.max(x, 0.0), Math.max(0.0, width - side));
      const yy = Math.min(Math.max(y, 0.0), Math.max(0.0, height - side));
      const x1 = Math.max(0, Math.floor(x)), y1 = Math.max(0, Math.floor(yy));
      const x2 = Math.min(width, Math.ceil(x + side)), y2 = Math.min(height, Math.ceil(yy + side));
      out.push([x1, y1, x2, y2]);
    }
  }
  return out;
}

// zoom._count
function count(extent, side, overlap) {
  if (extent <= side) return 1;
  return Math.ceil((extent - overlap) / (side - overlap));
}

// zoom._starts
function starts(lo, hi, side, n) {
  if (n === 1) return [lo + (hi - lo - side) / 2];
  const step = (hi - lo - side) / (n - 1);
  return Array.from({ length: n }, (_, k) => lo + k * step);
}

// zoom.cut_by_window: booleans
export function cutByWindow(boxes, [x1, y1, x2, y2], width, height) {
  return boxes.map((b) => (x1 > 0 && b[0] <= x1 + EDGE_PX) || (y1 > 0 && b[1] <= y1 + EDGE_PX)
    || (x2 < width && b[2] >= x2 - EDGE_PX) || (y2 < height && b[3] >= y2 - EDGE_PX));
}

// zoom.span
export function span(windows) {
  return [Math.min(...windows.map((w) => w[0])), Math.min(...windows.map((w) => w[1])),
    Math.max(...windows.map((w) => w[2])), Math.max(...windows.map((w) => w[3]))];
}

// zoom.within
export function within(inner, outer) {
  return inner[0] >= outer[0] && inner[1] >= outer[1] && inner[2] <= outer[2] && inner[3] <= outer[3];
}

// TileReader._detect_once: one detector pass over the whole of `image`. `reader` gives
// detector (an ort session), ort, imgsz, conf, iou, end2end.
export async function detectOnce(reader, image) {
  const { blob, lb } = letterbox(image, reader.imgsz);
  const input = new reader.ort.Tensor('float32', blob, [1, 3, reader.imgsz, reader.imgsz]);
  const outputs = await reader.detector.run({ [reader.detector.inputNames[0]]: input });
  const raw = outputs[reader.detector.outputNames[0]];
  const decode = reader.end2end ? decodeEnd2end : decodeYolo;
  const det = decode(raw.data, raw.dims, reader.conf);
  // one physical tile has one class, so a tile box and a back box on it compete
  const keep = nms(det.boxes, det.scores, null, reader.iou);
  const kept = take(det, keep);
  return { ...kept, boxes: unletterboxBoxes(kept.boxes, lb, image.width, image.height) };
}

// TileReader._detect_windows: one pass per window, boxes cut by an inner edge dropped, NMS
export async function detectWindows(reader, image, windows) {
  const all = { boxes: [], scores: [], cls: [] };
  for (const win of windows) {
    const [x1, y1, x2, y2] = win;
    const part = best(await detectOnce(reader, crop(image, x1, y1, x2, y2)));   // grain: no NMS of thousands
    const boxes = part.boxes.map((b) => [b[0] + x1, b[1] + y1, b[2] + x1, b[3] + y1]);
    const cut = cutByWindow(boxes, win, image.width, image.height);
    boxes.forEach((b, i) => {
      if (cut[i]) return;
      all.boxes.push(b); all.scores.push(part.scores[i]); all.cls.push(part.cls[i]);
    });
  }
  return take(all, nms(all.boxes, all.scores, null, reader.iou));
}

// TileReader._detect: {boxes, scores, cls, windows} (windows: [] for the first pass's boxes)
export async function detect(reader, image, hint = []) {
  const w = image.width, h = image.height;
  let seen = null;
  let kept = [];
  let det;
  if (hint.length && reader.zoom) {
    det = await detectWindows(reader, image, hint);
    if (det.boxes.length) { seen = span(hint); kept = hint.map((b) => [...b]); }
  }
  if (seen === null) {
    det = await detectOnce(reader, image);
    if (!reader.zoom) return { ...best(det), windows: [] };
    if (det.boxes.length === 0) {
      const coarse = blindWindows(w, h, reader.imgsz);
      if (coarse.length) det = await detectWindows(reader, image, coarse);
    }
  }
  for (let k = 0; k < 1 + ZOOM_AGAIN; k++) {
    const windows = planWindows(det.boxes, w, h, reader.imgsz);
    if (!windows.length || (seen !== null && within(span(windows), seen))) break;
    const found = await detectWindows(reader, image, windows);
    if (found.boxes.length === 0) break;      // a closer look that sees nothing is no better
    det = found;
    kept = windows;
    seen = seen === null ? span(windows) : span([seen, span(windows)]);
    if (det.boxes.length >= MAX_BOXES) break; // grain read as tiles (Detections.crowded)
  }
  return { ...best(det), windows: kept };
}
