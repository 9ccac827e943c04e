// Stand-in for the browser's tile reader (web/src/reader, being written): the same interface,
// answering with what the Python reader read in the sample photos (web/test/fixtures/
// readings.json, made by web/test/make_fixtures.py). web/build.mjs puts it in the site only
// while web/src/reader is missing, so the page, the worker and the Python in Pyodide can be
// built and tested now; the real reader drops in with no other change.
//
// A photo is known by its size and the mean B, G, R of an 8 × 8 grid of cells (a browser's JPEG
// decoder may differ from OpenCV's in low bits); any other photo reads as no tiles.

const MAX_DISTANCE = 6;     // mean per-channel difference (0..255) still taken as the same photo

function signature(image, grid) {
  const { width: w, height: h, bgr } = image;
  const out = [];
  for (let gy = 0; gy < grid; gy++) {
    for (let gx = 0; gx < grid; gx++) {
      const y0 = Math.floor(gy * h / grid), y1 = Math.floor((gy + 1) * h / grid);
      const x0 = Math.floor(gx * w / grid), x1 = Math.floor((gx + 1) * w / grid);
      const sum = [0, 0, 0];
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * w + x) * 3;
          sum[0] += bgr[i]; sum[1] += bgr[i + 1]; sum[2] += bgr[i + 2];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      out.push(sum[0] / n, sum[1] / n, sum[2] / n);
    }
  }
  return out;
}

function empty(image) {
  return { width: image.width, height: image.height, tiles: [], windows: [], reflections: [],
           crowded: 0 };
}

export class TileReader {
  constructor(fixtures) {
    this.fixtures = fixtures;
    this.kind = "stand-in";
  }

  // the real reader's arguments ({ort, detector, classifier, meta, threads}) are taken and unused
  static async create(_options = {}) {
    const r = await fetch(new URL("readings.json", import.meta.url));
    if (!r.ok) throw new Error(`the stand-in reader's readings: ${r.status}`);
    return new TileReader(await r.json());
  }

  photo(image) {            // the sample photo this image is, or null
    const { grid, photos } = this.fixtures;
    let best = null, bestDistance = Infinity;
    let sig = null;
    for (const [name, p] of Object.entries(photos)) {
      if (p.width !== image.width || p.height !== image.height) continue;
      sig = sig || signature(image, grid);
      const d = sig.reduce((acc, v, i) => acc + Math.abs(v - p.signature[i]), 0) / sig.length;
      if (d < bestDistance) { best = { name, ...p }; bestDistance = d; }
    }
    return bestDistance <= MAX_DISTANCE ? best : null;
  }

  async read(image, _options = {}) {
    const p = this.photo(image);
    return p ? structuredClone(p.read) : empty(image);
  }

  async lookAgain(image, how) {
    if (how !== "x" && how !== "y") throw new Error(`how must be x or y, not ${how}`);
    const p = this.photo(image);
    return p ? structuredClone(p[how]) : empty(image);
  }

  withSet(_profile) {       // a set profile changes nothing here: the readings are fixed
    return this;
  }
}
