// The JS reader (web/src/reader/read.js, onnxruntime-web's wasm backend, one thread) against
// Python's TileReader on the photos web/test/golden.py wrote: the same BGR bytes in, then per
// photo the detector's boxes (TileReader._detect) and the tiles read (TileReader.read) compared.
// Writes the JS results to GOLDEN_DIR/js_results.json for web/test/score_vs_python.py.
// Usage: node web/test/reader_vs_python.mjs GOLDEN_DIR READER_JSON [NAME_SUBSTRING]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { TileReader } from '../src/reader/read.js';
import { fromBGR } from '../src/reader/image.js';
import { profileFromJson } from '../src/reader/tileset.js';

const [dir, metaPath, only] = process.argv.slice(2);
const weights = fileURLToPath(new URL('../../vision/weights/', import.meta.url));
ort.env.wasm.numThreads = 1;
const reader = await TileReader.create({
  ort,
  detector: readFileSync(`${weights}detector.onnx`),
  classifier: readFileSync(`${weights}classifier.onnx`),
  meta: JSON.parse(readFileSync(metaPath, 'utf8')),
  threads: 1,
});
// the set profile golden.py learnt (--set-sheet), for the rows read with a set too
const profilePath = `${dir}/profile.json`;
const setReader = existsSync(profilePath)
  ? await reader.withSet(profileFromJson(readFileSync(profilePath, 'utf8'))) : null;
const golden = JSON.parse(readFileSync(`${dir}/golden.json`, 'utf8')).filter((g) => !only || g.name.includes(only));

const boxDiff = (a, b) => Math.max(...a.map((v, k) => Math.abs(v - b[k])));

// Detector boxes: the same count, each Python box matched to the JS box nearest it.
function compareBoxes(py, js) {
  let max = 0;
  for (const b of py) max = Math.max(max, Math.min(...js.map((c) => boxDiff(b, c)), Infinity));
  return { same: py.length === js.length, max: py.length ? max : 0 };
}

const rows = [];
const jsResults = {};
let jsTotal = 0, pyTotal = 0;
// warm-up: the first run compiles the wasm kernels
await reader.read(fromBGR(golden[0].width, golden[0].height, new Uint8Array(readFileSync(`${dir}/${golden[0].file}`))));
// One read against Python's: tile names in order, then (same count) boxes, confidences, sideways
function compareRead(name, det, g, got, want, seconds, pySeconds) {
  const names = got.tiles.map((t) => t.tile).join(' '), wantNames = want.tiles.map((t) => t.tile).join(' ');
  let maxBox = 0, maxConf = 0, sideways = 0;
  if (got.tiles.length === want.tiles.length) {
    got.tiles.forEach((t, i) => {
      maxBox = Math.max(maxBox, boxDiff(t.box, want.tiles[i].box));
      maxConf = Math.max(maxConf, Math.abs(t.confidence - want.tiles[i].confidence));
      if (t.sideways !== want.tiles[i].sideways) sideways++;
    });
  }
  const dbox = compareBoxes(g.detect.boxes, det.boxes);
  const row = {
    name, dets: `${det.boxes.length}/${g.detect.boxes.length}`, detMax: dbox.max,
    tiles: `${got.tiles.length}/${want.tiles.length}`, sameTiles: names === wantNames, maxBox, maxConf, sideways,
    windows: JSON.stringify(got.windows) === JSON.stringify(want.windows),
    refl: `${got.reflections.length}/${want.reflections.length}`, js: seconds, py: pySeconds,
  };
  if (!row.sameTiles) { row.got = names; row.want = wantNames; }
  return row;
}

for (const g of golden) {
  const image = fromBGR(g.width, g.height, new Uint8Array(readFileSync(`${dir}/${g.file}`)));
  const det = await reader.detect(image);
  let start = performance.now();
  const got = await reader.read(image);
  const seconds = (performance.now() - start) / 1000;
  jsTotal += seconds; pyTotal += g.seconds;
  rows.push(compareRead(g.name, det, g, got, g.read, seconds, g.seconds));
  const mine = { read: got };
  jsResults[g.name] = mine;
  for (const how of ['x', 'y']) {
    if (!g[`look_${how}`]) continue;
    start = performance.now();
    const again = await reader.lookAgain(image, how);
    mine[`look_${how}`] = again;
    rows.push({ ...compareRead(`${g.name} look ${how}`, det, g, again, g[`look_${how}`], (performance.now() - start) / 1000, '-'), dets: '-', detMax: '-' });
  }
  if (g.hinted) {
    start = performance.now();
    const hinted = await reader.read(image, { windows: g.read.windows });
    rows.push({ ...compareRead(`${g.name} hinted`, det, g, hinted, g.hinted, (performance.now() - start) / 1000, '-'), dets: '-', detMax: '-' });
  }
  if (setReader && g.read_set) {
    start = performance.now();
    const gotSet = await setReader.read(image);
    const secondsSet = (performance.now() - start) / 1000;
    // the set reader looks at boxes down to CONFIRM_FROM: its detector boxes are not the table's
    rows.push({ ...compareRead(`${g.name} +set`, det, g, gotSet, g.read_set, secondsSet, g.seconds_set), dets: '-', detMax: '-' });
  }
}

writeFileSync(`${dir}/js_results.json`, JSON.stringify(jsResults));

const f = (v, d = 3) => (typeof v === 'number' ? v.toFixed(d) : String(v));
console.log('photo                               boxes js/py  box max  tiles js/py  same  box max  conf max  side  windows  refl  js s   py s');
for (const r of rows) {
  console.log(`${r.name.padEnd(36)}${r.dets.padStart(11)}  ${f(r.detMax).padStart(7)}  ${r.tiles.padStart(11)}  ${(r.sameTiles ? 'yes' : 'NO').padStart(4)}  ${f(r.maxBox).padStart(7)}  ${f(r.maxConf, 5).padStart(8)}  ${String(r.sideways).padStart(4)}  ${(r.windows ? 'same' : 'DIFF').padStart(7)}  ${r.refl.padStart(4)}  ${f(r.js, 2).padStart(5)}  ${f(r.py, 2).padStart(5)}`);
  if (!r.sameTiles) console.log(`    js: ${r.got}\n    py: ${r.want}`);
}
const same = rows.filter((r) => r.sameTiles).length;
const plain = rows.filter((r) => r.dets !== '-');
const exactBoxes = plain.filter((r) => r.dets.split('/')[0] === r.dets.split('/')[1]).length;
const maxDet = Math.max(...plain.map((r) => r.detMax));
const maxBox = Math.max(...rows.filter((r) => r.sameTiles).map((r) => r.maxBox));
const maxConf = Math.max(...rows.filter((r) => r.sameTiles).map((r) => r.maxConf));
console.log(`\n${same}/${rows.length} reads (${plain.length} photos): the same tiles in the same order as Python; `
  + `(the others: the samples' look_again x and y, zoomed photos read again with their windows as the hint, rendered hands with a set profile); `
  + `detector box counts equal on ${exactBoxes}/${plain.length}, max detector box difference ${f(maxDet, 4)} px; `
  + `max box difference ${f(maxBox, 4)} px, max confidence difference ${f(maxConf, 6)} (photos with the same tiles); `
  + `sideways flags differing ${rows.reduce((s, r) => s + r.sideways, 0)}; windows differing ${rows.filter((r) => !r.windows).length}`);
console.log(`read time per photo (no set): JS (Node, wasm, 1 thread) mean ${f(jsTotal / plain.length, 2)} s, Python (onnxruntime, 1 thread) mean ${f(pyTotal / plain.length, 2)} s`);
// the brief's tolerances: boxes within 1 px, confidences within 1e-3
const loose = rows.filter((r) => r.sameTiles && (r.maxBox > 1 || r.maxConf > 1e-3));
for (const r of loose) console.log(`OUT OF TOLERANCE: ${r.name} box ${f(r.maxBox, 4)} px, confidence ${f(r.maxConf, 6)}`);
process.exit(same === rows.length && loose.length === 0 ? 0 : 1);
