// The photo as the reader sees it: {width, height, bgr: Uint8Array}, row-major, 3 bytes a pixel
// in B, G, R order — the same bytes as the (H, W, 3) uint8 array OpenCV gives the Python reader
// (vision.read.imageio.load_image), so every index and rounding below matches numpy's.

// An image from canvas ImageData (RGBA bytes); the alpha is dropped as OpenCV drops it.
export function fromRGBA({ width, height, data }) {
  const bgr = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height * 4; i += 4, j += 3) {
    bgr[j] = data[i + 2];
    bgr[j + 1] = data[i + 1];
    bgr[j + 2] = data[i];
  }
  return { width, height, bgr };
}

// An image from raw BGR bytes (tests: the bytes Python decoded).
export function fromBGR(width, height, bytes) {
  if (bytes.length !== width * height * 3) {
    throw new Error(`expected ${width * height * 3} bytes for ${width}x${height}, got ${bytes.length}`);
  }
  return { width, height, bgr: bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes) };
}

// image_bgr[y1:y2, x1:x2] (a copy; bounds as numpy slices clip them)
export function crop(image, x1, y1, x2, y2) {
  x1 = Math.max(0, Math.min(image.width, x1)); x2 = Math.max(x1, Math.min(image.width, x2));
  y1 = Math.max(0, Math.min(image.height, y1)); y2 = Math.max(y1, Math.min(image.height, y2));
  const w = x2 - x1, h = y2 - y1;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const from = ((y1 + y) * image.width + x1) * 3;
    out.set(image.bgr.subarray(from, from + w * 3), y * w * 3);
  }
  return { width: w, height: h, bgr: out };
}

// image_bgr[:, ::-1] ('x') or image_bgr[::-1] ('y'): TileReader._read's mirrored photo
export function flip(image, axis) {
  const { width: w, height: h, bgr } = image;
  const out = new Uint8Array(bgr.length);
  for (let y = 0; y < h; y++) {
    const sy = axis === 'y' ? h - 1 - y : y;
    for (let x = 0; x < w; x++) {
      const sx = axis === 'x' ? w - 1 - x : x;
      const s = (sy * w + sx) * 3, d = (y * w + x) * 3;
      out[d] = bgr[s]; out[d + 1] = bgr[s + 1]; out[d + 2] = bgr[s + 2];
    }
  }
  return { width: w, height: h, bgr: out };
}
