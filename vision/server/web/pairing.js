// tilescope pages that change something (the phone page, the table, the stream's control page):
// pairing with a server reachable from the network, which takes changes only from paired phones.
"use strict";

// 401 pairing_needed: the server is reachable from the network and takes changes only from
// paired phones; the code printed where it runs is asked once (its cookie pairs this phone)
async function pair() {
  const code = window.prompt("Pairing code (shown where tilescope runs):");
  if (!code) return false;
  return sendPairing(code);
}

async function sendPairing(code) {
  const r = await fetch("/api/pair", { method: "POST", headers: { "Content-Type": "application/json" },
                                        body: JSON.stringify({ code: code.trim() }) });
  return r.ok;
}

// ?pair=CODE (the QR code printed where tilescope runs): this phone is paired as the page
// opens, and the code is taken out of the address (not kept in its history or shared on)
const pairedByLink = (async () => {
  const url = new URL(window.location.href);
  const code = url.searchParams.get("pair");
  if (code === null) return false;
  url.searchParams.delete("pair");
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  return sendPairing(code).catch(() => false);
})();
