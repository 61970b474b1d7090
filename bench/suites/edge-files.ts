import { randomBytes } from "node:crypto";

/** The three files of benchmark 1: a small page, a script, an image. */
export interface ServedFile {
  label: string;
  /** Where the file is in the site's folder. */
  path: string;
  /** What is requested: the page at `/`, its canonical URL (the edge answers /index.html with a 308). */
  url: string;
  bytes: Buffer;
}

function text(size: number, line: string): Buffer {
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size), "utf8");
}

/** A 2 KB HTML page, a 60 KB script and a 1 MB JPEG-sized image of random bytes. */
export function servedFiles(): ServedFile[] {
  const html = `<!doctype html>\n<html><head><title>bench</title></head><body>\n${"<p>Hello from the bench.</p>\n".repeat(80)}`;
  return [
    { label: "2 KB HTML", path: "/index.html", url: "/", bytes: text(2 * 1024, html) },
    {
      label: "60 KB JS",
      path: "/app.js",
      url: "/app.js",
      bytes: text(60 * 1024, "export function f(a, b) { return a + b * 2; }\n"),
    },
    { label: "1 MB image", path: "/hero.jpg", url: "/hero.jpg", bytes: randomBytes(1_000_000) },
  ];
}
