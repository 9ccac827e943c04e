// Compare web/src/reader/resize.js with cv2.resize on the cases resize_cases.py wrote.
// Usage: node web/test/resize_vs_cv2.mjs OUTDIR
import { readFileSync } from 'node:fs';
import { resize } from '../src/reader/resize.js';

const dir = process.argv[2];
const cases = JSON.parse(readFileSync(`${dir}/cases.json`, 'utf8'));
let exact = 0;
const worst = [];
cases.forEach((c, i) => {
  const src = { width: c.w, height: c.h, bgr: new Uint8Array(readFileSync(`${dir}/${i}.src`)) };
  const want = new Uint8Array(readFileSync(`${dir}/${i}.dst`));
  const got = resize(src, c.dw, c.dh, c.interp).bgr;
  let diff = 0, max = 0, first = -1;
  for (let k = 0; k < want.length; k++) {
    const d = Math.abs(want[k] - got[k]);
    if (d) { diff++; if (first < 0) first = k; }
    if (d > max) max = d;
  }
  if (diff === 0) exact++;
  else worst.push(`case ${i} ${c.w}x${c.h}->${c.dw}x${c.dh} interp ${c.interp}: ${diff}/${want.length} bytes differ, max ${max}, first at byte ${first} (x ${(first / 3 | 0) % c.dw}, c ${first % 3}, y ${(first / 3 / c.dw) | 0})`);
});
console.log(`${exact}/${cases.length} cases bit-identical to cv2.resize`);
for (const w of worst) console.log('  ' + w);
process.exit(exact === cases.length ? 0 : 1);
