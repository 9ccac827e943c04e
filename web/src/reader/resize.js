// cv2.resize for uint8 3-channel images, ported bit for bit (OpenCV 5.x, x86-64 build with SSE
// baseline, as the Python reader runs it: modules/imgproc/src/resize.cpp). The detector's
// letterbox uses INTER_LINEAR, the classifier's crops INTER_AREA (shrinking) and INTER_LINEAR
// (enlarging); a rounding that differs from OpenCV's moves a box or a crop's pixel by one grey
// level, which can flip a close call, so each arithmetic step keeps OpenCV's types:
//   - coefficients are float32 (Math.fround), fixed-point 11-bit for INTER_LINEAR;
//   - OpenCV's SIMD loops round differently from its scalar code. Measured against the
//     opencv-python 5.1 wheel (web/test/resize_cases.py + resize_vs_cv2.mjs): the vector
//     rounding holds for every byte of a row, its tail included (the build finishes a row with a
//     vector too), so the vector formulas below are used throughout; the scalar formulas would
//     differ by one grey level in about one tail byte in a hundred.
// An image is {width, height, bgr: Uint8Array} (row-major, 3 bytes a pixel; image.js).

export const INTER_LINEAR = 1;
export const INTER_AREA = 3;

const COEF_BITS = 11;                  // INTER_RESIZE_COEF_BITS
const COEF_SCALE = 1 << COEF_BITS;     // INTER_RESIZE_COEF_SCALE
const CN = 3;

const f32 = Math.fround;

// cvRound for a float: round half to even (lrint).
function roundEven(v) {
  const r = Math.round(v);
  return (r - v === 0.5 && (r & 1) !== 0) ? r - 1 : r;
}

function sat8(v) {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

// cv::saturate_cast<short>(float): cvRound then clamp.
function satShort(v) {
  const r = roundEven(v);
  return r < -32768 ? -32768 : r > 32767 ? 32767 : r;
}

// cv::saturate_cast<int>(double)
function satInt(v) {
  return roundEven(v) | 0;
}

// Mirrors cv2.resize(src, (dw, dh), interpolation) for uint8 BGR. `interpolation`: 'linear' or
// 'area' (or OpenCV's numbers, INTER_LINEAR / INTER_AREA). Returns a new image.
export function resize(src, dw, dh, interpolation = INTER_LINEAR) {
  if (interpolation === 'linear') interpolation = INTER_LINEAR;
  else if (interpolation === 'area') interpolation = INTER_AREA;
  if (interpolation !== INTER_LINEAR && interpolation !== INTER_AREA) {
    throw new Error(`resize: interpolation must be 'linear' or 'area', not ${interpolation}`);
  }
  const sw = src.width, sh = src.height;
  if (dw === sw && dh === sh) {     // cv::resize copies
    return { width: sw, height: sh, bgr: src.bgr.slice() };
  }
  // cv::resize: inv_scale = dsize/ssize, and hal::resize takes scale = 1/inv_scale
  const invX = dw / sw, invY = dh / sh;
  const scaleX = 1 / invX, scaleY = 1 / invY;
  const iscaleX = satInt(scaleX), iscaleY = satInt(scaleY);
  const areaFast = Math.abs(scaleX - iscaleX) < Number.EPSILON && Math.abs(scaleY - iscaleY) < Number.EPSILON;
  if (interpolation === INTER_LINEAR && areaFast && iscaleX === 2 && iscaleY === 2) {
    interpolation = INTER_AREA;      // OpenCV: "INTER_AREA and INTER_LINEAR are equal" at 2x down
  }
  if (interpolation === INTER_AREA && scaleX >= 1 && scaleY >= 1) {
    return areaFast ? resizeAreaFast(src, dw, dh, iscaleX, iscaleY)
                    : resizeArea(src, dw, dh, scaleX, scaleY);
  }
  // INTER_AREA enlarging along either axis: the linear path with area_mode taps (tileset.looks)
  return resizeLinear(src, dw, dh, scaleX, scaleY, interpolation === INTER_AREA);
}

// The x (or y) taps of INTER_LINEAR: resize.cpp's coefficient loop (fixpt, ksize 2); with
// `area`, its area_mode taps (INTER_AREA where an axis is enlarged).
function linearTaps(ssize, dsize, scale, clampRight, area) {
  const ofs = new Int32Array(dsize);
  const a0 = new Int32Array(dsize), a1 = new Int32Array(dsize);
  const inv = dsize / ssize;           // cv::resize's inv_scale
  for (let d = 0; d < dsize; d++) {
    let f, s;
    if (area) {
      s = Math.floor(d * scale);
      f = f32((d + 1) - (s + 1) * inv);
      f = f <= 0 ? 0 : f32(f - Math.floor(f));
    } else {
      f = f32((d + 0.5) * scale - 0.5);
      s = Math.floor(f);
      f = f32(f - s);
    }
    if (clampRight) {                  // x only: OpenCV leaves fy unclamped, clipping rows later
      if (s < 0) { f = 0; s = 0; }
      if (s >= ssize - 1) { f = 0; s = ssize - 1; }
    }
    ofs[d] = s;
    a0[d] = satShort(f32(1 - f) * COEF_SCALE);
    a1[d] = satShort(f * COEF_SCALE);
  }
  return { ofs, a0, a1 };
}

// resizeGeneric_ with HResizeLinear<uchar,int,short> and VResizeLinear<...FixedPtCast<22>,
// VResizeLinearVec_32s8u>
function resizeLinear(src, dw, dh, scaleX, scaleY, area = false) {
  const sw = src.width, sh = src.height, S = src.bgr;
  const xt = linearTaps(sw, dw, scaleX, true, area);
  const yt = linearTaps(sh, dh, scaleY, false, area);
  const dn = dw * CN;
  const out = new Uint8Array(dh * dn);
  // horizontally resized source rows: two slots, refilled as the rows needed move down
  const slots = [{ row: -1, buf: new Int32Array(dn) }, { row: -1, buf: new Int32Array(dn) }];
  const hrow = (sy, buf) => {
    const base = sy * sw * CN;
    for (let dx = 0; dx < dw; dx++) {
      const sx = xt.ofs[dx], a0 = xt.a0[dx], a1 = xt.a1[dx];
      const p = base + sx * CN;
      const q = sx + 1 < sw ? p + CN : p;   // OpenCV uses S[sx]*ONE past xmax: a1 is 0 there
      for (let k = 0; k < CN; k++) buf[dx * CN + k] = S[p + k] * a0 + S[q + k] * a1;
    }
  };
  const rowOf = (r, other) => {
    for (const s of slots) if (s.row === r) return s.buf;
    const s = slots[0].row === other ? slots[1] : slots[0];
    hrow(r, s.buf);
    s.row = r;
    return s.buf;
  };
  for (let dy = 0; dy < dh; dy++) {
    const sy0 = yt.ofs[dy];
    const r0 = Math.min(Math.max(sy0, 0), sh - 1), r1 = Math.min(Math.max(sy0 + 1, 0), sh - 1);
    const S0 = rowOf(r0, r1), S1 = rowOf(r1, r0);
    const b0 = yt.a0[dy], b1 = yt.a1[dy];
    const o = dy * dn;
    // VResizeLinearVec_32s8u: (S >> 4) packed to int16 (saturating), v_mul_hi with beta,
    // summed, then v_rshr_pack_u<2>. (Its scalar tail, FixedPtCast<int, uchar, 22>, would be
    // (S0*b0 + S1*b1 + 2^21) >> 22; the wheel measured never used it.)
    for (let x = 0; x < dn; x++) {
      const s0 = Math.min(32767, S0[x] >> 4), s1 = Math.min(32767, S1[x] >> 4);
      const v = ((s0 * b0) >> 16) + ((s1 * b1) >> 16);
      out[o + x] = sat8((v + 2) >> 2);
    }
  }
  return { width: dw, height: dh, bgr: out };
}

// resizeAreaFast_Invoker<uchar, int, ResizeAreaFastVec<uchar, ResizeAreaFastVec_SIMD_8u>>
function resizeAreaFast(src, dw, dh, sx, sy) {
  const sw = src.width, sh = src.height, S = src.bgr;
  const area = sx * sy;
  const scale = f32(1 / area);
  const dn = dw * CN;
  const dwidth1 = Math.floor(sw / sx) * CN;
  const out = new Uint8Array(dh * dn);
  for (let dy = 0; dy < dh; dy++) {
    const y0 = dy * sy;
    const o = dy * dn;
    const w = y0 + sy <= sh ? dwidth1 : 0;
    let dx = 0;
    if (sx === 2 && sy === 2) {
      // ResizeAreaFastVec_SIMD_8u: (a + b + c + d + 2) >> 2, measured to hold for whole rows
      for (; dx < w; dx++) {
        const c = dx % CN, px = (dx - c) / CN;
        const p = (y0 * sw + px * 2) * CN + c, q = p + sw * CN;
        out[o + dx] = (S[p] + S[p + CN] + S[q] + S[q + CN] + 2) >> 2;
      }
    }
    for (; dx < w; dx++) {
      const c = dx % CN, px = (dx - c) / CN;
      let sum = 0;
      for (let yy = 0; yy < sy; yy++) {
        const p = ((y0 + yy) * sw + px * sx) * CN + c;
        for (let xx = 0; xx < sx; xx++) sum += S[p + xx * CN];
      }
      out[o + dx] = sat8(roundEven(f32(sum * scale)));
    }
    for (; dx < dn; dx++) {          // a partial cell at the bottom or right edge
      const c = dx % CN, x0 = ((dx - c) / CN) * sx;
      let sum = 0, count = 0;
      for (let yy = 0; yy < sy && y0 + yy < sh; yy++) {
        for (let xx = 0; xx < sx && x0 + xx < sw; xx++) { sum += S[((y0 + yy) * sw + x0 + xx) * CN + c]; count++; }
      }
      out[o + dx] = count ? sat8(roundEven(f32(sum / count))) : 0;
    }
  }
  return { width: dw, height: dh, bgr: out };
}

// computeResizeAreaTab: which source cells feed each destination cell, with float weights
function areaTab(ssize, dsize, scale) {
  const di = [], si = [], alpha = [];
  for (let dx = 0; dx < dsize; dx++) {
    const fsx1 = dx * scale;
    const fsx2 = fsx1 + scale;
    const cellWidth = Math.min(scale, ssize - fsx1);
    let sx1 = Math.ceil(fsx1), sx2 = Math.floor(fsx2);
    sx2 = Math.min(sx2, ssize - 1);
    sx1 = Math.min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) {
      di.push(dx); si.push(sx1 - 1); alpha.push(f32((sx1 - fsx1) / cellWidth));
    }
    for (let sx = sx1; sx < sx2; sx++) {
      di.push(dx); si.push(sx); alpha.push(f32(1.0 / cellWidth));
    }
    if (fsx2 - sx2 > 1e-3) {
      di.push(dx); si.push(sx2);
      alpha.push(f32(Math.min(Math.min(fsx2 - sx2, 1), cellWidth) / cellWidth));
    }
  }
  return { di: Int32Array.from(di), si: Int32Array.from(si), alpha: Float32Array.from(alpha) };
}

// resizeArea_Invoker<uchar, float>: rows summed in float32, in OpenCV's order
function resizeArea(src, dw, dh, scaleX, scaleY) {
  const sw = src.width, S = src.bgr;
  const xt = areaTab(sw, dw, scaleX);
  const yt = areaTab(src.height, dh, scaleY);
  const dn = dw * CN;
  const out = new Uint8Array(dh * dn);
  const buf = new Float32Array(dn), sum = new Float32Array(dn);
  const xdi = xt.di, xsi = xt.si, xal = xt.alpha, nx = xdi.length;
  const flush = (dy) => {
    for (let dx = 0; dx < dn; dx++) out[dy * dn + dx] = sat8(roundEven(sum[dx]));
  };
  let prevDy = yt.di[0];
  for (let j = 0; j < yt.di.length; j++) {
    const beta = yt.alpha[j], dy = yt.di[j], base = yt.si[j] * sw * CN;
    buf.fill(0);
    for (let k = 0; k < nx; k++) {
      const s = base + xsi[k] * CN, d = xdi[k] * CN, a = xal[k];
      // Float32Array stores round to float32: buf + S*alpha, each step float
      buf[d] += f32(S[s] * a);
      buf[d + 1] += f32(S[s + 1] * a);
      buf[d + 2] += f32(S[s + 2] * a);
    }
    if (dy !== prevDy) {
      flush(prevDy);
      for (let dx = 0; dx < dn; dx++) sum[dx] = f32(beta * buf[dx]);
      prevDy = dy;
    } else {
      for (let dx = 0; dx < dn; dx++) sum[dx] = sum[dx] + f32(beta * buf[dx]);
    }
  }
  flush(prevDy);
  return { width: dw, height: dh, bgr: out };
}
