// The offline site's stand-in for tilescope's server: loaded before the pages' own scripts, it
// answers their fetch() calls to /api/... (absolute paths, as the server's pages make them) in
// this browser, by the worker (worker.js: the project's Python in Pyodide and the tile reader).
// Every other fetch goes to the network as before. It also registers the service worker that
// keeps the site for use offline, and shows "getting ready… N%" while the worker loads.
"use strict";

(() => {
  const SITE = new URL(".", document.currentScript.src);    // the site's folder (may be a sub-path)
  const realFetch = window.fetch.bind(window);
  const waiting = new Map();      // request id -> {resolve, reject}
  const MAX_BODY_BYTES = 1024 * 1024;       // vision/server/routes/state.py's Limits.max_body_bytes
  let nextId = 1;

  // ---- the "getting ready" line, and a hook for tests: window.tilescopeOffline ----
  // timings: ms from this script's start to each step the worker finished (first-load cost)
  const offline = { state: "loading", percent: 0, reader: null, error: null, timings: {} };
  offline.ready = new Promise((resolve, reject) => { offline.settle = { resolve, reject }; });
  offline.ready.catch(() => {});
  window.tilescopeOffline = offline;
  const banner = document.createElement("p");
  banner.id = "offline-ready";
  banner.setAttribute("role", "status");
  banner.style.cssText = "position:sticky;top:0;margin:0;padding:.4em .8em;z-index:10;" +
                         "background:#fff3c4;color:#333;font:14px system-ui,sans-serif";
  banner.textContent = "Getting ready… 0%";
  const showBanner = () => document.body.prepend(banner);
  if (document.body) showBanner(); else document.addEventListener("DOMContentLoaded", showBanner);

  const onMessage = ({ data }) => {
    if (data.type !== "response") offline.timings[data.stage || data.type] = Math.round(performance.now());
    if (data.type === "progress") {
      offline.percent = data.percent;
      banner.textContent = `Getting ready… ${data.percent}%`;
    } else if (data.type === "ready") {
      Object.assign(offline, { state: "ready", percent: 100, reader: data.reader });
      banner.remove();
      offline.settle.resolve(offline);
    } else if (data.type === "failed") {
      Object.assign(offline, { state: "failed", error: data.error });
      banner.textContent = `This page could not start: ${data.error}`;
      banner.style.background = "#f8d0d0";
      offline.settle.reject(new Error(data.error));
    } else if (data.type === "response") {
      const w = waiting.get(data.id);
      waiting.delete(data.id);
      if (w) w.resolve(new Response(JSON.stringify(data.body), {
        status: data.status, headers: { "Content-Type": "application/json" } }));
    }
  };
  const onError = (e) => {
    // a worker that cannot even load (a file missing from the site) fails every request
    const error = e.message || "the page's worker did not load";
    Object.assign(offline, { state: "failed", error });
    banner.textContent = `This page could not start: ${error}`;
    offline.settle.reject(new Error(error));
    for (const w of waiting.values()) w.reject(new TypeError(error));
    waiting.clear();
  };

  // ---- fetch: same-origin /api/... to the worker, the rest to the network ----
  function apiPath(url) {
    if (url.origin !== location.origin) return null;
    // the pages ask for /api/x; a site under a sub-path may see its own prefix/api/x too
    if (url.pathname.startsWith("/api/")) return url.pathname;
    const base = SITE.pathname;
    if (url.pathname.startsWith(base + "api/")) return url.pathname.slice(base.length - 1);
    return null;
  }

  async function asRequest(req, path) {
    // the request as vision.offline.api.answer takes it: multipart string fields in `form`, the
    // photo (a file field) kept aside as a Blob; another body as `text`
    const out = { method: req.method, path, text: null, json: null, form: null, image: null };
    if (req.method === "GET" || req.method === "HEAD") return out;
    const type = (req.headers.get("Content-Type") || "").toLowerCase();
    if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
      out.form = {};
      for (const [name, value] of (await req.formData()).entries()) {
        if (typeof value === "string") out.form[name] = value;
        else if (name === "image") out.image = value;
      }
    } else {
      // the body as the server bounds it (Limits.max_body_bytes): a bigger one is not read
      // into the worker. Only its text goes: the Python parses it as the server does (a body
      // parsed here, nested thousands deep, could not even be posted to the worker)
      const body = await req.arrayBuffer();
      if (body.byteLength > MAX_BODY_BYTES) {
        out.refusal = { error: `request body is over the limit of ${MAX_BODY_BYTES.toLocaleString("en-US")} `
                               + "bytes for this route", code: "file_too_large" };
      }
      out.text = new TextDecoder().decode(body);
    }
    return out;
  }

  window.fetch = async function fetch(input, init) {
    const req = new Request(input, init);
    const path = apiPath(new URL(req.url));
    if (path === null) return realFetch(input, init);
    if (req.signal && req.signal.aborted) throw new DOMException("aborted", "AbortError");
    const request = await asRequest(req, path);
    if (request.refusal) {
      return new Response(JSON.stringify(request.refusal), {
        status: 413, headers: { "Content-Type": "application/json" } });
    }
    const id = nextId++;
    const answer = new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      if (req.signal) {     // the page gave up (a newer photo): its answer is not waited for
        req.signal.addEventListener("abort", () => {
          waiting.delete(id);
          reject(new DOMException("aborted", "AbortError"));
        });
      }
    });
    (await worker).postMessage({ type: "request", id, request });
    return answer;
  };

  // ---- the service worker: every file of the site kept, so a reload works offline ----
  // On the first visit the service worker's install downloads every file of the site; the
  // worker's own loading would download the big ones (Pyodide, onnxruntime, the weights) a
  // second time beside it, from the network: the first visit sent 69 MB for a 45 MB site. So
  // the worker starts once the service worker controls the page: its fetches are then answered
  // from the files just kept, and each file is sent once. Later visits are controlled from the
  // start (and work offline); without a service worker (not a secure context, none allowed, an
  // install that failed, a forced reload past it) the worker loads from the network as before.
  function keptFirst() {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return Promise.resolve();
    const sw = navigator.serviceWorker;
    const registered = sw.register(new URL("sw.js", SITE), { scope: SITE.pathname })
      .catch((e) => { console.warn("tilescope: not kept for offline use:", e); return null; });
    if (sw.controller) {
      // a newer build installed and waiting (sw.js): this page alone asks it to take over and
      // reloads, before its worker starts, so every file comes from one version
      return registered.then((reg) => {
        if (!reg || !reg.waiting || !reg.active) return;
        return new Promise((resolve) => {
          sw.addEventListener("controllerchange", () => location.reload(), { once: true });
          reg.waiting.postMessage({ type: "tilescope-take-over" });
          setTimeout(resolve, 1000);      // other pages open: this one goes on with the old version
        });
      });
    }
    return new Promise((resolve) => {
      sw.addEventListener("controllerchange", () => resolve(), { once: true });
      sw.addEventListener("message", ({ data }) => {
        if (data && data.type === "tilescope-precache" && offline.state === "loading") {
          banner.textContent = `Getting ready… keeping the page for offline use (${data.done} of ${data.total} files)`;
        }
      });
      registered.then((reg) => {
        const installing = reg && (reg.installing || reg.waiting);
        if (!installing) { resolve(); return; }    // none, or kept already but not this page's
        installing.addEventListener("statechange", () => {
          if (installing.state === "redundant") resolve();     // the install failed
        });
      });
    });
  }

  const worker = keptFirst().then(() => {
    const w = new Worker(new URL("worker.js", SITE), { type: "module" });
    w.onmessage = onMessage;
    w.onerror = onError;
    return w;
  });
})();
