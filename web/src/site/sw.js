// The offline site's service worker: on install it keeps every file of the site (the list and
// the version, a hash of them all, are written into the line below by web/build.mjs), answers
// from what it kept first, and on activate drops what older versions kept. A new build is a
// new sw.js, which the browser installs beside the old one; the pages use it from their next
// load.
const SITE = { version: "dev", files: [] };

const CACHE = `tilescope-site-${SITE.version}`;
const BASE = new URL("./", self.location.href);       // the site's folder (may be a sub-path)

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // cache: "reload": from the host, not from the HTTP cache (which may hold an older build)
    await cache.addAll(SITE.files.map((f) => new Request(new URL(f, BASE), { cache: "reload" })));
    await self.skipWaiting();
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
