// Tiles mirrored in a glass table top: boxes that are reflections, not tiles.
// Port of vision/read/reflections.py (with the helpers of vision/read/rows.py it uses), constant
// for constant; the OpenCV calls it makes (cvtColor BGR2GRAY, GaussianBlur and remap on float32)
// are written out as OpenCV 5 computes them. Why each rule and constant: see the Python.
//
// Boxes: an array of [x1, y1, x2, y2] (image pixels); the photo: {width, height, bgr}.

import { TILE_CLASSES } from './classes.js';
import { turnedOver } from './classify.js';
import { pyRound } from './crops.js';

export const DIM_RATIO = 0.7;       // a reflection's ink contrast is at most this share of its tile's
export const DETAIL_SIGMA = 2.0;    // pixels: shading broader than this is not ink
export const HANG = [-0.35, 0.4];   // its near edge lies within these shares of the tile's height of the foot
export const MIRROR_NCC = 0.3;      // fine detail matching the tile's mirrored at least this well ...
export const MIRROR_DIM = 0.3;      // ... in a box at most this crisp is a reflection without the classifier
export const TURNED_ALONG = 1.2;    // a box this much longer along the row than its tile is a turned tile
const BACK = TILE_CLASSES.indexOf('back');
const BLANK = [BACK, TILE_CLASSES.indexOf('5z')];
const f32 = Math.fround;

// np.median of numbers.
function median(values) {
  const s = Float64Array.from(values).sort(), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// ---- rows.py -------------------------------------------------------------------------------

// Mirrors rows.nearest_vectors: the vector from each point to its nearest other point.
export function nearestVectors(centers) {
  const out = [];
  centers.forEach(([x, y], i) => {
    let best = Infinity, vec = null;
    centers.forEach(([x2, y2], j) => {
      if (i !== j) {
        const d = (x2 - x) ** 2 + (y2 - y) ** 2;
        if (d < best) { best = d; vec = [x2 - x, y2 - y]; }
      }
    });
    if (vec !== null) out.push(vec);
  });
  return out;
}

// Mirrors rows.row_direction (on boxes: a Detection's centre is its box's): the dominant row
// direction in radians, (-pi/2, pi/2], the doubled-angle mean of nearest-neighbour vectors.
export function rowDirection(boxes) {
  const vecs = nearestVectors(boxes.map(([x1, y1, x2, y2]) => [(x1 + x2) / 2.0, (y1 + y2) / 2.0]));
  if (!vecs.length) return 0.0;
  const doubled = vecs.map(([vx, vy]) => 2.0 * Math.atan2(vy, vx));
  let keep = doubled, theta = 0.0;
  for (let it = 0; it < 3; it++) {
    // re-estimate from the vectors near the current estimate (links between rows are outliers)
    let sx = 0, sy = 0;
    for (const a of keep) { sx += Math.cos(a); sy += Math.sin(a); }
    theta = 0.5 * Math.atan2(sy, sx);
    keep = doubled.filter((a) => Math.cos(a - 2.0 * theta) > 0.5);
    if (!keep.length) keep = doubled;
  }
  if (theta <= -Math.PI / 2) theta += Math.PI;
  return theta;
}

// ---- OpenCV, as reflections.py calls it -----------------------------------------------------

// cv2.cvtColor(BGR2GRAY) of uint8, as float32: OpenCV 5's fixed point (15 bits; checked
// against cv2 on 90,000 random pixels), then .astype(np.float32).
export function grey(image) {
  const n = image.width * image.height, out = new Float32Array(n), bgr = image.bgr;
  for (let p = 0; p < n; p++) {
    out[p] = (bgr[p * 3] * 3735 + bgr[p * 3 + 1] * 19235 + bgr[p * 3 + 2] * 9798 + (1 << 14)) >> 15;
  }
  return out;
}

// OpenCV's BORDER_REFLECT_101 index (borderInterpolate), reflecting as often as needed.
function reflect101(p, len) {
  if (len === 1) return 0;
  while (p < 0 || p >= len) p = p < 0 ? -p : 2 * (len - 1) - p;
  return p;
}

// cv::getGaussianKernel(ksize, sigma, CV_32F): sampled, normalised, kept as float32.
function gaussianKernel(n, sigma) {
  const scale2X = -0.5 / (sigma * sigma), k = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) { const x = i - (n - 1) * 0.5; k[i] = Math.exp(scale2X * x * x); sum += k[i]; }
  return Float32Array.from(k, (v) => v * (1 / sum));
}

// cv2.GaussianBlur(src, (0, 0), sigma) of a float32 w x h image: ksize round(sigma*8+1)|1
// (float images), separable, rows then columns, border reflect-101.
export function gaussianBlur(src, w, h, sigma) {
  const n = pyRound(sigma * 8 + 1) | 1, r = (n - 1) / 2, k = gaussianKernel(n, sigma);
  const tmp = new Float32Array(w * h), out = new Float32Array(w * h);
  const xs = new Int32Array(w + 2 * r), ys = new Int32Array(h + 2 * r);
  for (let i = 0; i < xs.length; i++) xs[i] = reflect101(i - r, w);
  for (let i = 0; i < ys.length; i++) ys[i] = reflect101(i - r, h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let t = 0; t < n; t++) s += k[t] * src[row + xs[x + t]];
      tmp[row + x] = s;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let t = 0; t < n; t++) s += k[t] * tmp[ys[y + t] * w + x];
      out[y * w + x] = s;
    }
  }
  return out;
}

// A w x h window of a float32 image (numpy's image[ya:yb, xa:xb], copied).
function window(src, width, xa, ya, xb, yb) {
  const w = xb - xa, out = new Float32Array(w * (yb - ya));
  for (let y = ya; y < yb; y++) out.set(src.subarray(y * width + xa, y * width + xb), (y - ya) * w);
  return out;
}

// ---- reflections.py ------------------------------------------------------------------------

// Mirrors reflections.ink_contrast: standard deviation of the fine detail inside the middle
// 80% of `box` in the grey photo (w x h float32).
export function inkContrast(g, w, h, box) {
  const [x1, y1, x2, y2] = box;
  const mx = 0.1 * (x2 - x1), my = 0.1 * (y2 - y1);
  const xa = Math.trunc(Math.max(x1 + mx, 0)), ya = Math.trunc(Math.max(y1 + my, 0));
  const xb = Math.trunc(Math.min(x2 - mx, w)), yb = Math.trunc(Math.min(y2 - my, h));
  if (xb - xa < 3 || yb - ya < 3) return 0.0;
  const pw = xb - xa, ph = yb - ya;
  const patch = window(g, w, xa, ya, xb, yb);
  const blur = gaussianBlur(patch, pw, ph, DETAIL_SIGMA);
  const d = Float32Array.from(patch, (v, i) => v - blur[i]);
  let mean = 0;
  for (const v of d) mean += v;
  mean /= d.length;
  let varSum = 0;
  for (const v of d) varSum += (v - mean) * (v - mean);
  return f32(Math.sqrt(varSum / d.length));
}

// Mirrors reflections._geometry: {theta, width, height, along, across} or null for fewer
// than two boxes or no neighbours along a row.
export function geometry(boxes) {
  if (boxes.length < 2) return null;
  const centres = boxes.map(([x1, y1, x2, y2]) => [(x1 + x2) / 2, (y1 + y2) / 2]);
  const theta = rowDirection(boxes);
  const c = Math.abs(Math.cos(theta)), s = Math.abs(Math.sin(theta));
  const links = nearestVectors(centres)
    .filter(([vx, vy]) => Math.abs(vx * Math.cos(theta) + vy * Math.sin(theta)) > 0.8 * Math.hypot(vx, vy))
    .map(([vx, vy]) => Math.hypot(vx, vy));
  if (!links.length) return null;
  const width = median(links);
  // a w x h box around a tile `width` along and `height` across a row at theta
  const height = boxes.map(([x1, y1, x2, y2]) => s * (x2 - x1) + c * (y2 - y1) - 2 * width * s * c);
  const along = centres.map(([x, y]) => x * Math.cos(theta) + y * Math.sin(theta));
  const across = centres.map(([x, y]) => x * -Math.sin(theta) + y * Math.cos(theta));
  return { theta, width, height, along, across };
}

// Mirrors reflections.hanging_pairs: {pairs: [[tile, below], ...], theta}.
export function hangingPairs(boxes) {
  const geo = geometry(boxes);
  if (geo === null) return { pairs: [], theta: boxes.length < 2 ? 0.0 : rowDirection(boxes) };
  const { theta, width, height, along, across } = geo;
  const pairs = [];
  for (let t = 0; t < boxes.length; t++) {
    if (height[t] <= 0.3 * width) continue;
    for (let j = 0; j < boxes.length; j++) {
      if (j === t) continue;
      const near = Math.abs(along[j] - along[t]) < width / 2;
      const gap = (Math.abs(across[j] - across[t]) - (height[j] + height[t]) / 2) / height[t];
      if (near && gap >= HANG[0] && gap <= HANG[1] && height[j] <= 1.3 * height[t] && height[j] > 0) pairs.push([t, j]);
    }
  }
  return { pairs, theta };
}

// cv2.GaussianBlur of the whole w x h image `get(x, y)`, but only its values inside `rect`
// [x0, y0, x1, y1): the same sums in the same order as gaussianBlur (rows, then columns, the
// border reflected at the image's own edges), without blurring a whole 12-megapixel photo.
function blurInside(get, w, h, sigma, [x0, y0, x1, y1]) {
  const n = pyRound(sigma * 8 + 1) | 1, r = (n - 1) / 2, k = gaussianKernel(n, sigma);
  const rw = x1 - x0, rh = y1 - y0;
  const xs = new Int32Array(rw + 2 * r);
  for (let i = 0; i < xs.length; i++) xs[i] = reflect101(x0 + i - r, w);
  const rowsNeeded = new Map();     // image row -> its row pass over [x0, x1)
  const rowPass = (y) => {
    let out = rowsNeeded.get(y);
    if (out) return out;
    out = new Float32Array(rw);
    for (let x = 0; x < rw; x++) {
      let s = 0;
      for (let t = 0; t < n; t++) s += k[t] * get(xs[x + t], y);
      out[x] = s;
    }
    rowsNeeded.set(y, out);
    return out;
  };
  const out = new Float32Array(rw * rh);
  for (let y = 0; y < rh; y++) {
    const rows = [];
    for (let t = 0; t < n; t++) rows.push(rowPass(reflect101(y0 + y - r + t, h)));
    for (let x = 0; x < rw; x++) {
      let s = 0;
      for (let t = 0; t < n; t++) s += k[t] * rows[t][x];
      out[y * rw + x] = s;
    }
  }
  return out;
}

// The normalised fine detail of the grey photo, detail / sqrt(blur(detail^2) + 4) with
// detail = grey - blur(grey), inside `rect` only (what mirror_likeness samples): {rect, values}.
function normalisedDetail(g, w, h, scale, rect) {
  const s1 = DETAIL_SIGMA * scale, s2 = 6 * scale;
  const r2 = ((pyRound(s2 * 8 + 1) | 1) - 1) / 2;
  // the detail is needed as far as the second blur reaches (reflected at the image's edges)
  const outer = [Math.max(0, rect[0] - r2), Math.max(0, rect[1] - r2), Math.min(w, rect[2] + r2), Math.min(h, rect[3] + r2)];
  const ow = outer[2] - outer[0];
  const blur = blurInside((x, y) => g[y * w + x], w, h, s1, outer);
  const sq = new Float32Array(blur.length);
  for (let y = outer[1]; y < outer[3]; y++) {
    for (let x = outer[0]; x < outer[2]; x++) {
      const i = (y - outer[1]) * ow + (x - outer[0]);
      const d = f32(g[y * w + x] - blur[i]);
      sq[i] = d * d;
      blur[i] = d;                 // blur now holds the detail
    }
  }
  const at = (x, y) => {
    if (x < outer[0] || x >= outer[2] || y < outer[1] || y >= outer[3]) throw new Error('normalisedDetail: outside its region');
    return (y - outer[1]) * ow + (x - outer[0]);
  };
  const local = blurInside((x, y) => sq[at(x, y)], w, h, s2, rect);
  const rw = rect[2] - rect[0], values = new Float32Array(local.length);
  for (let y = rect[1]; y < rect[3]; y++) {
    for (let x = rect[0]; x < rect[2]; x++) {
      const i = (y - rect[1]) * rw + (x - rect[0]);
      values[i] = blur[at(x, y)] / f32(Math.sqrt(f32(local[i] + 4.0)));
    }
  }
  return { rect, values };
}

// Mirrors reflections.mirror_likeness: the best normalised cross-correlation of the fine
// detail inside box `below` with that detail mirrored across the row in the line between it
// and box `tile` (moved up to a tenth of the tile's height either way). The photo's detail is
// made only where it is sampled: the box and its mirror images.
export function mirrorLikeness(g, w, h, boxes, tile, below) {
  const geo = geometry(boxes);
  if (geo === null) return 0.0;
  const { theta, height, across } = geo;
  const scale = Math.max(1.0, median(boxes.map((b) => b[3] - b[1])) / 40);
  const n0 = -Math.sin(theta), n1 = Math.cos(theta);
  const side = across[below] > across[tile] ? 1.0 : -1.0;
  const line = ((across[tile] + side * height[tile] / 2) + (across[below] - side * height[below] / 2)) / 2;
  const [x1, y1, x2, y2] = boxes[below];
  const mx = 0.1 * (x2 - x1), my = 0.1 * (y2 - y1);
  const xa = Math.trunc(Math.max(x1 + mx, 0)), ya = Math.trunc(Math.max(y1 + my, 0));
  const xb = Math.trunc(Math.min(x2 - mx, w)), yb = Math.trunc(Math.min(y2 - my, h));
  if (xb - xa < 4 || yb - ya < 4) return 0.0;
  const reach = 0.1 * height[tile];     // half-pixel steps (at most 41)
  const step = Math.max(0.5, (2 * reach) / 40), start = -reach, stop = reach + 1e-6;
  const steps = Math.max(0, Math.ceil((stop - start) / step));   // np.arange's length
  const mirror = (gx, gy, shift) => {
    const k = 2 * ((gx * n0 + gy * n1) - (line + shift));
    return [f32(gx - k * n0), f32(gy - k * n1)];
  };
  // where the detail is sampled: the patch and its mirror images (an affine map of it, so its
  // corners at the first and last shift bound them), a pixel more for the bilinear neighbours
  let rx0 = xa, ry0 = ya, rx1 = xb, ry1 = yb;
  for (const shift of [start, start + (steps - 1) * step]) {
    for (const [cx, cy] of [[xa, ya], [xb - 1, ya], [xa, yb - 1], [xb - 1, yb - 1]]) {
      const [sx, sy] = mirror(cx, cy, shift);
      rx0 = Math.min(rx0, Math.floor(sx) - 1); ry0 = Math.min(ry0, Math.floor(sy) - 1);
      rx1 = Math.max(rx1, Math.floor(sx) + 3); ry1 = Math.max(ry1, Math.floor(sy) + 3);
    }
  }
  const rect = [Math.max(0, rx0), Math.max(0, ry0), Math.min(w, rx1), Math.min(h, ry1)];
  const { values } = normalisedDetail(g, w, h, scale, rect);
  const rw = rect[2] - rect[0];
  const detailAt = (py, px) => {
    if (px < 0 || px >= w || py < 0 || py >= h) return 0;      // border constant 0
    if (px < rect[0] || px >= rect[2] || py < rect[1] || py >= rect[3]) throw new Error('mirrorLikeness: sample outside its region');
    return values[(py - rect[1]) * rw + (px - rect[0])];
  };
  const pw = xb - xa, ph = yb - ya, count = pw * ph;
  const patch = new Float32Array(count);
  for (let yy = 0; yy < ph; yy++) for (let xx = 0; xx < pw; xx++) patch[yy * pw + xx] = detailAt(ya + yy, xa + xx);
  let pmean = 0;
  for (const v of patch) pmean += v;
  pmean = f32(pmean / count);
  for (let i = 0; i < count; i++) patch[i] = patch[i] - pmean;
  let pp = 0;
  for (const v of patch) pp += v * v;
  pp = f32(pp);
  let best = -1.0;
  const mirrored = new Float32Array(count);
  for (let si = 0; si < steps; si++) {
    const shift = start + si * step;
    // cv2.remap INTER_LINEAR at float32 coordinates, border constant 0 (per neighbour)
    for (let yy = 0; yy < ph; yy++) {
      for (let xx = 0; xx < pw; xx++) {
        const [sx, sy] = mirror(xa + xx, ya + yy, shift);
        const x0 = Math.floor(sx), y0 = Math.floor(sy), ax = sx - x0, ay = sy - y0;
        mirrored[yy * pw + xx] = (detailAt(y0, x0) * (1 - ax) + detailAt(y0, x0 + 1) * ax) * (1 - ay)
          + (detailAt(y0 + 1, x0) * (1 - ax) + detailAt(y0 + 1, x0 + 1) * ax) * ay;
      }
    }
    let mmean = 0;
    for (const v of mirrored) mmean += v;
    mmean = f32(mmean / count);
    let mm = 0, pm = 0;
    for (let i = 0; i < count; i++) { const m = f32(mirrored[i] - mmean); mm += m * m; pm += patch[i] * m; }
    const norm = Math.sqrt(pp * f32(mm));
    best = Math.max(best, f32(pm) / (norm + 1e-6));
  }
  return best;
}

// Mirrors reflections.reflections: which boxes are a tile's mirror image in the table top
// (array of booleans). `names`: the class index each box is read as; `sideways`: booleans or
// null; `nameTurnedOver(idx, theta)`: (async) the class index of each box idx read turned over
// across a row at theta (TileReader._turned_over).
export async function reflections(image, boxes, names, nameTurnedOver, sideways = null) {
  boxes = boxes.map((b) => Array.from(b));
  const out = new Array(boxes.length).fill(false);
  let { pairs, theta } = hangingPairs(boxes);
  if (sideways !== null) {
    const c = Math.abs(Math.cos(theta)), s = Math.abs(Math.sin(theta));
    const along = boxes.map(([x1, y1, x2, y2]) => c * (x2 - x1) + s * (y2 - y1));
    pairs = pairs.filter(([t, j]) => !sideways[t] && !(sideways[j] && along[j] > TURNED_ALONG * along[t]));
  }
  if (!pairs.length) return out;
  const w = image.width, h = image.height, g = grey(image);
  const contrast = boxes.map((b) => inkContrast(g, w, h, b));
  const dim = pairs.filter(([t, j]) => contrast[j] <= DIM_RATIO * contrast[t] && !BLANK.includes(Number(names[t])));
  if (!dim.length) return out;
  const cand = [...new Set(dim.map(([, j]) => j))].sort((a, b) => a - b);
  const got = await nameTurnedOver(cand, theta);
  const turned = new Map(cand.map((j, i) => [j, Number(got[i])]));
  // the crisper box first (a stable sort): a reflection's own faint mirror image is no tile's
  const order = dim.map((p, i) => [p, i]).sort((a, b) => (contrast[b[0][0]] - contrast[a[0][0]]) || (a[1] - b[1]));
  for (const [[t, j]] of order) {
    if (out[t] || out[j]) continue;
    if (turned.get(j) === Number(names[t]) || (contrast[j] <= MIRROR_DIM * contrast[t]
      && mirrorLikeness(g, w, h, boxes, t, j) > MIRROR_NCC)) {
      out[j] = true;
    }
  }
  return out;
}

// What TileReader._read does with reflections: `reflections` with TileReader._turned_over
// (classify.js turnedOver) as its callback. Returns a Uint8Array, 1 for a reflection.
export async function reflectionsOf(reader, image, boxes, classIds, sideways) {
  const list = Array.from(boxes, (b) => Array.from(b));
  const gone = await reflections(image, list, classIds,
    (idx, theta) => turnedOver(reader, image, idx.map((i) => list[i]), theta), sideways);
  return Uint8Array.from(gone, Number);
}
