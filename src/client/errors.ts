/** Exit status of success. */
export const EXIT_OK = 0;
/** Exit status of a failure. */
export const EXIT_FAILURE = 1;
/** Exit status of a usage error. */
const EXIT_USAGE = 2;

/**
 * An error meant for the person at the terminal: a message that says what went wrong, an
 * optional hint that says what to do, a stable code (for `--json` and tests) and an exit status.
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A mistake on the command line: an unknown flag, a missing or extra argument. Exit status 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super("USAGE", message, hint, EXIT_USAGE);
  }
}

/** An HTTP error answer from the deploy API or the upload service. */
export class ApiError extends CliError {
  constructor(
    /** What the client was doing, e.g. "prepare the deploy". */
    readonly step: string,
    readonly url: string,
    readonly status: number,
    code: string,
    readonly serverMessage: string,
    hint?: string,
    readonly retryAfterMs?: number,
  ) {
    super(code, `could not ${step}: ${url} answered ${status} ${code}: ${serverMessage}`, hint);
  }
}

/** A failure to reach a server at all: refused, reset, timed out, DNS. */
export class NetworkError extends CliError {
  constructor(
    readonly step: string,
    readonly url: string,
    readonly causeCode: string,
    detail: string,
  ) {
    super(
      "NETWORK",
      `could not ${step}: no answer from ${url} (${detail})`,
      causeCode === "ECONNREFUSED" || causeCode === "ENOTFOUND"
        ? "Check --api-url (or DEPLOY_API_URL), and that the server is running (`npm start`)."
        : "Check your network and run the command again.",
    );
  }
}

/** The `code` of a Node.js system error (ECONNREFUSED, ...) found on an error or its causes. */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}
