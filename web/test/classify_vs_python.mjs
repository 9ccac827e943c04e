// The browser's naming of boxes against Python's, photo by photo.
//
//   node web/test/classify_vs_python.mjs GOLDEN_DIR
//
// GOLDEN_DIR is what web/test/classify_golden.py wrote: per photo the BGR bytes, Python's boxes
// and Python's _classify / _merge_back / combine / assign_within_counts / reflections outputs,
// and the crop tensors. Runs the JS port (web/src/reader) on the same bytes and boxes with
// onnxruntime-web (wasm, one thread) and prints per photo: the crops' largest difference, the
// tiles whose argmax differs from Python's (should be none), max |dprob| and the rest.
// Exits 1 when a tile's name, a count assignment or a reflection differs.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';

import { TILE_CLASSES } from '../src/reader/classes.js';
import { classifyBoxes, mergeBack, turnedOver as turnedOverNames } from '../src/reader/classify.js';
import { assignWithinCounts, argmax } from '../src/reader/counts.js';
import { contrastCrops, cropBoxes, turnedOver } from '../src/reader/crops.js';
import { learnSheet, prepareSet } from '../src/reader/set_learning.js';
import { calibrate, Calibration, combine, looks, profileFromJson } from '../src/reader/tileset.js';

ort.env.wasm.numThreads = 1;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const golden = process.argv[2];
if (!golden) { console.error('usage: node web/test/classify_vs_python.mjs GOLDEN_DIR'); process.exit(2); }

let reflectionsOf = null, reflections = null;
try { reflections = await import('../src/reader/reflections.js'); ({ reflectionsOf } = reflections); } catch { /* not ported yet */ }

const session = await ort.InferenceSession.create(fs.readFileSync(path.join(root, 'vision', 'weights', 'classifier.onnx')));

const maxAbs = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const maxRows = (a, b) => a.reduce((m, row, i) => Math.max(m, maxAbs(row, b[i])), 0);
const readF32 = (file) => { const buf = fs.readFileSync(file); return new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4); };
const fmt = (x) => x.toExponential(1);

let profile = null;
const profileFile = path.join(golden, 'profile.json');
if (fs.existsSync(profileFile)) profile = profileFromJson(fs.readFileSync(profileFile, 'utf8'));

let failed = false;
const names = fs.readdirSync(golden).filter((d) => fs.existsSync(path.join(golden, d, 'golden.json'))).sort();
for (const name of names) {
  const dir = path.join(golden, name);
  const gold = JSON.parse(fs.readFileSync(path.join(dir, 'golden.json'), 'utf8'));
  const image = { width: gold.width, height: gold.height, bgr: new Uint8Array(fs.readFileSync(path.join(dir, 'image.bgr'))) };
  const boxes = gold.boxes;
  const reader = {
    classifier: session, ort, cropSize: 48, turns: gold.turns, contrast: gold.contrast, embeds: true,
    references: gold.with_set ? profile.references : null,
    tileset: gold.with_set ? { calibration: profile.calibration } : null,
  };
  const line = [`${name}: ${boxes.length} tiles`];
  if (boxes.length === 0) { console.log(line[0]); continue; }
  // the crops apart from the classifier
  const crops = cropBoxes(image, boxes, 48);
  const dCrop = maxAbs(crops.data, readF32(path.join(dir, 'crops.f32')));
  const dContrast = maxAbs(contrastCrops(crops).data, readF32(path.join(dir, 'contrast.f32')));
  const dTurned = maxAbs(turnedOver(crops, gold.turn_theta).data, readF32(path.join(dir, 'turned.f32')));
  line.push(`crops ${fmt(dCrop)} contrast ${fmt(dContrast)} turned ${fmt(dTurned)}`);
  // the classifier itself on Python's crops (onnxruntime-web against onnxruntime)
  const { probs, likeness, contrastViews } = await classifyBoxes(reader, image, boxes);
  if (gold.contrast_views !== undefined && contrastViews !== gold.contrast_views) { line.push('CONTRAST VIEWS DIFFER'); failed = true; }
  if (contrastViews) line.push('contrast views');
  const differ = probs.map((row, i) => [i, argmax(row), argmax(gold.probs[i])]).filter(([, a, b]) => a !== b);
  line.push(`argmax differs: ${differ.length ? differ.map(([i, a, b]) => `#${i} ${TILE_CLASSES[a]}/${TILE_CLASSES[b]}`).join(' ') : 'none'}`);
  line.push(`max|dp| ${fmt(maxRows(probs, gold.probs))}`);
  if (differ.length) failed = true;
  if (likeness) line.push(`max|dlikeness| ${fmt(maxRows(likeness, gold.likeness))}`);
  let final = mergeBack(probs, Int32Array.from(gold.det_cls), gold.names);
  line.push(`merged ${fmt(maxRows(final, gold.merged))}`);
  if (likeness) {
    const joined = combine(final, likeness, reader.tileset.calibration);
    final = joined.probs;
    const dDecided = joined.decided.filter((d, i) => d !== gold.decided[i]).length;
    const dArg = final.filter((row, i) => argmax(row) !== argmax(gold.combined[i])).length;
    line.push(`combine ${fmt(maxRows(final, gold.combined))} argmax differs ${dArg} decided differs ${dDecided}`);
    if (dArg || dDecided) failed = true;
  }
  const counts = assignWithinCounts(final);
  const dCounts = counts.filter((c, i) => c !== gold.counts[i]).length;
  line.push(`counts differ ${dCounts}`);
  if (dCounts) failed = true;
  if (reflections && gold.pairs) {
    const { pairs, theta } = reflections.hangingPairs(boxes);
    const same = JSON.stringify(pairs.slice(0, 40)) === JSON.stringify(gold.pairs.map((p) => [p.tile, p.below]));
    if (!same || Math.abs(theta - gold.theta) > 1e-9) { line.push('HANGING PAIRS DIFFER'); failed = true; }
    if (gold.pairs.length) {
      const g = reflections.grey(image);
      let dc = 0, dm = 0;
      for (const p of gold.pairs) {
        if (p.mirror === null) continue;
        const c = [p.tile, p.below].map((i) => reflections.inkContrast(g, image.width, image.height, boxes[i]));
        dc = Math.max(dc, ...c.map((v, i) => Math.abs(v - p.contrast[i]) / Math.max(1e-9, p.contrast[i])));
        dm = Math.max(dm, Math.abs(reflections.mirrorLikeness(g, image.width, image.height, boxes, p.tile, p.below) - p.mirror));
      }
      line.push(`${gold.pairs.length} hanging pairs: ink contrast rel. ${fmt(dc)}, mirror likeness ${fmt(dm)}`);
    }
  }
  if (reflectionsOf) {
    const r = gold.reflections;
    let dCalls = 0;
    for (const call of r.calls) {
      const got = await turnedOverNames(reader, image, call.idx.map((i) => boxes[i]), call.theta);
      dCalls += call.names.filter((v, i) => v !== got[i]).length;
    }
    if (r.calls.length) line.push(`turned over: ${r.calls.reduce((s, c) => s + c.idx.length, 0)} crops, ${dCalls} named otherwise`);
    if (dCalls) failed = true;
    const gone = await reflectionsOf(reader, image, boxes, Int32Array.from(r.names), r.sideways);
    const dGone = r.gone.filter((g, i) => Boolean(gone[i]) !== g).length;
    line.push(`reflections ${r.gone.filter(Boolean).length} (python) differ ${dGone}`);
    if (dGone) failed = true;
  }
  console.log(line.join('; '));
}

// assign_within_counts on random rows with ties and several sets' worth of tiles
const countsFile = path.join(golden, 'counts.json');
if (fs.existsSync(countsFile)) {
  const cases = JSON.parse(fs.readFileSync(countsFile, 'utf8'));
  const bad = cases.filter((c) => assignWithinCounts(c.probs.map((r) => Float32Array.from(r))).some((v, i) => v !== c.names[i]));
  console.log(`assignWithinCounts: ${cases.length} random cases, ${bad.length} differ`);
  if (bad.length) failed = true;
}

// the set profile: learning it from the sheet, its calibration, its looks and references
if (profile && profile.crops) {
  const json = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
  const g = json.golden;
  const reader = { classifier: session, ort, cropSize: 48, turns: 4, contrast: true, embeds: true, modelId: profile.model, references: null, tileset: null };
  console.log(`profile ${profile.name}: ${profile.kinds.length} references`);
  const cal = calibrate(profile.kinds, g.sheet_probs, profile.crops, profile.embeddings, profile.dim).toMeta();
  const sameCal = JSON.stringify(cal) === JSON.stringify(g.calibration);
  console.log(`  calibrate on Python's sheet probs: ${sameCal ? 'same' : 'DIFFERS'}`);
  if (!sameCal) { console.log('    js    ', JSON.stringify(cal)); console.log('    python', JSON.stringify(g.calibration)); failed = true; }
  const trip = JSON.stringify(Calibration.fromMeta(json.calibration).toMeta()) === JSON.stringify(json.calibration);
  console.log(`  stored calibration read and written again: ${trip ? 'same' : 'DIFFERS'}`);
  if (!trip) failed = true;
  // learning: the sheet's boxes in Python's sheet order, the rest in JS
  const sheetDir = path.join(golden, 'sheet');
  if (fs.existsSync(sheetDir)) {
    const image = { width: g.width, height: g.height, bgr: new Uint8Array(fs.readFileSync(path.join(sheetDir, 'image.bgr'))) };
    const learned = await learnSheet(reader, image, g.boxes, g.sheet_kinds, { name: profile.name, source: 'sheet' });
    const t = learned.tileset;
    const cropsSame = t.crops.length === profile.crops.length && t.crops.every((v, i) => v === profile.crops[i]);
    const dEmb = maxAbs(t.embeddings, profile.embeddings);
    const dSheet = maxRows(learned.sheetProbs, g.sheet_probs);
    const learnedCal = JSON.stringify(t.calibration.toMeta()) === JSON.stringify(json.calibration);
    const dis = JSON.stringify(learned.disagreements.map((d) => [d.index, d.given, d.read])) === JSON.stringify(g.disagreements);
    console.log(`  learnSheet: crops ${cropsSame ? 'same' : 'DIFFER'}, embeddings max|d| ${fmt(dEmb)} (the .npz keeps float16), `
      + `sheet probs max|d| ${fmt(dSheet)}, calibration ${learnedCal ? 'same' : 'DIFFERS'}, disagreements ${dis ? 'same' : 'DIFFER'}`);
    if (!learnedCal) { console.log('    js    ', JSON.stringify(t.calibration.toMeta())); console.log('    python', JSON.stringify(json.calibration)); }
    if (!cropsSame || !learnedCal || !dis) failed = true;
  }
  // the altered looks (numpy's random draws and cv2.resize) and the references made of them
  const looksFile = path.join(golden, 'looks.u8');
  try {
    const want = new Uint8Array(fs.readFileSync(looksFile));
    const got = looks(profile.crops).crops;
    const per = 48 * 48 * 3;
    let differ = 0;
    for (let i = 0; i < want.length / per; i++) {
      for (let p = 0; p < per; p++) if (want[i * per + p] !== got[i * per + p]) { differ++; break; }
    }
    console.log(`  looks: ${want.length / per} crops, ${differ} differ`);
    if (differ) failed = true;
    const { references } = await prepareSet(reader, profile);
    const sameIds = JSON.stringify(Array.from(references.kindIds)) === JSON.stringify(json.references.kind_ids);
    const dRef = maxAbs(references.embeddings, profile.references.embeddings);
    console.log(`  prepareSet references: kinds ${sameIds ? 'same' : 'DIFFER'}, embeddings max|d| ${fmt(dRef)}`);
    if (!sameIds) failed = true;
  } catch (e) {
    console.log(`  looks: not compared: ${e.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
