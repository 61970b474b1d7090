import type { Pacer } from "../../../shared/event-loop.js";

/** How many times its first size a slice of rows may grow to (slice-rows.ts). */
export const MAX_SLICE_GROWTH = 8;

/**
 * How many rows the next slice of a sliced SQLite statement takes (a copy or a deletion a range of
 * rows a transaction, the event loop free between them): `rows` at first, doubled after a slice that
 * held the thread under half the pacer's slice time, up to MAX_SLICE_GROWTH times `rows`, and
 * halved, down to `rows`, after one that held it longer than a slice. A slice's commit writes every
 * page it dirtied to the log, and a copy in hash order dirties pages all over the manifest's table:
 * 500 rows a commit rewrote each page of a 50,000-file manifest some fourteen times, half of the
 * publish's time (issue 32). Never smaller than the fixed slices it replaces.
 */
export class SliceRows {
  private size: number;

  constructor(
    private readonly rows: number,
    private readonly pacer: Pacer,
  ) {
    this.size = rows;
  }

  /** Rows the next slice takes. */
  get next(): number {
    return this.size;
  }

  /** Judges the slice just done by the time the pacer's slice has lasted; call before `pacer.next()`. */
  done(): void {
    const spent = this.pacer.spent();
    const budget = this.pacer.sliceMs;
    if (spent < budget / 2) this.size = Math.min(this.size * 2, this.rows * MAX_SLICE_GROWTH);
    else if (spent > budget) this.size = Math.max(Math.floor(this.size / 2), this.rows);
  }
}
