// A photo looked at before the worker decodes it (worker.js), as the server's
// vision.read.imageio.decode_image looks at an upload: the file's format from its first bytes
// and its width and height from its header, so a decompression bomb (a 12000 × 12000 PNG of
// a few kB) or a 200-MP photo is refused before its pixels fill a phone's memory; an empty
// or truncated file, or a format the server does not read (GIF, SVG…), gets the server's code.
// (The server also decodes a baseline JPEG over the limit at 1/2, 1/4 or 1/8 scale; here it
// is decoded at that size, `scaleTo`.) Returns {refusal: {status, body}} or {scaleTo} (null:
// the photo as it is).

// vision/server/routes/state.py's Limits: max_upload_bytes, max_pixels (imageio.MAX_PIXELS),
// and imageio's MAX_FULL_PIXELS and JPEG_SCALES
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const MAX_PIXELS = 50_000_000;
const MAX_FULL_PIXELS = 256_000_000;
const JPEG_SCALES = [2, 4, 8];
const HEAD_BYTES = 256 * 1024;       // a JPEG's SOF is after its EXIF (a thumbnail): well within

const refuse = (status, code, error) => ({ refusal: { status, body: { error, code } } });
const NAME = "the upload";

function formatOf(b) {
  const at = (i, s) => [...s].every((c, k) => b[i + k] === c.charCodeAt(0));
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "JPEG";
  if (b[0] === 0x89 && at(1, "PNG\r\n\x1a\n")) return "PNG";
  if (at(0, "RIFF") && at(8, "WEBP")) return "WebP";
  if (at(0, "BM")) return "BMP";
  if (at(0, "II*\0") || at(0, "MM\0*")) return "TIFF";
  if (at(0, "GIF8")) return "GIF";
  if (at(4, "ftyp")) return at(8, "avif") ? "AVIF" : "HEIC";
  if (at(0, "%PDF")) return "PDF";
  return null;
}

// EXIF's orientation (1 to 8) in an APP1 segment at b[i], or 0
function exifOrientation(b, i) {
  const t = i + 10;                    // after the marker, the length and "Exif\0\0"
  if (String.fromCharCode(...b.subarray(i + 4, i + 8)) !== "Exif" || t + 8 > b.length) return 0;
  const v = new DataView(b.buffer, b.byteOffset + t, b.length - t);
  const le = b[t] === 0x49;
  const ifd = v.getUint32(4, le), n = v.getUint16(ifd, le);
  for (let k = 0; k < n; k++) {
    if (v.getUint16(ifd + 2 + 12 * k, le) === 0x0112) return v.getUint16(ifd + 2 + 12 * k + 8, le);
  }
  return 0;
}

// {w, h, sof, turned} from the JPEG's segments (the first SOF marker; turned: EXIF's
// orientation swaps width and height), or null
function jpegFrame(b) {
  let i = 2, turned = false;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) { i++; continue; }
    const m = b[i + 1];
    if (m === 0xff || m === 0x01 || (m >= 0xd0 && m <= 0xd8)) { i++; continue; }   // fill, standalone
    if (m === 0xda || m === 0xd9) return null;          // the scan before any frame
    const len = (b[i + 2] << 8) | b[i + 3];
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc && i + 8 < b.length) {
      return { h: (b[i + 5] << 8) | b[i + 6], w: (b[i + 7] << 8) | b[i + 8], sof: m, turned };
    }
    if (m === 0xe1) { try { turned = exifOrientation(b, i) >= 5; } catch (e) { /* no EXIF read */ } }
    i += 2 + len;
  }
  return null;
}

function size(b, fmt) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    if (fmt === "PNG") return { w: v.getUint32(16), h: v.getUint32(20) };
    if (fmt === "BMP") return { w: Math.abs(v.getInt32(18, true)), h: Math.abs(v.getInt32(22, true)) };
    if (fmt === "WebP") {
      const kind = String.fromCharCode(b[12], b[13], b[14], b[15]);
      if (kind === "VP8X") return { w: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)),
                                    h: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)) };
      if (kind === "VP8L") { const x = v.getUint32(21, true);
                             return { w: 1 + (x & 0x3fff), h: 1 + ((x >> 14) & 0x3fff) }; }
      if (kind === "VP8 ") return { w: v.getUint16(26, true) & 0x3fff, h: v.getUint16(28, true) & 0x3fff };
    }
    if (fmt === "JPEG") return jpegFrame(b);
  } catch (e) {
    return null;      // a header cut short: decode_image's "does not say the image's size"
  }
  return null;
}

// the image's end: a PNG's IEND chunk; a JPEG's EOI after its first scan (bytes after it, a
// phone's Motion Photo video, are not the image's). The others count as whole, as the server's.
function complete(b, fmt) {
  if (fmt === "PNG") {
    for (let i = 8; i + 8 <= b.length;) {
      const len = new DataView(b.buffer, b.byteOffset + i, 4).getUint32(0);
      if (String.fromCharCode(b[i + 4], b[i + 5], b[i + 6], b[i + 7]) === "IEND") return true;
      i += 12 + len;
    }
    return false;
  }
  if (fmt === "JPEG") {
    let end = b.length;
    while (end > 0 && b[end - 1] === 0) end--;
    if (b[end - 2] === 0xff && b[end - 1] === 0xd9) return true;
    for (let i = 2; i + 1 < end; i++) if (b[i] === 0xff && b[i + 1] === 0xd9) return true;
    return false;
  }
  return true;
}

export async function checkPhoto(blob) {
  if (!blob.size) return refuse(400, "empty_file", "the uploaded file is empty");
  if (blob.size > MAX_UPLOAD_BYTES) {
    return refuse(413, "file_too_large", `upload is over the limit of ${MAX_UPLOAD_BYTES.toLocaleString("en-US")} bytes`);
  }
  const head = new Uint8Array(await blob.slice(0, HEAD_BYTES).arrayBuffer());
  const fmt = formatOf(head);
  if (!fmt) return refuse(400, "not_an_image", `${NAME}: not an image (expected JPEG, PNG, WebP, BMP or TIFF)`);
  if (!["JPEG", "PNG", "WebP", "BMP"].includes(fmt)) {
    // TIFF: the server reads it, a browser cannot decode it
    return refuse(400, "not_an_image", `${NAME}: a ${fmt} file, which ${fmt === "TIFF" ? "this page" : "tilescope"} `
                  + "cannot read: save the photo as JPEG or PNG");
  }
  const s = size(head, fmt);
  if (!s && fmt !== "JPEG") {
    return refuse(400, "not_an_image", `${NAME}: the ${fmt} header does not say the image's width and height `
                  + "as whole numbers (not decoded)");
  }
  // the end is looked for in the whole file: the page has it in memory already (≤ 20 MB)
  const all = blob.size > head.length ? new Uint8Array(await blob.arrayBuffer()) : head;
  if (!complete(all, fmt)) {
    return refuse(400, "not_an_image", `${NAME}: truncated ${fmt} file (the end of the image is missing)`);
  }
  if (!s) return { scaleTo: null };
  const { w, h } = s;
  if (!w || !h) return refuse(400, "not_an_image", `${NAME}: empty image (${w}x${h} px)`);
  if (w * h <= MAX_PIXELS) return { scaleTo: null };
  const sequential = fmt === "JPEG" && [0xc0, 0xc1].includes(s.sof);
  const scale = JPEG_SCALES.find((k) => Math.ceil(w / k) * Math.ceil(h / k) <= MAX_PIXELS);
  if (sequential && scale && w * h <= MAX_FULL_PIXELS) {
    // createImageBitmap sizes the image as it is shown (EXIF's rotation applied)
    const [sw, sh] = [Math.ceil(w / scale), Math.ceil(h / scale)];
    return { scaleTo: s.turned ? { width: sh, height: sw } : { width: sw, height: sh } };
  }
  const mp = (n) => (n / 1e6).toFixed(1);
  const also = fmt !== "JPEG" ? ""
    : sequential ? `; a baseline JPEG up to ${MAX_FULL_PIXELS / 1e6} MP is read at down to 1/8 scale`
    : "; a progressive JPEG is not read smaller: save it as a baseline JPEG or smaller";
  return refuse(413, "too_many_pixels", `${NAME}: image too large (${w}x${h} = ${mp(w * h)} MP, `
                + `limit ${mp(MAX_PIXELS)} MP${also})`);
}
