// The photo's colour measures, in the browser, as vision.photo.photo_warnings.PhotoColour takes
// them of an array (numpy + OpenCV there): the `no_colour` warning asks whether a red five can
// be told from a plain one. The worker hands this object to the Python as the photo's
// `pixels` (vision.offline.reader.BrowserPhoto), which calls it synchronously.
//
// Same constants, same steps: a coarse look for the share of coloured pixels; the hand's area
// brought down to TINT_SIZE px with OpenCV's INTER_AREA weights for the share of pixels whose
// chroma is off their grey level's mean. Checked against PhotoColour on the sample photos
// (web/test/colour_vs_python.mjs).

const COLOUR_STEP = 24;
const MAX_COLOUR_GAIN = 8.0;
const TINT_SIZE = 96;
const TINT_STEP = 16.0;

const f32 = Math.fround;

// numpy.percentile's default (linear between the two nearest ranks)
function percentile(values, q) {
  const sorted = Float64Array.from(values).sort();
  const at = (sorted.length - 1) * q / 100;
  const lo = Math.floor(at), hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

// cv2.resize(..., fx=f, fy=f, interpolation=INTER_AREA) of a uint8 BGR area, f < 1: each output
// pixel the mean of the source pixels it covers, edge pixels by the part covered, rounded
// (OpenCV's computeResizeAreaTab weights; cvRound is round-half-to-even)
function areaTable(src, dst, scale) {
  const tab = [];
  for (let dx = 0; dx < dst; dx++) {
    const fsx1 = dx * scale, fsx2 = fsx1 + scale;
    const cell = Math.min(scale, src - fsx1);
    let sx1 = Math.ceil(fsx1), sx2 = Math.floor(fsx2);
    sx2 = Math.min(sx2, src - 1);
    sx1 = Math.min(sx1, sx2);
    const w = [];
    if (sx1 - fsx1 > 1e-3) w.push([sx1 - 1, (sx1 - fsx1) / cell]);
    for (let sx = sx1; sx < sx2; sx++) w.push([sx, 1 / cell]);
    if (fsx2 - sx2 > 1e-3) w.push([sx2, Math.min(Math.min(fsx2 - sx2, 1), cell) / cell]);
    tab.push(w);
  }
  return tab;
}

function roundEven(v) {
  const r = Math.round(v);
  return (Math.abs(v % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
}

// an integer scale that tiles the area exactly: OpenCV's resizeAreaFast (an integer sum of the
// block times a float32 1/area, rounded)
function resizeAreaFast(area, w, h, s) {
  const dw = w / s, dh = h / s, scale = Math.fround(1 / (s * s));
  const out = new Uint8Array(dw * dh * 3);
  for (let dy = 0; dy < dh; dy++) {
    for (let dx = 0; dx < dw; dx++) {
      const sum = [0, 0, 0];
      for (let y = dy * s; y < (dy + 1) * s; y++) {
        for (let x = dx * s; x < (dx + 1) * s; x++) {
          const i = (y * w + x) * 3;
          sum[0] += area[i]; sum[1] += area[i + 1]; sum[2] += area[i + 2];
        }
      }
      const o = (dy * dw + dx) * 3;
      for (let c = 0; c < 3; c++) out[o + c] = Math.min(255, roundEven(Math.fround(sum[c] * scale)));
    }
  }
  return { pixels: out, width: dw, height: dh };
}

function resizeArea(area, w, h, f) {
  const s = 1 / f;
  if (Number.isInteger(s) && w % s === 0 && h % s === 0) return resizeAreaFast(area, w, h, s);
  const dw = Math.round(w * f), dh = Math.round(h * f);
  const xs = areaTable(w, dw, 1 / f), ys = areaTable(h, dh, 1 / f);
  const out = new Uint8Array(dw * dh * 3);
  for (let dy = 0; dy < dh; dy++) {
    for (let dx = 0; dx < dw; dx++) {
      const sum = [0, 0, 0];
      for (const [sy, wy] of ys[dy]) {
        for (const [sx, wx] of xs[dx]) {
          const i = (sy * w + sx) * 3, k = wy * wx;
          sum[0] += area[i] * k; sum[1] += area[i + 1] * k; sum[2] += area[i + 2] * k;
        }
      }
      const o = (dy * dw + dx) * 3;
      for (let c = 0; c < 3; c++) out[o + c] = Math.max(0, Math.min(255, roundEven(sum[c])));
    }
  }
  return { pixels: out, width: dw, height: dh };
}

// `image`: {width, height, bgr} (H × W × 3, BGR), as the reader takes it
export function photoColour(image) {
  const { width, height, bgr } = image;
  return {
    // PhotoColour.coloured_share: every step-th pixel of every step-th row
    colouredShare() {
      const step = Math.max(1, Math.floor(Math.max(width, height) / 256));
      const top = [], spread = [];
      for (let y = 0; y < height; y += step) {
        for (let x = 0; x < width; x += step) {
          const i = (y * width + x) * 3;
          const b = bgr[i], g = bgr[i + 1], r = bgr[i + 2];
          const hi = Math.max(b, g, r);
          top.push(hi);
          spread.push(hi - Math.min(b, g, r));
        }
      }
      const gain = f32(Math.max(Math.min(MAX_COLOUR_GAIN, 255 / Math.max(percentile(top, 99), 1)), 1));
      let n = 0;
      for (const s of spread) if (f32(s * gain) > COLOUR_STEP) n++;
      return n / spread.length;
    },

    // PhotoColour.off_tint_share of the area (x1, y1, x2, y2), whole pixels within the photo
    offTintShare(x1, y1, x2, y2) {
      const aw = Math.max(0, Math.min(x2, width) - x1), ah = Math.max(0, Math.min(y2, height) - y1);
      if (aw === 0 || ah === 0) return 1.0;
      let area = new Uint8Array(aw * ah * 3);
      for (let y = 0; y < ah; y++) {
        const from = ((y1 + y) * width + x1) * 3;
        area.set(bgr.subarray(from, from + aw * 3), y * aw * 3);
      }
      let w = aw, h = ah;
      const f = TINT_SIZE / Math.max(aw, ah);
      if (f < 1) ({ pixels: area, width: w, height: h } = resizeArea(area, aw, ah, f));
      const count = w * h, tops = new Float64Array(count);
      for (let p = 0; p < count; p++) tops[p] = Math.max(area[3 * p], area[3 * p + 1], area[3 * p + 2]);
      // numpy works in float32 here (an array of float32 times a Python float): so does this
      const gain = f32(Math.max(1, Math.min(MAX_COLOUR_GAIN, 255 / Math.max(percentile(tops, 99), 1))));
      const xs = new Float64Array(count), ys = new Float64Array(count), level = new Int32Array(count);
      const n = new Float64Array(32), sumX = new Float64Array(32), sumY = new Float64Array(32);
      for (let p = 0; p < count; p++) {
        const b = area[3 * p], g = area[3 * p + 1], r = area[3 * p + 2];
        xs[p] = f32((r - g) * gain);                            // red-green axis
        ys[p] = f32(f32(f32((r + g) / 2) - b) * gain);          // yellow-blue axis
        const l = Math.min(31, Math.max(0, Math.trunc(f32(f32(f32(f32(b + g + r) / 3) * gain) / 8))));
        level[p] = l; n[l]++; sumX[l] += xs[p]; sumY[l] += ys[p];
      }
      let off = 0;
      for (let p = 0; p < count; p++) {
        const l = level[p], m = Math.max(n[l], 1);
        if (Math.hypot(xs[p] - sumX[l] / m, ys[p] - sumY[l] / m) > TINT_STEP) off++;
      }
      return off / count;
    },
  };
}
