// Cut detector boxes out of a photo into the crop classifier's input tensor, in the browser.
// Port of vision/read/tile_crops.py, constant for constant: the classifier must see here exactly
// what it sees in `tilescope score` (and what it was trained on).
//
// A photo is `{width, height, bgr: Uint8Array}` (row-major H*W*3, BGR, like OpenCV's array).
// A batch of crops is `{n, size, data: Float32Array}`: (n, 3, size, size) float32 in 0..1, BGR
// channel order, the ONNX classifier's input.

import { resize } from './resize.js';

export const CROP_SIZE = 48;     // pixels, side of the square classifier input
export const PAD_VALUE = 127;    // mid-grey fill around the letterboxed crop
export const CONTEXT = 0.04;     // share of the box size added on each side (detector boxes are tight)

// Python's round(): halves go to the even neighbour (Math.round sends them up).
export function pyRound(x) {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

// v / 255 as float32, for each byte: numpy's `uint8 -> float32 / 255.0` (float32 result).
const BYTE_TO_UNIT = Float32Array.from({ length: 256 }, (_, v) => v / 255);

// A rectangle of `image` ([xa, xb) x [ya, yb)) as a photo of its own: numpy's image[ya:yb, xa:xb].
export function cut(image, xa, ya, xb, yb) {
  const w = xb - xa, h = yb - ya;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const src = ((ya + y) * image.width + xa) * 3;
    out.set(image.bgr.subarray(src, src + w * 3), y * w * 3);
  }
  return { width: w, height: h, bgr: out };
}

// Mirrors tile_crops.fit_square: scale a crop to fit a size x size square, centred, grey pad.
export function fitSquare(crop, size = CROP_SIZE) {
  const h = crop.height, w = crop.width;
  if (h < 1 || w < 1) throw new Error(`empty crop (${w}x${h} px)`);
  const scale = size / Math.max(h, w);
  const nh = Math.max(1, pyRound(h * scale)), nw = Math.max(1, pyRound(w * scale));
  // shrinking averages pixels (INTER_AREA), enlarging interpolates (INTER_LINEAR), as in Python
  const resized = resize(crop, nw, nh, scale < 1 ? 'area' : 'linear');
  const out = new Uint8Array(size * size * 3).fill(PAD_VALUE);
  const y0 = Math.floor((size - nh) / 2), x0 = Math.floor((size - nw) / 2);
  for (let y = 0; y < nh; y++) {
    out.set(resized.bgr.subarray(y * nw * 3, (y + 1) * nw * 3), ((y0 + y) * size + x0) * 3);
  }
  return { width: size, height: size, bgr: out };
}

// Mirrors tile_crops.to_tensor: (N, S, S, 3) uint8 BGR squares -> (N, 3, S, S) float32 0..1.
export function toTensor(squares, size = CROP_SIZE) {
  const n = squares.length, plane = size * size;
  const data = new Float32Array(n * 3 * plane);
  for (let i = 0; i < n; i++) {
    const src = squares[i].bgr, base = i * 3 * plane;
    for (let p = 0; p < plane; p++) {
      data[base + p] = BYTE_TO_UNIT[src[p * 3]];
      data[base + plane + p] = BYTE_TO_UNIT[src[p * 3 + 1]];
      data[base + 2 * plane + p] = BYTE_TO_UNIT[src[p * 3 + 2]];
    }
  }
  return { n, size, data };
}

const clip = (v, lo, hi) => Math.min(Math.max(v, lo), hi);   // np.clip of one number

// Mirrors tile_crops.crop_boxes: each box (x1, y1, x2, y2 in image pixels, an array of 4-number
// arrays or a flat array) widened by `context` per side, clipped to the image, fit to a square.
export function cropBoxes(image, boxes, size = CROP_SIZE, context = CONTEXT) {
  const list = asBoxList(boxes);
  const squares = list.map(([x1, y1, x2, y2]) => {
    const mx = (x2 - x1) * context, my = (y2 - y1) * context;
    const xa = clip(Math.floor(x1 - mx), 0, image.width - 1);
    const ya = clip(Math.floor(y1 - my), 0, image.height - 1);
    const xb = clip(Math.ceil(x2 + mx), xa + 1, image.width);
    const yb = clip(Math.ceil(y2 + my), ya + 1, image.height);
    return fitSquare(cut(image, xa, ya, xb, yb), size);
  });
  return toTensor(squares, size);
}

// Boxes as [[x1, y1, x2, y2], ...] whether given so or as one flat array (Float64Array, ...).
export function asBoxList(boxes) {
  if (boxes.length && typeof boxes[0] === 'number') {
    const out = [];
    for (let i = 0; i < boxes.length; i += 4) out.push([boxes[i], boxes[i + 1], boxes[i + 2], boxes[i + 3]]);
    return out;
  }
  return Array.from(boxes, (b) => Array.from(b));
}

// ---- views of a batch (numpy slicing in the Python) ----------------------------------------

// crops[idx]: the crops at these indices, in this order.
export function pick(crops, idx) {
  const per = 3 * crops.size * crops.size;
  const data = new Float32Array(idx.length * per);
  idx.forEach((k, i) => data.set(crops.data.subarray(k * per, (k + 1) * per), i * per));
  return { n: idx.length, size: crops.size, data };
}

// np.concatenate of batches of one crop size.
export function concat(batches) {
  const n = batches.reduce((s, b) => s + b.n, 0);
  const data = new Float32Array(batches.reduce((s, b) => s + b.data.length, 0));
  let at = 0;
  for (const b of batches) { data.set(b.data, at); at += b.data.length; }
  return { n, size: batches[0].size, data };
}

// crops[:, :, ::-1, ::-1]: each crop turned half round (the 180-degree view).
export function halfTurn(crops) {
  const s = crops.size, plane = s * s, data = new Float32Array(crops.data.length);
  for (let c = 0; c < crops.n * 3; c++) {
    const base = c * plane;
    for (let p = 0; p < plane; p++) data[base + p] = crops.data[base + plane - 1 - p];
  }
  return { n: crops.n, size: s, data };
}

// np.rot90(crops, k, axes=(2, 3)) for k = 1 or 3: a quarter turn anticlockwise (k=1:
// out[i][j] = in[j][S-1-i]) or clockwise (k=3: out[i][j] = in[S-1-j][i]).
export function quarterTurn(crops, k) {
  if (k !== 1 && k !== 3) throw new Error(`quarter turn k must be 1 or 3, not ${k}`);
  const s = crops.size, plane = s * s, data = new Float32Array(crops.data.length);
  for (let c = 0; c < crops.n * 3; c++) {
    const base = c * plane;
    for (let i = 0; i < s; i++) {
      for (let j = 0; j < s; j++) {
        data[base + i * s + j] = k === 1 ? crops.data[base + j * s + (s - 1 - i)]
          : crops.data[base + (s - 1 - j) * s + i];
      }
    }
  }
  return { n: crops.n, size: s, data };
}

// ---- contrast views ------------------------------------------------------------------------

// Largest-eigenvalue eigenvector of a symmetric 3x3 matrix (cyclic Jacobi; np.linalg.eigh's
// last column up to sign, which contrastCrops fixes by the median anyway).
export function topEigenvector3(a) {
  const m = [a[0].slice(), a[1].slice(), a[2].slice()];
  const v = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(m[0][1]) + Math.abs(m[0][2]) + Math.abs(m[1][2]);
    if (off < 1e-30) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]]) {
      if (Math.abs(m[p][q]) < 1e-300) continue;
      const theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1), s = t * c;
      for (let k = 0; k < 3; k++) {        // m = J^T m J
        const mkp = m[k][p], mkq = m[k][q];
        m[k][p] = c * mkp - s * mkq;
        m[k][q] = s * mkp + c * mkq;
      }
      for (let k = 0; k < 3; k++) {
        const mpk = m[p][k], mqk = m[q][k];
        m[p][k] = c * mpk - s * mqk;
        m[q][k] = s * mpk + c * mqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
      }
    }
  }
  let best = 0;
  for (let k = 1; k < 3; k++) if (m[k][k] > m[best][best]) best = k;
  return [v[0][best], v[1][best], v[2][best]];
}

// np.percentile(x, q) of sorted values, method "linear" with numpy's _lerp (the far end's
// formula from t >= 0.5 on, as numpy computes it).
export function percentileSorted(sorted, q) {
  const n = sorted.length, quantile = q / 100;
  const virtual = n * quantile + (1 + quantile * (1 - 1 - 1)) - 1;
  const prev = Math.min(Math.max(Math.floor(virtual), 0), n - 1);
  const next = Math.min(prev + 1, n - 1);
  const t = virtual - Math.floor(virtual);
  const a = sorted[prev], b = sorted[next], diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// np.median of sorted values.
export function medianSorted(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Mirrors tile_crops.contrast_crops: each crop in grey along its own main colour axis (first
// principal component), signed so the commonest colour (the tile body) is light, stretched to
// 0..1 between its 2nd and 98th percentiles; the grey repeated in the three channels.
export function contrastCrops(crops) {
  const s = crops.size, plane = s * s, data = new Float32Array(crops.data.length);
  const proj = new Float32Array(plane);
  for (let i = 0; i < crops.n; i++) {
    const base = i * 3 * plane;
    const ch = [0, 1, 2].map((c) => crops.data.subarray(base + c * plane, base + (c + 1) * plane));
    const mean = ch.map((x) => { let t = 0; for (let p = 0; p < plane; p++) t += x[p]; return Math.fround(t / plane); });
    const cov = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    for (let p = 0; p < plane; p++) {
      const d0 = Math.fround(ch[0][p] - mean[0]), d1 = Math.fround(ch[1][p] - mean[1]), d2 = Math.fround(ch[2][p] - mean[2]);
      cov[0][0] += d0 * d0; cov[0][1] += d0 * d1; cov[0][2] += d0 * d2;
      cov[1][1] += d1 * d1; cov[1][2] += d1 * d2; cov[2][2] += d2 * d2;
    }
    for (const [r, c] of [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 2]]) cov[r][c] /= plane;
    cov[1][0] = cov[0][1]; cov[2][0] = cov[0][2]; cov[2][1] = cov[1][2];
    const axis = topEigenvector3(cov);
    for (let p = 0; p < plane; p++) {
      proj[p] = (ch[0][p] - mean[0]) * axis[0] + (ch[1][p] - mean[1]) * axis[1] + (ch[2][p] - mean[2]) * axis[2];
    }
    const sorted = Float32Array.from(proj).sort();
    const sign = medianSorted(sorted) >= 0 ? 1 : -1;
    // flipping the sign mirrors the order: the percentiles of -x are minus those of x mirrored
    const signed = sign > 0 ? sorted : Float32Array.from(sorted, (v) => -v).reverse();
    const lo = percentileSorted(signed, 2), hi = percentileSorted(signed, 98);
    const span = Math.max(hi - lo, 1e-3);
    for (let p = 0; p < plane; p++) {
      const g = clip((sign * proj[p] - lo) / span, 0, 1);
      data[base + p] = g; data[base + plane + p] = g; data[base + 2 * plane + p] = g;
    }
  }
  return { n: crops.n, size: s, data };
}

// ---- turned over ---------------------------------------------------------------------------

// Mirrors tile_crops.turned_over: each crop mirrored in the line through its centre at `theta`
// radians (image coordinates, y down): 0 turns a crop over top to bottom, pi/2 left to right.
// What falls outside the square is mid-grey. cv2.warpAffine INTER_LINEAR, border constant, as
// OpenCV 5 computes it: the matrix (float32 in the Python) inverted in double, each output
// pixel sampled bilinearly at float coordinates, each of the four neighbours outside the crop
// taken as the border value.
export function turnedOver(crops, theta) {
  const size = crops.size, plane = size * size, n = crops.n;
  const data = new Float32Array(crops.data.length);
  if (n === 0) return { n, size, data };
  const f = Math.fround;
  const c2 = Math.cos(2 * theta), s2 = Math.sin(2 * theta), mid = (size - 1) / 2;
  const m = [f(c2), f(s2), f(mid - c2 * mid - s2 * mid), f(s2), f(-c2), f(mid - s2 * mid + c2 * mid)];
  // cv::warpAffine without WARP_INVERSE_MAP inverts the matrix (imgwarp.cpp)
  let det = m[0] * m[4] - m[1] * m[3];
  det = det !== 0 ? 1 / det : 0;
  const a11 = m[4] * det, a22 = m[0] * det;
  const i0 = a11, i1 = m[1] * -det, i3 = m[3] * -det, i4 = a22;
  const i2 = -i0 * m[2] - i1 * m[5], i5 = -i3 * m[2] - i4 * m[5];
  const border = f(PAD_VALUE / 255.0);
  for (let k = 0; k < n; k++) {
    for (let c = 0; c < 3; c++) {
      const src = crops.data.subarray((k * 3 + c) * plane, (k * 3 + c + 1) * plane);
      const dst = (k * 3 + c) * plane;
      const at = (yy, xx) => (yy >= 0 && yy < size && xx >= 0 && xx < size ? src[yy * size + xx] : border);
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          const sx = i0 * x + i1 * y + i2, sy = i3 * x + i4 * y + i5;
          const x0 = Math.floor(sx), y0 = Math.floor(sy);
          const ax = sx - x0, ay = sy - y0;
          const top = at(y0, x0) * (1 - ax) + at(y0, x0 + 1) * ax;
          const bottom = at(y0 + 1, x0) * (1 - ax) + at(y0 + 1, x0 + 1) * ax;
          data[dst + y * size + x] = top * (1 - ay) + bottom * ay;
        }
      }
    }
  }
  return { n, size, data };
}
