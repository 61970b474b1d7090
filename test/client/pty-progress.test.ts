import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { BIN, startTestBed, writeSite, type TestBed } from "./helpers.js";

// Issue 35: "progress frames checked in a pseudo-terminal". The built client runs under a real pty
// (util-linux `script`), so what is checked is what a terminal receives: carriage returns, line
// clears and all, as they arrive.

const FILES = 400;
/** Each file this size and of its own content: bytes sent are the files sent times this. */
const FILE_BYTES = 16 * 1024;
const KIB = 1024;

/** What the terminal received: each chunk with when it arrived (ms from the first). */
interface Chunk {
  at: number;
  text: string;
}

/** One drawing of the live line, or one line written for good, with when it arrived. */
interface Frame {
  at: number;
  text: string;
}

/** Runs the built client with `argv` in a pseudo-terminal 160 columns wide, recording what it drew. */
function runInPty(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; chunks: Chunk[] }> {
  const words = [process.execPath, BIN, ...argv].map((word) => `'${word.replaceAll("'", "'\\''")}'`);
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qfec", `stty cols 160 rows 40; exec ${words.join(" ")}`, "/dev/null"], {
      env: { ...env, TERM: "xterm" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const started = Date.now();
    const chunks: Chunk[] = [];
    const keep = (chunk: Buffer) => chunks.push({ at: Date.now() - started, text: chunk.toString("utf8") });
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, chunks }));
  });
}

/** The frames in what a terminal received: split where the line is redrawn or ended, colours dropped. */
function framesOf(chunks: Chunk[]): Frame[] {
  const frames: Frame[] = [];
  for (const chunk of chunks) {
    // eslint-disable-next-line no-control-regex
    const plain = chunk.text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
    for (const text of plain.split(/\r\n|\r|\n/)) if (text.trim() !== "") frames.push({ at: chunk.at, text });
  }
  return frames;
}

/** Bytes that `formatBytes` shows as `text` ("12.5 KiB"), and how far off its rounding may be. */
function shownBytes(text: string): { bytes: number; within: number } {
  const [, value, unit] = /^([\d.]+) (B|KiB|MiB)$/.exec(text)!;
  const scale = { B: 1, KiB: KIB, MiB: KIB * KIB }[unit as "B" | "KiB" | "MiB"];
  // Half a shown step either way; a value exactly half a step off (1.25 MiB shown as 1.3) is on the
  // bound, which the float products 1.3 * 2^20 and 0.05 * 2^20 miss by 1e-10: a billionth of slack.
  const within = unit === "B" ? 0.5 : 0.05 * scale * (1 + 1e-9);
  return { bytes: Number(value) * scale, within };
}

/** A counted frame: `Label [bar] files/total files · bytes/total[ · rate][ · ETA …]`. */
const COUNTED =
  /^(Hashing|Uploading)\s+\[[#-]+\] (\d+)\/(\d+) files · ([\d.]+ (?:B|KiB|MiB))\/([\d.]+ (?:B|KiB|MiB))(.*)$/;

/** An ETA of `formatDuration` in milliseconds. */
function etaMs(text: string): number | undefined {
  const match = /ETA (?:(\d+)m(\d+)s|([\d.]+)s|(\d+)ms)/.exec(text);
  if (!match) return undefined;
  if (match[1] !== undefined) return (Number(match[1]) * 60 + Number(match[2])) * 1000;
  if (match[3] !== undefined) return Number(match[3]) * 1000;
  return Number(match[4]);
}

let bed: TestBed;
beforeAll(async () => {
  const script = spawnSync("script", ["--version"], { encoding: "utf8" });
  if (script.error !== undefined || script.status !== 0 || !script.stdout.includes("util-linux")) {
    throw new Error(
      "this test runs the client in a pseudo-terminal with util-linux's `script`, which was not found " +
        "(Debian: apt-get install bsdutils; CI has it)",
    );
  }
  ensureBuilt();
  // Buckets of 10 files: the upload takes 40 requests, and the line moves between them.
  bed = await startTestBed({ bucketMaxFiles: 10 });
}, 120_000);
afterAll(async () => bed?.stop());

describe("deploy: progress frames in a pseudo-terminal", () => {
  it("deploy in a pty: files and bytes move together, no ETA on a first frame, the line is never blank for long, the summary matches what was sent", async () => {
    const site = join(bed.dir, "pty-site");
    const files: Record<string, Buffer> = { "index.html": Buffer.alloc(FILE_BYTES, "<p>") };
    for (let i = 1; i < FILES; i++) {
      const content = Buffer.alloc(FILE_BYTES, 32 + (i % 90));
      content.write(`file ${i}`);
      files[`pages/page-${i}.html`] = content;
    }
    await writeSite(site, files);
    const run = await runInPty([site], bed.env);
    const frames = framesOf(run.chunks);
    const transcript = frames.map((f) => `${f.at}ms ${f.text}`).join("\n");
    expect(run.code, transcript).toBe(0);

    // Files and bytes move together, in every frame of both counted phases.
    const counted = frames.flatMap((frame) => {
      const match = COUNTED.exec(frame.text);
      return match
        ? [
            {
              ...frame,
              label: match[1]!,
              files: Number(match[2]),
              total: Number(match[3]),
              bytes: match[4]!,
              totalBytes: match[5]!,
              rest: match[6]!,
            },
          ]
        : [];
    });
    for (const label of ["Hashing", "Uploading"]) {
      expect(
        counted.filter((f) => f.label === label).length,
        `${label} frames\n${transcript}`,
      ).toBeGreaterThan(0);
    }
    for (const frame of counted) {
      expect(frame.total, frame.text).toBe(FILES);
      const { bytes, within } = shownBytes(frame.bytes);
      expect(Math.abs(bytes - frame.files * FILE_BYTES), frame.text).toBeLessThanOrEqual(within);
      const total = shownBytes(frame.totalBytes);
      expect(Math.abs(total.bytes - FILES * FILE_BYTES), frame.text).toBeLessThanOrEqual(total.within);
    }
    // The upload was seen on its way, not only at its start and end.
    expect(
      counted.some((f) => f.label === "Uploading" && f.files > 0 && f.files < FILES),
      transcript,
    ).toBe(true);
    // No ETA on a phase's first frame, and none absurd: the whole run takes seconds.
    for (const label of ["Hashing", "Uploading"]) {
      const first = counted.find((f) => f.label === label)!;
      expect(first.rest, first.text).not.toContain("ETA");
    }
    for (const frame of counted) expect(etaMs(frame.rest) ?? 0, frame.text).toBeLessThan(60_000);

    // After `Created project`, the next phase is on the line at once, and the line never stays
    // blank for long: something is drawn at least every second from start to end (redraws are
    // 100 ms apart; a second leaves room for a busy machine).
    const created = frames.findIndex((f) => f.text.startsWith("Created project "));
    expect(created, transcript).toBeGreaterThan(-1);
    const next = frames[created + 1]!;
    expect(next.text, transcript).toMatch(/^Preparing the deploy \(400 files\)… \d+ms$/);
    expect(next.at - frames[created]!.at, transcript).toBeLessThanOrEqual(200);
    for (let i = 1; i < run.chunks.length; i++) {
      expect(run.chunks[i]!.at - run.chunks[i - 1]!.at, transcript).toBeLessThan(1000);
    }
    // A phase's line is not drawn again once its result is out.
    expect(frames[created - 1]?.text ?? "", transcript).toMatch(/^Creating the project… \d+ms$/);
    expect(
      frames.slice(created + 1).some((f) => f.text.startsWith("Creating the project")),
      transcript,
    ).toBe(false);

    // The end is true: every file was hashed and sent, and the summary says what the frames said.
    expect(transcript).toContain(`Hashed ${FILES} files (6.3 MiB) in `);
    expect(transcript).toContain(`Uploaded ${FILES} files (6.3 MiB) in `);
    const lastUpload = counted.filter((f) => f.label === "Uploading").at(-1)!;
    expect(lastUpload.files).toBe(FILES);
    expect(lastUpload.bytes).toBe("6.3 MiB");
    expect(transcript).toMatch(
      new RegExp(`Files: +${FILES} total: ${FILES} uploaded, 0 already on the server`),
    );
    expect(transcript).toMatch(/Sent: +6\.3 MiB/);
    expect(frames.at(-1)!.text).toMatch(/^ {2}Expires: /);
  });
});
