import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HashRunReport } from "./hash-runner.js";
import { runChecked, runTimed } from "./proc.js";

/** Debian's `b3sum` (the BLAKE3 team's Rust tool), when installed: the native reference. */
export async function b3sumAvailable(): Promise<boolean> {
  const hasTime = await runTimed("/usr/bin/time", ["-f", "", "true"]).then(
    (result) => result.code === 0,
    () => false,
  );
  const hasB3sum = await runTimed("b3sum", ["--version"]).then(
    (result) => result.code === 0,
    () => false,
  );
  return hasTime && hasB3sum;
}

/** The files b3sum reads for one workload: each the asset hash's input (base64 text + extension). */
export interface B3sumInput {
  dir: string;
  /** Names relative to `dir`, in the order the libraries hash them (a name may repeat). */
  names: string[];
  textBytes: number;
}

/** Writes each file's base64 text followed by its extension, so b3sum hashes what the libraries do. */
export function writeB3sumInput(
  dir: string,
  raw: Buffer,
  files: number,
  fileBytes: number,
  extension: string,
): B3sumInput {
  mkdirSync(dir, { recursive: true });
  if (fileBytes === raw.length) {
    const text = raw.toString("base64");
    writeFileSync(join(dir, `0.${extension}`), text + extension, "latin1");
    return {
      dir,
      names: Array.from({ length: files }, () => `0.${extension}`),
      textBytes: text.length * files,
    };
  }
  const names: string[] = [];
  let textBytes = 0;
  for (let i = 0; i < files; i++) {
    const text = raw.toString("base64", i * fileBytes, (i + 1) * fileBytes);
    const name = `${i}.${extension}`;
    writeFileSync(join(dir, name), text + extension, "latin1");
    names.push(name);
    textBytes += text.length;
  }
  return { dir, names, textBytes };
}

/** GNU time reports CPU time in hundredths of a second: b3sum goes over the files again until this much is hashed. */
const B3SUM_MIN_BYTES = 500e6;
/** Keeps the command line well under Linux's 2 MB for arguments and environment. */
const B3SUM_MAX_NAMES = 60_000;

/**
 * Runs `b3sum --num-threads 1` over the files (one core, as each library gets) under GNU time.
 * Its times are the process's, start and file reads from the page cache included.
 */
export async function runB3sum(input: B3sumInput, scratch: string): Promise<HashRunReport> {
  const repeats = Math.max(
    1,
    Math.min(Math.ceil(B3SUM_MIN_BYTES / input.textBytes), Math.floor(B3SUM_MAX_NAMES / input.names.length)),
  );
  const names = Array.from({ length: repeats }, () => input.names).flat();
  const timeFile = join(scratch, "b3sum-time.txt");
  const result = await runChecked(
    "/usr/bin/time",
    ["-f", "%U %S", "-o", timeFile, "b3sum", "--num-threads", "1", "--", ...names],
    { cwd: input.dir },
  );
  const [user = NaN, system = NaN] = readFileSync(timeFile, "utf8")
    .trim()
    .split("\n")
    .pop()!
    .split(" ")
    .map(Number);
  const digests = result.stdout
    .trim()
    .split("\n")
    .map((line) => line.slice(0, 32));
  if (digests.length !== names.length) {
    throw new Error(`b3sum printed ${digests.length} hashes for ${names.length} files`);
  }
  const all = createHash("sha256");
  for (const digest of digests.slice(0, input.names.length)) all.update(`${digest}\n`);
  return {
    startupMs: undefined,
    wallMs: result.ms,
    cpuMs: (user + system) * 1000,
    textBytes: input.textBytes * repeats,
    firstDigest: digests[0]!,
    allDigests: all.digest("hex"),
    memoryGrowthBytes: undefined,
  };
}
