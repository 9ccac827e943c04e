// Build the offline phone site (issue #43) into one folder: `npm run build [-- OUT]` in web/
// (OUT default web/dist). The folder is static: any static host, or `tilescope serve` at /phone/.
//
// What goes in, and why each part:
//   pyodide/   Pyodide's core (the project's own Python runs in the page: one source of the rules)
//   ort/       onnxruntime-web, only the wasm CPU backend (ort.wasm.min.mjs + the threaded SIMD
//              build, which also runs single-threaded when the page is not cross-origin isolated)
//   wheels/    pydantic and its wheels (web/wheels.txt: exact versions and sha256)
//   python/tilescope.zip   scoring/ and vision/ *.py (no weights, samples or tests)
//   weights/   vision/weights/*.onnx (read by the browser's reader)
//   reader/    the browser's tile reader (web/src/reader/*.js), or, until it is there, the
//              stand-in that answers with precomputed readings of the sample photos (web/test/)
//   the pages of vision/server/web (index.html, table.html and the scripts they load), with
//   their absolute paths made relative (the site may live under a sub-path) and local-api.js
//   (web/src/site) loaded first: it answers the pages' /api/... calls in the browser.
//   site.json, sw.js, manifest.webmanifest, icon.svg (+ PNGs drawn here): the service worker precaches every file
//   listed in sw.js, versioned by a hash of all of them, so a reload works with the network off.
//
// Python is called only to download the wheels (pip, once, into web/.cache/wheels).
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const WEB = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(WEB);
const OUT = path.resolve(process.argv[2] || path.join(WEB, "dist"));
const MODULES = path.join(WEB, "node_modules");
const WHEEL_CACHE = path.join(WEB, ".cache", "wheels");

// Pyodide's core: what loadPyodide fetches (the lock file too: loadPackage reads it, although
// every package the site installs is a wheel of its own; its CDN packages are never fetched)
const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                       "pyodide-lock.json"];
// onnxruntime-web's wasm CPU backend, the smallest set that works (measured: 14.9 MB; the JSPI
// build is 17.9 MB, asyncify 28.7 MB, the bundles embed the same .wasm name): the API module
// and the threaded SIMD wasm with its Emscripten glue
const ORT_FILES = ["ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"];
// the reader's knowledge of the models (web/tools/reader_meta.py), the first found
const READER_META = ["web/src/reader/reader.json", "vision/weights/reader.json"];
// the server's pages the site serves; their scripts and style sheet are found in them
const PAGES = ["index.html", "table.html"];

const sizes = {};       // part -> bytes, for the summary

function write(rel, data, part) {
  const file = path.join(OUT, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  sizes[part] = (sizes[part] || 0) + Buffer.byteLength(data);
}

function copy(src, rel, part) {
  write(rel, fs.readFileSync(src), part);
}

function sha256(data) {
  return createHash("sha256").update(data).digest("hex");
}

// ---- wheels: web/wheels.txt, checked by hash, downloaded once with pip ----
function wheels() {
  const wanted = fs.readFileSync(path.join(WEB, "wheels.txt"), "utf8").split("\n")
    .map((line) => line.trim()).filter((line) => line && !line.startsWith("#"))
    .map((line) => ({ line, hash: line.match(/--hash=sha256:([0-9a-f]{64})/)[1] }));
  const cached = () => {
    const byHash = new Map();
    if (fs.existsSync(WHEEL_CACHE)) {
      for (const name of fs.readdirSync(WHEEL_CACHE).filter((n) => n.endsWith(".whl"))) {
        byHash.set(sha256(fs.readFileSync(path.join(WHEEL_CACHE, name))), name);
      }
    }
    return byHash;
  };
  let have = cached();
  if (wanted.some((w) => !have.has(w.hash))) {
    fs.mkdirSync(WHEEL_CACHE, { recursive: true });
    // the pure wheels are any-platform: one command fetches them with the Pyodide one
    const pip = spawnSync("python3", ["-m", "pip", "download", "--no-deps", "--require-hashes",
      "--only-binary=:all:", "--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14",
      "--implementation", "cp", "-r", path.join(WEB, "wheels.txt"), "-d", WHEEL_CACHE],
      { stdio: "inherit" });
    if (pip.status !== 0) throw new Error("pip download of web/wheels.txt failed");
    have = cached();
  }
  const names = [];
  for (const w of wanted) {
    const name = have.get(w.hash);
    if (!name) throw new Error(`no wheel with the hash web/wheels.txt names: ${w.line}`);
    copy(path.join(WHEEL_CACHE, name), `wheels/${name}`, "wheels");
    names.push(name);
  }
  return names;
}

// ---- the project's Python as one zip (deflated; pyodide.unpackArchive opens it) ----
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function zip(entries) {         // [[name, Buffer]] -> a zip file (no timestamps: reproducible)
  const local = [], central = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const nameBuf = Buffer.from(name, "utf8");
    const packed = zlib.deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0); head.writeUInt16LE(20, 4); head.writeUInt16LE(0x800, 6);
    head.writeUInt16LE(8, 8); head.writeUInt32LE(0x00210000, 10);  // 1980-01-01 00:00
    head.writeUInt32LE(crc, 14); head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22); head.writeUInt16LE(nameBuf.length, 26);
    local.push(head, nameBuf, packed);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0); dir.writeUInt16LE(20, 4); dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x800, 8); dir.writeUInt16LE(8, 10); dir.writeUInt32LE(0x00210000, 12);
    dir.writeUInt32LE(crc, 16); dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(data.length, 24); dir.writeUInt16LE(nameBuf.length, 28);
    dir.writeUInt32LE((0o100644 * 65536) >>> 0, 38); dir.writeUInt32LE(offset, 42);
    central.push(dir, nameBuf);
    offset += head.length + nameBuf.length + packed.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10); end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, ...central, end]);
}

function pythonFiles(dir) {     // dir's *.py, recursively, sorted; no tests
  const out = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__" && entry.name !== "tests") out.push(...pythonFiles(rel));
    } else if (entry.name.endsWith(".py")) {
      out.push(rel);
    }
  }
  return out;
}

function projectZip() {
  const files = [...pythonFiles("scoring"), ...pythonFiles("vision")];
  // the worker imports it first: a site without it could only fail on the phone
  if (!files.includes("vision/offline/api.py")) throw new Error("vision/offline/api.py is missing");
  write("python/tilescope.zip", zip(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f))])),
        "python");
  return files.length;
}

// ---- the icon as PNG (phones' home screens and Chrome's install want a raster icon): the
// shapes of src/site/icon.svg drawn pixel by pixel, each pixel 4 × 4 samples ----
function iconPixel(x, y) {                  // x, y in the SVG's 512 × 512 units -> [r, g, b, a]
  const inRound = (x0, y0, w, h, r) => {
    const cx = Math.min(Math.max(x, x0 + r), x0 + w - r), cy = Math.min(Math.max(y, y0 + r), y0 + h - r);
    return x >= x0 && x <= x0 + w && y >= y0 && y <= y0 + h && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
  const ring = Math.hypot(x - 256, y - 236);
  if (ring <= 18) return [0x1f, 0x51, 0x30, 255];
  if (Math.abs(ring - 62) <= 11) return [0xb2, 0x22, 0x22, 255];
  if (inRound(151, 91, 210, 290, 24)) return [0xf7, 0xf3, 0xe8, 255];
  if (inRound(141, 81, 230, 310, 32)) return [0xc9, 0xbf, 0xa4, 255];
  if (inRound(146, 386, 220, 40, 14)) return [0xd9, 0xcf, 0xb4, 255];
  if (inRound(0, 0, 512, 512, 96)) return [0x1f, 0x51, 0x30, 255];
  return [0, 0, 0, 0];
}

function iconPng(size) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;                    // PNG filter: none
    for (let x = 0; x < size; x++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const p = iconPixel((x + (sx + 0.5) / 4) * 512 / size, (y + (sy + 0.5) / 4) * 512 / size);
          for (let c = 0; c < 3; c++) acc[c] += p[c] * p[3];
          acc[3] += p[3];
        }
      }
      const o = y * (size * 4 + 1) + 1 + x * 4;
      for (let c = 0; c < 3; c++) raw[o + c] = acc[3] ? Math.round(acc[c] / acc[3]) : 0;
      raw[o + 3] = Math.round(acc[3] / 16);
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const head = Buffer.alloc(13);
  head.writeUInt32BE(size, 0); head.writeUInt32BE(size, 4);
  head[8] = 8; head[9] = 6;                          // 8 bits, RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
                        chunk("IHDR", head), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

// ---- the pages: absolute paths made relative, local-api.js loaded before their scripts ----
function page(html, name) {
  let out = html
    .replace(/(href|src)="\/static\//g, '$1="')      // the server's /static/x -> x, beside the page
    .replace(/href="\/table"/g, 'href="table.html"')
    .replace(/href="\/"/g, 'href="./"')
    // the API's documentation lives on a server: the offline site has none
    .replace(/<footer>[\s\S]*?<\/footer>\n?/, '<footer>Works offline: the rules run on this device.</footer>\n');
  const head = '<link rel="manifest" href="manifest.webmanifest">\n' +
    '<link rel="icon" href="icon.svg" type="image/svg+xml">\n' +
    '<link rel="apple-touch-icon" href="icon-192.png">\n' +
    '<meta name="theme-color" content="#1f5130">\n';
  out = out.replace("</head>", head + "</head>");
  const firstScript = out.indexOf("<script");
  if (firstScript < 0) throw new Error(`${name}: no <script> to load local-api.js before`);
  out = out.slice(0, firstScript) + '<script src="local-api.js"></script>\n' + out.slice(firstScript);
  const left = out.match(/(?:href|src)="\/(?!\/)[^"]*"/g);
  if (left) throw new Error(`${name}: absolute paths left after rewriting: ${left.join(", ")}`);
  return out;
}

function pages() {
  const webDir = path.join(ROOT, "vision", "server", "web");
  const assets = new Set();
  for (const name of PAGES) {
    const html = fs.readFileSync(path.join(webDir, name), "utf8");
    for (const m of html.matchAll(/(?:href|src)="\/static\/([^"]+)"/g)) assets.add(m[1]);
    write(name, page(html, name), "pages");
  }
  for (const a of assets) copy(path.join(webDir, a), a, "pages");
}

// ---- the reader: the real one when web/src/reader has it, else the stand-in ----
function reader() {
  const realDir = path.join(WEB, "src", "reader");
  const real = fs.existsSync(realDir) ? fs.readdirSync(realDir).filter((n) => n.endsWith(".js")).sort() : [];
  let entry, kind;
  if (real.length) {
    for (const n of real) copy(path.join(realDir, n), `reader/${n}`, "reader");
    // what the reader must know of the models (class names, input size...: web/tools/
    // reader_meta.py writes it with Python, so it is made beforehand, not by this build)
    const meta = READER_META.map((f) => path.join(ROOT, f)).find((f) => fs.existsSync(f));
    if (!meta) {
      throw new Error(`the reader needs its models' reader.json (${READER_META.join(" or ")}): ` +
                      "PYTHONPATH=. python web/tools/reader_meta.py > web/src/reader/reader.json");
    }
    copy(meta, "weights/reader.json", "reader");
    // the module that exports TileReader is the entry (reader-entry.js re-exports it)
    entry = real.find((n) => /export\s+(?:class|const|let|function)\s+TileReader\b|export\s*\{[^}]*\bTileReader\b/
      .test(fs.readFileSync(path.join(realDir, n), "utf8")));
    if (!entry) throw new Error("web/src/reader/*.js: none exports TileReader");
    kind = "real";
  } else {
    copy(path.join(WEB, "test", "fixture-reader.js"), "reader/fixture-reader.js", "reader");
    copy(path.join(WEB, "test", "fixtures", "readings.json"), "reader/readings.json", "reader");
    entry = "fixture-reader.js";
    kind = "stand-in";
    console.warn("build: web/src/reader is not there yet: the site reads with the stand-in " +
                 "(the sample photos' precomputed readings, web/test/fixture-reader.js)");
  }
  write("reader-entry.js", `// written by web/build.mjs: the site's tile reader (${kind})\n` +
        `export { TileReader } from "./reader/${entry}";\nexport const READER_KIND = "${kind}";\n`,
        "reader");
  return kind;
}

function main() {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of PYODIDE_FILES) copy(path.join(MODULES, "pyodide", f), `pyodide/${f}`, "pyodide");
  for (const f of ORT_FILES) copy(path.join(MODULES, "onnxruntime-web", "dist", f), `ort/${f}`, "onnxruntime-web");
  const wheelNames = wheels();
  const nPython = projectZip();
  const weightsDir = path.join(ROOT, "vision", "weights");
  const weights = fs.readdirSync(weightsDir).filter((n) => n.endsWith(".onnx")).sort();
  for (const n of weights) copy(path.join(weightsDir, n), `weights/${n}`, "weights");
  const readerKind = reader();
  pages();
  const siteDir = path.join(WEB, "src", "site");
  let swSource = null;
  for (const n of fs.readdirSync(siteDir).sort()) {
    if (n === "sw.js") swSource = fs.readFileSync(path.join(siteDir, n), "utf8");
    else copy(path.join(siteDir, n), n, "site");
  }
  for (const size of [192, 512]) write(`icon-${size}.png`, iconPng(size), "site");
  const pyodideVersion = JSON.parse(fs.readFileSync(path.join(MODULES, "pyodide", "package.json"))).version;
  const ortVersion = JSON.parse(fs.readFileSync(path.join(MODULES, "onnxruntime-web", "package.json"))).version;
  if (readerKind === "real") weights.push("reader.json");
  write("site.json", JSON.stringify({ wheels: wheelNames, weights, reader: readerKind,
    pyodide: pyodideVersion, onnxruntime: ortVersion }, null, 1) + "\n", "site");

  // every file so far, and one hash of them all: the service worker's version (a changed file
  // is a new sw.js, which the browser installs, precaching the new site and dropping the old)
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else files.push(path.relative(OUT, full).split(path.sep).join("/"));
    }
  };
  walk(OUT);
  files.sort();
  const hash = createHash("sha256");
  for (const f of files) hash.update(f + "\0").update(sha256(fs.readFileSync(path.join(OUT, f))));
  const version = hash.digest("hex").slice(0, 16);
  const marker = /^const SITE = .*;$/m;
  if (!marker.test(swSource)) throw new Error("web/src/site/sw.js: no `const SITE = ...;` line to fill");
  // "./" is the folder itself (the page a phone opens at the site's address)
  write("sw.js", swSource.replace(marker, () => `const SITE = ${JSON.stringify({ version, files: ["./", ...files] })};`), "site");

  const mb = (n) => (n / 1e6).toFixed(1);
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  console.log(`built ${path.relative(process.cwd(), OUT) || "."}: version ${version}, ` +
              `${files.length + 1} files, ${mb(total)} MB (${nPython} Python files, reader: ${readerKind})`);
  for (const [part, n] of Object.entries(sizes).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${part.padEnd(16)} ${mb(n).padStart(6)} MB`);
  }
}

main();
