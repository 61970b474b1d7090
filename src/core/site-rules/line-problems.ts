import { InvalidSiteConfigError, type SiteConfigProblem } from "../errors.js";

/** What is wrong with one line, thrown by a check and caught by `LineProblems.check`. */
class LineFailure extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Stops the check of one line: `line` is wrong for `reason` (the parse goes on with the next). */
export function failLine(line: number, reason: string): never {
  throw new LineFailure(line, reason);
}

/**
 * The problems of a rules file, gathered line by line, so one deploy names every wrong line at
 * once rather than one a try. Each line is checked whatever the ones before it held.
 */
export class LineProblems {
  private readonly problems: SiteConfigProblem[] = [];

  constructor(private readonly file: string) {}

  /** Runs `check` on one line, recording the problem it fails with; false when it failed. */
  check(check: () => void): boolean {
    try {
      check();
      return true;
    } catch (error) {
      if (!(error instanceof LineFailure)) throw error;
      this.add(error.line, error.reason);
      return false;
    }
  }

  /** Records a problem found outside a line's own check (a rule closed by a later line). */
  add(line: number, reason: string): void {
    this.problems.push({ line, reason });
  }

  /** Throws InvalidSiteConfigError naming every problem, in line order, when there is any. */
  throwIfAny(): void {
    if (this.problems.length === 0) return;
    const sorted = [...this.problems].sort((a, b) => a.line - b.line);
    throw new InvalidSiteConfigError(this.file, sorted[0]!.line, sorted[0]!.reason, sorted);
  }
}
