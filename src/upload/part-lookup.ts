import type { PartRun, PartState, UploadStorage } from "./upload-storage.js";

/** Hashes read per run: half a bucket of BUCKET_MAX_FILES' default, in one statement. */
export const PART_RUN = 1_000;
/** The shortest run, read after runs that answered few parts. */
const MIN_RUN = 16;

const NOT_IN_SESSION: PartState = { asset: undefined, inSession: false, held: false };

/** A run read from `from`: which hashes it answers for, and how many parts it answered. */
interface Run extends PartRun {
  from: string;
  used: number;
}

/** The run's answer for `hash`: its state, null when the run covers it without naming it, undefined when it does not cover it. */
function answer(run: Run | undefined, hash: string): PartState | null | undefined {
  if (run === undefined || hash < run.from || (run.through !== undefined && hash > run.through))
    return undefined;
  run.used++;
  return run.parts.get(hash) ?? null;
}

/**
 * What the parts of one bucket request are, read from the session in runs (issue 32): a bucket
 * holds a range of hashes (prepare groups them in hash order), so the first part of the range
 * reads the session's answers for the next PART_RUN hashes it does not have yet, in one
 * statement, and the parts after it are found in that map. A part the run passes over is either
 * the session's already or none of its hashes: one more run, of all its hashes from there, says
 * which. A bucket thus costs a statement or two per PART_RUN parts, where it cost one per part.
 * Parts out of hash order get shorter runs (twice what the last run answered): a bucket of 2,000
 * parts each outside the last run does not read 1,000 rows a part.
 * What a run says is as old as the run: as before, a blob recorded meanwhile by another request is
 * stored again (its row is kept once), and one held then is verified and not stored.
 */
export class PartLookup {
  private missing: Run | undefined;
  private all: Run | undefined;

  constructor(
    private readonly storage: Pick<UploadStorage, "partRun">,
    private readonly sessionId: string,
    private readonly runLength = PART_RUN,
  ) {}

  /**
   * What receiving a part of `hash` needs to know; `asset` undefined when the session does not
   * name it. Given at once when a run read before answers it (most parts): a promise only when a
   * run must be read.
   */
  state(hash: string): PartState | Promise<PartState> {
    const known = answer(this.all, hash);
    if (known !== undefined) return known ?? NOT_IN_SESSION;
    const missing = answer(this.missing, hash);
    if (missing) return missing;
    return this.readFor(hash, missing === null);
  }

  /** `state` for a part the runs read so far do not answer; `missingRead` when the missing run covers it. */
  private async readFor(hash: string, missingRead: boolean): Promise<PartState> {
    if (!missingRead) {
      this.missing = await this.read(hash, true);
      const missing = answer(this.missing, hash);
      if (missing) return missing;
    }
    // Named by the session and had already, or not named at all.
    this.all = await this.read(hash, false);
    return answer(this.all, hash) ?? NOT_IN_SESSION;
  }

  private async read(from: string, missingOnly: boolean): Promise<Run> {
    const last = missingOnly ? this.missing : this.all;
    const length = last ? Math.min(this.runLength, Math.max(MIN_RUN, 2 * last.used)) : this.runLength;
    const run = await this.storage.partRun(this.sessionId, from, length, missingOnly);
    return { ...run, from, used: 0 };
  }
}
