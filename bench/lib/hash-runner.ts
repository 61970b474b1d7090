import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  HASH_CONTENDERS,
  loadContender,
  takesStrings,
  type AssetStreamHasher,
  type HashContenderName,
} from "./hash-contenders.js";
import { peakRssBytes, resetPeakRss } from "./proc.js";

// One cell of the hashing benchmark in a process of its own (so each library starts cold and its
// memory is its own): `node hash-runner.js '<HashRunRequest as JSON>'`, one JSON line on stdout.

/** What the parent asks one run to hash. */
export interface HashRunRequest {
  contender: HashContenderName;
  /** Random bytes: `files` files of `fileBytes` each (small), or one file hashed `files` times (large). */
  inputFile: string;
  files: number;
  fileBytes: number;
  /** Files of at most this much base64 text are hashed in one update (as the client does up to 1 MiB of bytes). */
  chunkBytes: number;
  /** Every file's extension (it takes part in the hash). */
  extension: string;
}

/** What one run measured. */
export interface HashRunReport {
  /** Import of the library and its first hasher, in a cold process (none for b3sum). */
  startupMs: number | undefined;
  /** Hashing every file's base64 text, after a warm-up: wall time. */
  wallMs: number;
  /**
   * The same in CPU time (user + system, every thread of the process): on a machine others share,
   * what one core's worth of hashing costs, which wall time only shows when the cores are free.
   */
  cpuMs: number;
  /** Base64 text hashed (extensions not counted). */
  textBytes: number;
  /** The first file's asset hash. */
  firstDigest: string;
  /** SHA-256 of every asset hash in order, one a line: compares whole runs. */
  allDigests: string;
  /** Peak RSS while hashing over RSS before it (inputs already in memory). */
  memoryGrowthBytes: number | undefined;
}

/** One file's base64 text, cut into the pieces it is hashed in (at most `chunkBytes` each). */
type Pieces = (Buffer | string)[];

/**
 * The texts one run hashes, cut beforehand (untimed: the callers' base64 encoders make the pieces):
 * each small file's own, or the one large file's, repeated.
 */
function loadTexts(request: HashRunRequest): { files: Pieces[]; textBytes: number } {
  const raw = readFileSync(request.inputFile);
  const cut = (text: Buffer): Pieces => {
    const pieces: Pieces = [];
    for (let offset = 0; offset < text.length; offset += request.chunkBytes) {
      const piece = text.subarray(offset, Math.min(offset + request.chunkBytes, text.length));
      pieces.push(takesStrings(request.contender) ? piece.toString("latin1") : piece);
    }
    return pieces;
  };
  const base64 = (start: number, end: number) => Buffer.from(raw.toString("base64", start, end), "latin1");
  if (request.fileBytes === raw.length) {
    const text = base64(0, raw.length);
    const pieces = cut(text);
    return {
      files: Array.from({ length: request.files }, () => pieces),
      textBytes: text.length * request.files,
    };
  }
  const texts = Array.from({ length: request.files }, (_, i) =>
    base64(i * request.fileBytes, (i + 1) * request.fileBytes),
  );
  return { files: texts.map(cut), textBytes: texts.reduce((sum, text) => sum + text.length, 0) };
}

/** Hashes one file's text as the client and the upload service do: piece by piece, then the extension. */
function hashOne(hasher: AssetStreamHasher, pieces: Pieces, extension: string): string {
  hasher.start();
  for (const piece of pieces) hasher.update(piece);
  return hasher.finish(extension);
}

async function run(request: HashRunRequest): Promise<HashRunReport> {
  const { files, textBytes } = loadTexts(request);
  const loadStarted = performance.now();
  const hasher = await loadContender(request.contender);
  const startupMs = performance.now() - loadStarted;

  // Warm-up, untimed: a few hundred small files, or the first 4 MiB of a large one.
  const warm =
    files[0]!.length > 1
      ? [files[0]!.slice(0, Math.ceil((4 * 1024 * 1024) / request.chunkBytes))]
      : files.slice(0, 200);
  for (const pieces of warm) hashOne(hasher, pieces, request.extension);

  const canResetPeak = resetPeakRss(process.pid);
  const rssBefore = process.memoryUsage.rss();
  const digests: string[] = [];
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  for (const pieces of files) digests.push(hashOne(hasher, pieces, request.extension));
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - started;
  const peak = peakRssBytes(process.pid);

  const all = createHash("sha256");
  for (const digest of digests) all.update(`${digest}\n`);
  return {
    startupMs,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    textBytes,
    firstDigest: digests[0]!,
    allDigests: all.digest("hex"),
    memoryGrowthBytes: canResetPeak && peak !== undefined ? Math.max(0, peak - rssBefore) : undefined,
  };
}

const request = JSON.parse(process.argv[2] ?? "{}") as HashRunRequest;
if (!(HASH_CONTENDERS as readonly string[]).includes(request.contender)) {
  console.error(`hash-runner: unknown contender ${String(request.contender)}`);
  process.exit(2);
}
console.log(JSON.stringify(await run(request)));
