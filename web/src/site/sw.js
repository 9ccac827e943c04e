// The offline site's service worker: on install it keeps every file of the site (the list and
// the version, a hash of them all, are written into the line below by web/build.mjs), answers
// from what it kept first, and on activate drops what older versions kept. A new build is a
// new sw.js, which the browser installs beside the old one. It waits while a page of the old
// version is open (that page's worker and its lazy loads keep coming from the old cache, never
// a mix of old and new files): a page that loads alone asks it to take over, and reloads
// (local-api.js), before its own worker starts.
const SITE = { version: "dev", files: [] };

const CACHE = `tilescope-site-${SITE.version}`;
const BASE = new URL("./", self.location.href);       // the site's folder (may be a sub-path)

const AT_ONCE = 4;          // files fetched at a time while installing

// The first visit: the page starts its worker (Pyodide, onnxruntime, the weights: nearly all
// the bytes) only once this service worker controls it (local-api.js), so the worker's fetches
// are answered from here and every file is sent once. Meanwhile the page shows how far this
// install has got ({type: "tilescope-precache", done, total}, a file at a time).
self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const pages = await self.clients.matchAll({ includeUncontrolled: true, type: "window" });
    const tell = (done) => pages.forEach((p) => p.postMessage({ type: "tilescope-precache", done,
                                                                 total: SITE.files.length }));
    let next = 0, done = 0;
    tell(0);
    const fetchSome = async () => {
      while (next < SITE.files.length) {
        const req = new Request(new URL(SITE.files[next++], BASE), { cache: "reload" });
        // an install that failed part way (the network lost) left the files it had: this
        // version's cache holds the same files (the version is their hash), so they are kept
        if (!(await cache.match(req))) {
          // cache: "reload": from the host, not from the HTTP cache (which may hold an older build)
          const resp = await fetch(req);
          if (!resp.ok) throw new Error(`${req.url}: ${resp.status}`);
          await cache.put(req, resp);
        }
        tell(++done);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, fetchSome));
    // the first version takes the page at once; a newer one waits (above)
    if (!self.registration.active) await self.skipWaiting();
  })());
});

// a page asks the waiting version to take over: done only when no other page is open, whose
// files would then come from this version's cache, mixed with the old ones it has
self.addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "tilescope-take-over") return;
  event.waitUntil((async () => {
    const pages = await self.clients.matchAll({ type: "window" });
    if (pages.length <= 1) await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("tilescope-site-") && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET" || !req.url.startsWith(BASE.href)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // the site's address with a query (?pair=…, a shared link) is still its page
    const hit = await cache.match(req, { ignoreSearch: true });
    if (hit) return hit;
    return fetch(req);      // not part of the site: the network, as without a service worker
  })());
});
