// Set profiles in the offline page (docs/sets.md, issue #43): /api/sets, /api/set/learn,
// /api/set/add and /api/set/undo answered as `tilescope serve` answers them
// (vision/server/routes/sets.py), and the reader a request's `set` field names.
//
// Who does what: every rule and every answer is the project's Python, vision.offline.sets,
// called synchronously through Pyodide with plain values (`rule(name, args, kwargs)`): the
// name check, the sheet's kinds, when the count matches, the sheet order, the judgement, the
// room left, the answers, the tile a correction adds, the undo's refusals. The pictures are
// the browser reader's (web/src/reader): reading without a set at the sheet thresholds,
// classify, the reference crops, embed, reference_probs, calibrate.
//
// The sets are kept in IndexedDB (database "tilescope-sets", one record per name): the
// profile as tileset.js's JSON (profileToJson: kinds, crops, embeddings, model, calibration,
// sources) and a version that changes with every write, which the readers kept here go by.
// Embeddings are kept rounded to float16 and the calibration as its meta (rounded), as the
// server's .npz keeps them, so a set read back here is what the server reads back from its file.

const DB_NAME = "tilescope-sets";
const STORE = "sets";
const KEEP_READERS = 8;      // readers with a set kept at once (the server keeps 16; a phone has less memory)

// ---- float16, as numpy's astype(np.float16) (round to nearest, ties to even) ----
function f16round(x) {
  if (typeof Math.f16round === "function") return Math.f16round(x);
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  const ulp = 2 ** (Math.max(e, -14) - 10);       // 10 bits of mantissa; subnormals below 2^-14
  const q = a / ulp;
  let r = Math.round(q);
  if (r - q === 0.5 && r % 2 === 1) r -= 1;       // Math.round takes halves up: ties to even
  return Math.sign(x) * r * ulp;
}

// ---- the store: IndexedDB, or the page's memory where the browser has none (private mode) ----
class SetStore {
  static async open() {
    try {
      const db = await new Promise((resolve, reject) => {
        const req = indexedDB.open(DB_NAME, 1);
        req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "name" });
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      return new SetStore(db);
    } catch (e) {
      console.warn("tilescope: sets are not kept after this page closes:", e);
      return new SetStore(null);
    }
  }

  constructor(db) {
    this.db = db;
    this.memory = new Map();
  }

  _run(mode, work) {
    return new Promise((resolve, reject) => {
      const tx = this.db.transaction(STORE, mode);
      const req = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  }

  // every record, by name (IndexedDB's key order; names are ASCII, so as Python's sorted())
  async all() {
    if (!this.db) return [...this.memory.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return this._run("readonly", (s) => s.getAll());
  }

  async get(name) {
    if (!this.db) return this.memory.get(name) || null;
    return (await this._run("readonly", (s) => s.get(name))) || null;
  }

  async put(record) {
    if (!this.db) { this.memory.set(record.name, record); return; }
    await this._run("readwrite", (s) => s.put(record));
  }
}

// ---- the sets' part of the worker ----
// `python.setRule(name, argsJson, kwargsJson)`: vision.offline.sets' function's answer as JSON.
// `reader`: the site's TileReader. `scorePhoto(request, image, reader)`: /api/score's answer
// ({status, body} and the readings taken) for a request, read with `reader`.
export async function startSets({ python, reader, scorePhoto }) {
  const store = await SetStore.open();
  // the reader's set code: a stand-in reader (web/test/fixture-reader.js) has none
  let lib = null;
  if (reader.classifier && reader.embeds) {
    const [learning, tileset, classify] = await Promise.all([
      import("./reader/set_learning.js"), import("./reader/tileset.js"), import("./reader/classify.js")]);
    lib = { ...learning, ...tileset, ...classify };
  }
  const readers = new Map();      // set name -> {version, reader}
  const rule = (name, args = [], kwargs = {}) =>
    JSON.parse(python.setRule(name, JSON.stringify(args), JSON.stringify(kwargs)));

  // as SetStore.base_reader: a reader that cannot learn or read with a set
  const noSets = { status: 503, body: { error: "this server's tile reader cannot learn or read with a set",
                                        code: "no_sets" } };

  // A record tileset.js cannot read (edited by hand, a write cut short, another build's):
  // the request that needs it is refused in words that name it, not with a crash, and the
  // other sets still work. (The server has no such answer: its files are its own.)
  class DamagedSet extends Error {
    constructor(name, cause) {
      super(String((cause && cause.message) || cause));
      this.refusal = { status: 409, body: { code: "damaged_set", error:
        `set '${String(name).slice(0, 40)}' is damaged in this browser's storage (${this.message.slice(0, 120)}): `
        + "learn it again under a new name" } };
    }
  }
  const profileOf = (record) => {
    try {
      const profile = lib.profileFromJson(record.profile);
      const n = profile.kinds.length;
      // (a set undone to no references is kept with no crops: null)
      if ((profile.crops ? profile.crops.length : 0) % Math.max(n, 1) || profile.embeddings.length !== n * profile.dim) {
        throw new Error("its references, crops and embeddings do not match");
      }
      return profile;
    } catch (e) {
      throw e instanceof DamagedSet ? e : new DamagedSet(record.name, e);
    }
  };
  const empty = (name) => ({ name, kinds: [], embeddings: new Float32Array(0), dim: 0,
                             crops: new Uint8Array(0), model: reader.modelId, sources: [],
                             calibration: null });
  const held = (profile) => new Set(profile.kinds).size;      // TileSet.held()

  async function save(profile) {
    const kept = { ...profile, embeddings: profile.embeddings.map(f16round) };
    // a version per write (two tabs may write the same set: a count would repeat)
    const version = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    await store.put({ name: profile.name, version, references: kept.kinds.length, kinds: held(kept),
                      profile: lib.profileToJson(kept) });
    readers.delete(profile.name);
  }

  // a set learned by another classifier is embedded anew (learn_sheet, learn_tile)
  async function ownModel(base) {
    if (base.model === reader.modelId) return base;
    return base.kinds.length ? (await lib.prepareSet(reader, base)).tileset : empty(base.name);
  }

  // TileSet.added: these references after the present ones (the calibration is decided after)
  async function added(base, kinds, crops, sources) {
    const { embeddings, dim } = await lib.embed(reader, crops);
    const joined = (a, b, Type) => {
      const out = new Type(a.length + b.length);
      out.set(a);
      out.set(b, a.length);
      return out;
    };
    return { name: base.name, kinds: [...base.kinds, ...kinds], dim,
             embeddings: joined(base.embeddings, embeddings, Float32Array),
             crops: joined(base.crops, crops, Uint8Array), model: reader.modelId,
             sources: [...(base.sources || []), ...sources], calibration: null };
  }

  // The reader for a request's `set` (SetStore.reader_for): the site's own without one; a set
  // is made ready once per version (its altered looks embedded). {reader} or {refusal}.
  async function readerFor(name) {
    if (name === undefined || name === null || name === "") return { reader };
    const bad = rule("check_name", [name]);
    if (bad) return { refusal: bad };
    const record = await store.get(name);
    if (!record) return { refusal: rule("unknown_set", [name, (await store.all()).map((r) => r.name)]) };
    if (!lib) return { refusal: noSets };
    const kept = readers.get(name);
    if (kept && kept.version === record.version) {
      readers.delete(name); readers.set(name, kept);       // the most recently used last
      return { reader: kept.reader };
    }
    let withSet;
    try {
      withSet = await reader.withSet(profileOf(record));
    } catch (e) {
      return { refusal: (e instanceof DamagedSet ? e : new DamagedSet(name, e)).refusal };
    }
    readers.set(name, { version: record.version, reader: withSet });
    while (readers.size > KEEP_READERS) readers.delete(readers.keys().next().value);
    return { reader: withSet };
  }

  // /api/set/learn: vision.read.set_learning.learn_sheet, its rules in Python
  async function learn(form, image, fileName) {
    const asked = rule("sheet_request", [form]);
    if (asked.status) return asked;
    if (!lib) return noSets;
    const name = form.name, kinds = asked.kinds;
    // a form's true, as the server's (pydantic's) bool reads it
    const trustOrder = ["1", "true", "t", "yes", "y", "on"]
      .includes(String(form.trust_order || "").trim().toLowerCase());
    const record = await store.get(name);
    const into = record ? profileOf(record) : empty(name);
    const full = rule("room", [name, into.kinds.length, kinds.length]);
    if (full) return full;
    // the sheet is read without a set, at the reader's threshold, then at each of the sheet
    // thresholds while the count is not the sheet's (the user said how many tiles there are)
    const plain = await reader.withSet(null);
    let reading = await plain.read(image);
    for (const conf of rule("sheet_thresholds")) {
      if (rule("count_matches", [reading, kinds])) break;
      const other = Object.assign(Object.create(Object.getPrototypeOf(plain)), plain, { conf });
      const again = await other.read(image);
      if (rule("count_matches", [again, kinds])) reading = again;
    }
    const ordered = rule("order_sheet", [reading, kinds]);
    if (ordered.status) return ordered;
    const boxes = ordered.reading.tiles.map((t) => t.box);
    const probs = await lib.classify(plain, image, boxes);      // the classifier alone judges the sheet
    const judged = rule("judge_sheet", [ordered.reading, kinds, probs.map((p) => Array.from(p)), trustOrder]);
    if (judged.status) return judged;
    const crops = lib.referenceCrops(image, boxes, reader.cropSize);
    // the server's source: "web " and the upload's file name (its last part, 60 characters)
    const source = `web ${String(fileName || "").split("/").pop().slice(0, 60) || "upload"}`;
    const base = await ownModel(into);
    const grown = await added(base, kinds, crops, kinds.map((_, i) => `${source} #${i + 1}`));
    const learned = await lib.calibrated(reader, grown);
    await save(learned);
    return rule("learned_answer", [name, learned.kinds.length, held(learned), kinds.length, judged]);
  }

  // The box the reader gave for a tile of /api/score's answer (which rounds boxes to 0.1
  // pixel): the server cuts the reference from the layout's own box, unrounded
  function readerBox(reads, box) {
    let best = null, bestGap = 0.051;
    for (const reading of Object.values(reads)) {
      for (const t of (reading && reading.tiles) || []) {
        const gap = Math.max(...t.box.map((v, i) => Math.abs(v - box[i])));
        if (gap <= bestGap) { best = t.box; bestGap = gap; }
      }
    }
    return best || box;
  }

  // /api/set/add: the photo scored as /api/score scores it (with the set it names, or the one
  // added to), then tile n's picture added to the named set as `tile`
  async function add(request, image) {
    const form = request.form || {};
    const bad = rule("check_name", [form.name]);
    if (bad) return bad;
    // the tile code and n, refused before the photo is read (as the server's route does)
    const early = rule("tile_to_add", [{ tiles: [] }, form.n, form.tile, {}]);
    if (early.status && early.body.code !== "no_such_tile") return early;
    if (!lib) return noSets;
    const name = form.name;
    let record = await store.get(name);
    const readWith = form.set || (record ? name : null);
    const using = await readerFor(readWith);
    if (using.refusal) return using.refusal;
    const scored = await scorePhoto({ ...request, path: "/api/score" }, image, using.reader);
    if (scored.status !== 200) return { status: scored.status, body: scored.body };
    const picked = rule("tile_to_add", [scored.body, form.n, form.tile, rule("fixed_numbers", [form.fixes ?? null])]);
    if (picked.status) return picked;
    record = await store.get(name);
    const into = record ? profileOf(record) : empty(name);
    const full = rule("room", [name, into.kinds.length, 1]);
    if (full) return full;
    const box = readerBox(scored.reads, picked.tile.box);
    const crops = lib.referenceCrops(image, [box], reader.cropSize);
    const grown = await added(await ownModel(into), [picked.code], crops, [`web fix ${picked.n}=${picked.code}`]);
    const learned = await lib.calibrated(reader, grown);          // learn_tile's `calibrated`
    await save(learned);
    return rule("change_answer", [name, learned.kinds.length, held(learned)], { tile: picked.code, n: picked.n });
  }

  // /api/set/undo: the set without its last reference. As the server's _undo: TileSet.without_last
  // keeps no calibration and the file is saved so; the reader that reads with it decides it
  // anew from all its references (TileReader.with_set -> calibrated; prepareSet here). So the
  // profile is kept without one, and the next reading calibrates it exactly as the server's.
  async function undo(form) {
    const name = form.name;
    const bad = rule("check_name", [name]);
    if (bad) return bad;
    const record = await store.get(name);
    if (!record) return rule("unknown_set", [name]);
    if (!lib) return noSets;
    const ts = profileOf(record);
    const refused = rule("undo_refused", [name, ts.kinds.length, form.expect ?? null]);
    if (refused) return refused;
    const keep = ts.kinds.length - 1, dropped = ts.kinds[keep];
    const without = { ...ts, kinds: ts.kinds.slice(0, keep), sources: ts.sources.slice(0, keep),
                      crops: ts.crops.slice(0, keep * ts.crops.length / ts.kinds.length),
                      embeddings: ts.embeddings.slice(0, keep * ts.dim), calibration: null };
    if (!keep) without.dim = 0;
    await save(without);
    return rule("change_answer", [name, keep, held(without)], { tile: dropped });
  }

  async function list() {
    const sets = (await store.all()).map((r) => ({ name: r.name, references: r.references, kinds: r.kinds }));
    return rule("sets_answer", [sets]);
  }

  // the set routes: {status, body}, or null for a path that is not one of them. `image`: the
  // photo decoded (the worker answers a file it cannot decode before asking here)
  async function answer(request, image) {
    const { method, path } = request;
    const form = request.form || {};
    if (method === "GET" && path === "/api/sets") return list();
    if (method !== "POST") return null;
    const photoFirst = path === "/api/set/learn" || path === "/api/set/add";
    if (photoFirst && !request.image) {
      // the server's words for a form without its photo (vision/server/routes/errors.py; it
      // also names any other required field missing, which this does not)
      const names = Object.keys(form).slice(0, 5).map((k) => `'${k.slice(0, 40)}'`);
      return { status: 422, body: { code: "invalid_request", error: "image: the photo goes in the form "
        + "field 'image' (curl -F image=@photo.jpg)"
        + (names.length ? `; this form's fields are ${names.join(", ")}` : "; this form has none") } };
    }
    try {
      if (path === "/api/set/learn") return await learn(form, image, request.image.name);
      if (path === "/api/set/add") return await add(request, image);
      if (path === "/api/set/undo") return await undo(form);
    } catch (e) {
      if (e instanceof DamagedSet) return e.refusal;
      throw e;
    }
    return null;
  }

  return { answer, readerFor };
}
