import { randomBytes } from "node:crypto";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A generated site: its folder and its files (path inside the site, size). */
export interface GeneratedSite {
  dir: string;
  files: { path: string; size: number }[];
  totalBytes: number;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run builds the same shape of site. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The mix of a built static site: many small pages, scripts and styles, fewer images and fonts, a
// few large images. Sizes are then scaled so the site holds exactly the bytes asked for.
const CLASSES = [
  { share: 0.5, min: 256, max: 4 * 1024, exts: ["html", "css", "js", "json", "svg"] },
  { share: 0.3, min: 4 * 1024, max: 20 * 1024, exts: ["js", "css", "html", "svg", "png"] },
  { share: 0.16, min: 20 * 1024, max: 64 * 1024, exts: ["png", "webp", "woff2", "js"] },
  { share: 0.04, min: 64 * 1024, max: 512 * 1024, exts: ["jpg", "webp", "png"] },
] as const;
const TEXT = new Set(["html", "css", "js", "json", "svg"]);
const FILES_PER_FOLDER = 100;

/**
 * Writes a site of `count` files holding `totalBytes` in all under `dir`, in folders of about 100
 * files, every file's content unique (random). Text types hold base64 text, the others raw bytes.
 * Modification times are set an hour back: a site built a while before it is deployed.
 */
export function generateSite(dir: string, count: number, totalBytes: number, seed: number): GeneratedSite {
  const random = seededRandom(seed);
  const planned: { path: string; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    let pick = random();
    const cls = CLASSES.find((c) => (pick -= c.share) < 0) ?? CLASSES[0];
    const ext = cls.exts[Math.floor(random() * cls.exts.length)]!;
    const size = Math.round(cls.min + random() * (cls.max - cls.min));
    const folder = Math.floor(i / FILES_PER_FOLDER);
    const path =
      i === 0 ? "index.html" : `assets/${String(folder % 10)}/${String(folder)}/file-${String(i)}.${ext}`;
    planned.push({ path, size });
  }
  const scale = totalBytes / planned.reduce((sum, file) => sum + file.size, 0);
  let total = 0;
  const files = planned.map((file, i) => {
    const size =
      i === planned.length - 1 ? Math.max(1, totalBytes - total) : Math.max(1, Math.round(file.size * scale));
    total += size;
    return { path: file.path, size };
  });
  const past = new Date(Date.now() - 3600_000);
  for (const file of files) {
    const abs = join(dir, file.path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content(file.path, file.size));
    utimesSync(abs, past, past);
  }
  return { dir, files, totalBytes: total };
}

/**
 * Rewrites a share of the site's files in place with new content of the same size, different files
 * each `round`; returns how many. Their modification time is now, as after a rebuild.
 */
export function changeFiles(site: GeneratedSite, share: number, round: number): number {
  const count = Math.max(1, Math.round(site.files.length * share));
  const stride = Math.floor(site.files.length / count);
  for (let i = 0; i < count; i++) {
    const file = site.files[(i * stride + round) % site.files.length]!;
    writeFileSync(join(site.dir, file.path), content(file.path, file.size));
  }
  return count;
}

function content(path: string, size: number): Buffer {
  const ext = path.slice(path.lastIndexOf(".") + 1);
  if (!TEXT.has(ext)) return randomBytes(size);
  return Buffer.from(
    randomBytes(Math.ceil((size * 3) / 4))
      .toString("base64")
      .slice(0, size),
    "latin1",
  );
}
