// The offline site's engine, a module Web Worker (started by local-api.js): the project's own
// Python (scoring/, vision/) in Pyodide answers the pages' /api/... requests
// (vision.offline.api.answer), and the browser's tile reader (onnxruntime-web) reads photos.
// Set profiles (/api/sets, /api/set/...) and a request's `set` field are sets.js's: kept in
// IndexedDB, learned with the reader's set code, every rule and answer vision.offline.sets'.
// Everything it loads comes from the site's own folder, which the service worker keeps: it
// works with the network off once the site has been opened.
//
// Messages in:  {type: "request", id, request: {method, path, text, json, form, image}}
//               (image: the photo's Blob, or null)
// Messages out: {type: "progress", percent, stage}, {type: "ready", reader},
//               {type: "failed", error}, {type: "response", id, status, body}
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { TileReader, READER_KIND } from "./reader-entry.js";
import { photoColour } from "./colour.js";
import { startSets } from "./sets.js";
import { checkPhoto } from "./photo-check.js";

const SITE = new URL("./", import.meta.url);
const PYTHON_DIR = "/home/pyodide/tilescope";      // the project's zip is unpacked here
const DATA_DIR = "/data";                          // $TILESCOPE_DATA: games, kept in IndexedDB

// ---- progress: each step's share of "getting ready… N%" (Pyodide's core is the most) ----
const STEPS = { python: 45, wheels: 10, project: 5, data: 3, api: 7, ort: 15, reader: 15 };
const TOTAL = Object.values(STEPS).reduce((a, b) => a + b, 0);
let done = 0;
function stepDone(step) {
  done += STEPS[step];
  self.postMessage({ type: "progress", percent: Math.round(100 * done / TOTAL), stage: step });
}

async function bytes(rel) {
  const r = await fetch(new URL(rel, SITE));
  if (!r.ok) throw new Error(`${rel}: ${r.status} ${r.statusText}`);
  return new Uint8Array(await r.arrayBuffer());
}

// ---- Python: Pyodide, the wheels, the project, IndexedDB at /data, the API ----
async function startPython(site) {
  const pyodide = await loadPyodide({ indexURL: new URL("pyodide/", SITE).href });
  stepDone("python");
  // wheels by URL: installed as they are, nothing looked up on Pyodide's CDN
  await pyodide.loadPackage(site.wheels.map((w) => new URL(`wheels/${w}`, SITE).href),
                            { messageCallback: () => {} });
  stepDone("wheels");
  pyodide.unpackArchive(await bytes("python/tilescope.zip"), "zip", { extractDir: PYTHON_DIR });
  stepDone("project");
  const FS = pyodide.FS;
  FS.mkdirTree(DATA_DIR);
  let persistent = true;
  try {
    FS.mount(FS.filesystems.IDBFS, {}, DATA_DIR);
    await syncfs(FS, true);              // the games kept by earlier visits
  } catch (e) {
    // private mode and some embedded browsers have no IndexedDB: games last as long as the page
    persistent = false;
    console.warn("tilescope: games are not kept after this page closes:", e);
  }
  stepDone("data");
  pyodide.runPython(`
import json, os, sys
sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})
os.environ["TILESCOPE_DATA"] = ${JSON.stringify(DATA_DIR)}
from vision.offline.api import answer as _answer
from vision.offline.reader import BrowserPhoto

def site_answer(request_json, photo):
    # the request and the answer as JSON: plain values, no proxies to free, floats unchanged.
    # The photo (None without one): its size, and colour.js's measures, called synchronously
    photo = None if photo is None else BrowserPhoto(int(photo.width), int(photo.height), photo)
    return json.dumps(_answer(json.loads(request_json), photo))

import vision.offline.sets as _sets

def set_rule(name, args_json, kwargs_json):
    # the set routes' rules and answers (sets.js): plain values in and out, as JSON
    if name not in _sets.__all__:
        raise ValueError(f"vision.offline.sets has no rule {name!r}")
    return json.dumps(getattr(_sets, name)(*json.loads(args_json), **json.loads(kwargs_json)))
`);
  stepDone("api");
  return { pyodide, FS, persistent, answer: pyodide.globals.get("site_answer"),
           setRule: pyodide.globals.get("set_rule") };
}

function syncfs(FS, populate) {
  return new Promise((resolve, reject) => FS.syncfs(populate, (err) => (err ? reject(err) : resolve())));
}

// ---- the reader: onnxruntime-web's wasm CPU backend from the site's ort/ folder ----
async function startReader(site) {
  const ort = await import("./ort/ort.wasm.min.mjs");
  ort.env.wasm.wasmPaths = new URL("ort/", SITE).href;
  // threads need SharedArrayBuffer, which only a cross-origin isolated page has
  const threads = self.crossOriginIsolated ? Math.max(1, navigator.hardwareConcurrency || 1) : 1;
  ort.env.wasm.numThreads = threads;
  stepDone("ort");
  const has = (name) => site.weights.includes(name);
  const reader = await TileReader.create({
    ort,
    detector: await bytes("weights/detector.onnx"),
    classifier: has("classifier.onnx") ? await bytes("weights/classifier.onnx") : null,
    // the models' class names, input and crop sizes (web/tools/reader_meta.py's reader.json)
    meta: has("reader.json") ? JSON.parse(new TextDecoder().decode(await bytes("weights/reader.json"))) : null,
    threads,
  });
  stepDone("reader");
  return reader;
}

const ready = (async () => {
  const site = JSON.parse(new TextDecoder().decode(await bytes("site.json")));
  const [python, reader] = await Promise.all([startPython(site), startReader(site)]);
  const sets = await startSets({ python, reader, scorePhoto: answerPhoto });
  self.postMessage({ type: "ready", reader: READER_KIND, persistent: python.persistent });
  return { python, reader, sets };
})();
ready.catch((e) => self.postMessage({ type: "failed", error: String((e && e.message) || e) }));

// ---- a photo: its pixels as the reader takes them, H × W × 3 BGR (OpenCV's order) ----
async function decode(blob, scaleTo) {
  // as the file says: no colour management, no premultiplied alpha, EXIF rotation applied (as
  // vision.read.imageio.load_image reads a photo); a JPEG over the pixel limit at the smaller
  // size the server decodes it at (photo-check.js)
  const bitmap = await createImageBitmap(blob, { colorSpaceConversion: "none",
                                                 premultiplyAlpha: "none",
                                                 imageOrientation: "from-image",
                                                 ...(scaleTo ? { resizeWidth: scaleTo.width,
                                                                 resizeHeight: scaleTo.height,
                                                                 resizeQuality: "medium" } : {}) });
  const { width, height } = bitmap;
  const ctx = new OffscreenCanvas(width, height).getContext("2d", { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const bgr = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    bgr[j] = rgba[i + 2]; bgr[j + 1] = rgba[i + 1]; bgr[j + 2] = rgba[i];
  }
  return { width, height, bgr };
}

const isSetPath = (path) => path === "/api/sets" || path.startsWith("/api/set/");
// the photo routes whose `set` form field names the set profile the photo is read with
const READ_WITH_SET = new Set(["/api/score", "/api/check-photo", "/api/waits", "/api/read"]);

// JSON nested deeper than any request needs (a hand or an event is under 10): Python's json,
// recursing, runs out of the wasm stack past a few thousand, and Pyodide is left broken (later
// requests fail). So the body and the form's fields are refused before the Python reads them.
const MAX_DEPTH = 200;
function tooDeep(text) {
  if (typeof text !== "string") return false;
  let depth = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;                       // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) { if (++depth > MAX_DEPTH) return true; }
    else if (c === 93 || c === 125) depth--;
  }
  return false;
}

// (the form's fields once its photo is there: the server refuses a form without one first)
function deepRefusal(request) {
  const nested = `nested more than ${MAX_DEPTH} deep`;
  if (tooDeep(request.text)) {
    // the server's words (vision/server/routes/errors.py)
    return { status: 400, body: { error: "the request body is not valid JSON (not UTF-8 text, "
                                         + "nested too deep, or a number too long to read)", code: "bad_json" } };
  }
  for (const [name, value] of Object.entries((request.image && request.form) || {})) {
    if (tooDeep(value)) {
      return { status: 400, body: { error: `form field '${name.slice(0, 40)}' is not valid JSON: ${nested}`,
                                    code: "bad_json" } };
    }
  }
  return null;
}

async function handle(request) {
  const { python, reader, sets } = await ready;
  const deep = deepRefusal(request);
  if (deep) return deep;
  let image = null;
  if (request.image) {
    // the file's format, size and end looked at first: nothing the server refuses is decoded
    const looked = await checkPhoto(request.image);
    if (looked.refusal) return looked.refusal;
    try {
      image = await decode(request.image, looked.scaleTo);
    } catch (e) {
      return { status: 400, body: { error: "the file is not an image this browser can open",
                                    code: "not_an_image" } };
    }
  }
  if (isSetPath(request.path)) {
    // set profiles: kept in IndexedDB by sets.js (not under /data: nothing to sync here). A
    // learn or add reads the set, reads the photo (seconds), then writes the set grown by it:
    // one at a time across the site's tabs (Web Locks), so two tabs' tiles are both kept
    const answerSets = () => sets.answer(request, image);
    const out = await (request.method === "POST" && self.navigator.locks
      ? self.navigator.locks.request("tilescope-sets", answerSets) : answerSets());
    if (out) return out;
  }
  let use = reader;
  // (a form without its photo: the Python's 422 first, as the server checks the photo first)
  if (request.form && request.image && READ_WITH_SET.has(request.path)) {
    const named = await sets.readerFor(request.form.set);
    if (named.refusal) return named.refusal;
    use = named.reader;
  }
  const out = usesData(request.path)
    ? await withData(python, request.method !== "GET", () => answerPhoto(request, image, use))
    : await answerPhoto(request, image, use);
  return { status: out.status, body: out.body };
}

// the routes that read or write /data (the games); the others never wait on IndexedDB
const usesData = (path) => path === "/api/games" || path.startsWith("/api/games/");

// Every tab of the site has its own worker and its own copy of the games at /data, and IDBFS's
// persist makes IndexedDB what that copy holds: it removes a game another tab wrote since this
// one read. So a request reads IndexedDB into /data first and (a write) puts it back after,
// under one lock that all the site's tabs share (the Web Locks API): no tab answers from, or
// writes back, a stale copy. Without Web Locks (not a secure context) the read first still
// narrows the window to one request's time.
function withData(python, writes, work) {
  if (!python.persistent) return work();
  const fresh = async () => {
    try {
      await syncfs(python.FS, true);
    } catch (e) {
      // a record IDBFS cannot read (edited by hand, a write cut short): the games cannot be
      // read whole, and a write would remove what was not read. The other routes still work.
      console.error(e);
      return { status: 503, body: { code: "storage_error", error: "this browser's storage of the "
        + `games could not be read (${String((e && e.message) || e).slice(0, 120)}): the games are not `
        + "answered; scoring photos and hands still works" } };
    }
    try {
      return await work();
    } finally {
      if (writes) await syncfs(python.FS, false);
    }
  };
  return self.navigator.locks ? self.navigator.locks.request("tilescope-data", fresh) : fresh();
}

// A request answered by the Python (vision.offline.api.answer) with the photo read by
// `reader` (the site's, or one with a set): {status, body, reads} (reads: the readings taken)
async function answerPhoto(request, image, reader) {
  const { python } = await ready;
  const reads = {};
  if (image) reads.read = await reader.read(image, {});
  // the body's `text` as it came (the Python reads it as the server does: a key given twice is
  // refused); `json`: null from the page
  const asked = { method: request.method, path: request.path, text: request.text,
                  json: request.json, form: request.form, reads };
  // undefined, not null, without a photo: Pyodide gives the Python None for undefined only
  const photo = image ? { width: image.width, height: image.height, ...photoColour(image) } : undefined;
  // the Python asks for a second look ({"look": "x"}) when the tiles first read do not add up
  for (let looks = 0; ; looks++) {
    const out = JSON.parse(python.answer(JSON.stringify(asked), photo));
    if (!out.look) return { status: out.status, body: out.body, reads };
    if (!image || looks > 4 || out.look in reads) {
      throw new Error(`the Python asked for a look it cannot have: ${out.look}`);
    }
    reads[out.look] = await reader.lookAgain(image, out.look);
  }
}

// one request at a time: Python and IndexedDB's sync are not to be interleaved
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  if (!data || data.type !== "request") return;
  queue = queue.then(async () => {
    let reply;
    try {
      reply = await handle(data.request);
    } catch (e) {
      console.error(e);
      const why = String((e && e.message) || e);
      if ((e && e.name === "QuotaExceededError") || why.includes("QuotaExceeded")) {
        // IndexedDB refused the write (a game's, a set's): the next request reads IndexedDB
        // again, so the change is gone from this page too; said so, not as a failure of the page
        reply = { status: 507, body: { code: "storage_full", error: "this browser's storage for the "
          + "page is full: what this request changed is not kept (free some space, or delete old "
          + "games or sets, then try again)" } };
      } else {
        reply = { status: 500, body: { error: `the offline page failed: ${why}`, code: "offline_error" } };
      }
    }
    self.postMessage({ type: "response", id: data.id, ...reply });
  });
};
