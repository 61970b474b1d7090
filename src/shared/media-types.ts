import { posix } from "node:path";

/** Media types by extension for what static sites hold; anything else is served as bytes. */
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  cjs: "text/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  map: "application/json; charset=utf-8",
  webmanifest: "application/manifest+json; charset=utf-8",
  xml: "application/xml; charset=utf-8",
  rss: "application/rss+xml; charset=utf-8",
  atom: "application/atom+xml; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  bmp: "image/bmp",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  eot: "application/vnd.ms-fontobject",
  wasm: "application/wasm",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  mp4: "video/mp4",
  webm: "video/webm",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
};

const DEFAULT_MEDIA_TYPE = "application/octet-stream";

/** TYPES as a map: a plain object's lookup found `constructor` and `__proto__` (a path `/a.constructor`). */
const BY_EXTENSION = new Map(Object.entries(TYPES));

/** The media type for a path, by its extension. */
export function mediaTypeFor(path: string): string {
  return BY_EXTENSION.get(extensionOf(path).toLowerCase()) ?? DEFAULT_MEDIA_TYPE;
}

/**
 * `posix.extname(path)` without its dot: what follows the last dot of the last segment, unless
 * that dot starts it. Read here directly: extname was a tenth of a 100,000-path prepare's time on
 * the service's thread (twice a path). A path ending in `/` (no manifest path does) goes to extname.
 */
function extensionOf(path: string): string {
  const slash = path.lastIndexOf("/");
  if (slash === path.length - 1 && path.length > 0) return posix.extname(path).slice(1);
  const dot = path.lastIndexOf(".");
  return dot > slash + 1 ? path.slice(dot + 1) : "";
}

/** Whether each media type a path may get (mediaTypeFor) is compressible, judged once. */
const COMPRESSIBLE = new Map(
  [...BY_EXTENSION.values(), DEFAULT_MEDIA_TYPE].map((type) => [type, judgeCompressible(type)]),
);

/** True for media types worth compressing (text and text-like formats). */
export function isCompressible(mediaType: string): boolean {
  return COMPRESSIBLE.get(mediaType) ?? judgeCompressible(mediaType);
}

function judgeCompressible(mediaType: string): boolean {
  const type = mediaType.split(";")[0]!.trim().toLowerCase();
  return (
    type.startsWith("text/") ||
    type === "image/svg+xml" ||
    type === "application/wasm" ||
    type === "image/x-icon" ||
    type === "image/bmp" ||
    type === "font/ttf" ||
    type === "font/otf" ||
    type === "application/vnd.ms-fontobject" ||
    /^application\/([a-z.+-]+\+)?(json|xml|javascript)$/.test(type) ||
    type === "application/manifest+json"
  );
}
