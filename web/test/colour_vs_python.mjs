// web/src/site/colour.js against vision.photo.photo_warnings.PhotoColour on the cases
// web/test/colour_cases.py writes: node web/test/colour_vs_python.mjs DIR. Exits 1 on a
// difference over TOLERANCE (a share, 0..1: float32 in numpy, float64 here).
import fs from "node:fs";
import path from "node:path";
import { photoColour } from "../src/site/colour.js";

const TOLERANCE = 1e-3;
const dir = process.argv[2] || "/tmp/colour";
let worst = 0, failed = 0;
for (const c of JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"))) {
  const bgr = new Uint8Array(fs.readFileSync(path.join(dir, c.file)));
  const colour = photoColour({ width: c.width, height: c.height, bgr });
  const got = [["coloured", colour.colouredShare(), c.coloured],
    ...c.tint.map(([x1, y1, x2, y2, want]) => [`tint ${x1},${y1},${x2},${y2}`, colour.offTintShare(x1, y1, x2, y2), want])];
  for (const [what, value, want] of got) {
    const d = Math.abs(value - want);
    worst = Math.max(worst, d);
    if (d > TOLERANCE) {
      failed++;
      console.log(`${c.file} ${what}: ${value} here, ${want} in Python`);
    }
  }
}
console.log(`colour.js vs PhotoColour: worst difference ${worst.toExponential(2)}, ${failed} over ${TOLERANCE}`);
process.exit(failed ? 1 : 0);
