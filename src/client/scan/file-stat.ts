import { lstatSync } from "node:fs";

/** What the walk keeps of a regular file's `lstat`: the numbers of the hash cache's key. */
export interface FileStat {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** Node's own `lstat` binding, as `fs.lstatSync` calls it: the stat's numbers in a shared array. */
type LstatBinding = (path: string, bigint: false, req: undefined, throwIfNoEntry: true) => unknown;

// Where fs.lstatSync's binding puts the numbers (Node's kFsStatsFieldsNumber layout): ino, size,
// then each time as seconds and nanoseconds from index 10 (atime, mtime, ctime, birthtime).
const INO = 7;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;

let binding: LstatBinding | null | undefined;

/**
 * The `lstat` of a regular file, as `fs.lstatSync(path)` gives it. In Node 20, `lstatSync` makes a
 * `Stats` of 14 numbers and four `Date`s for each file: at 50,000 files, some 130 ms of CPU and
 * their garbage more than the system calls' own. So the numbers are read from the binding
 * `lstatSync` itself calls, when it is there and agrees with `lstatSync` on the first file (else,
 * and for every error, `lstatSync`: its errors are the ones reported).
 */
export function lstatFile(path: string): FileStat {
  if (binding === undefined) binding = checkedBinding(path);
  if (binding !== null) {
    try {
      const values = binding(path, false, undefined, true) as Float64Array;
      return {
        size: small(values[SIZE]!),
        // As Node computes mtimeMs from the two numbers, so the digest of the stats is the same.
        mtimeMs: values[MTIME_SEC]! * 1e3 + values[MTIME_NSEC]! / 1e6,
        ino: small(values[INO]!),
      };
    } catch {
      // Fall through: lstatSync throws the error the walk reports, or finds the file this time.
    }
  }
  return fromStats(path);
}

/**
 * A size or inode below 2^30 as a small integer, which V8 keeps in the object's field: read from
 * the array it is a double, and a double field boxes every value (100,000 boxes at 50,000 files
 * for the collector to copy). Every `{ size, mtimeMs, ino }` made here goes through it: one boxed
 * first would make the field a double field for all of them.
 */
const small = (value: number) => (value < 0x40000000 ? value | 0 : value);

/** Where `lstatFile`'s numbers come from in this process, once it has run: for tests and probes. */
export function lstatFileSource(): "binding" | "lstatSync" | "not yet" {
  return binding === undefined ? "not yet" : binding === null ? "lstatSync" : "binding";
}

function fromStats(path: string): FileStat {
  const { size, mtimeMs, ino } = lstatSync(path);
  return { size: small(size), mtimeMs, ino: small(ino) };
}

/**
 * The binding, on Node 20 (where it was measured; later Nodes may warn of `process.binding`), with
 * no warning to print (`--pending-deprecation` warns of it) nor permission model (checked in
 * `lstatSync`), when its numbers for `path` are `lstatSync`'s; else null.
 */
function checkedBinding(path: string): LstatBinding | null {
  if (!process.versions.node.startsWith("20.")) return null;
  const options = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  if (options.includes("pending-deprecation") || process.env.NODE_PENDING_DEPRECATION === "1") return null;
  if (options.includes("permission") || "permission" in process) return null;
  try {
    const legacy = (process as unknown as { binding?: (name: string) => { lstat?: unknown } }).binding;
    const lstat = legacy?.("fs").lstat;
    if (typeof lstat !== "function") return null;
    const candidate = lstat as LstatBinding;
    const values = candidate(path, false, undefined, true);
    if (!(values instanceof Float64Array)) return null;
    const expected = lstatSync(path);
    const same =
      values[SIZE] === expected.size &&
      values[MTIME_SEC]! * 1e3 + values[MTIME_NSEC]! / 1e6 === expected.mtimeMs &&
      values[INO] === expected.ino;
    return same ? candidate : null;
  } catch {
    return null;
  }
}
