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

/** The media type for a path, by its extension. */
export function mediaTypeFor(path: string): string {
  return TYPES[posix.extname(path).slice(1).toLowerCase()] ?? DEFAULT_MEDIA_TYPE;
}

/** True for media types worth compressing (text and text-like formats). */
export function isCompressible(mediaType: string): boolean {
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
