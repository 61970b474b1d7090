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

/**
 * An HTTP error answer from the deploy API or the upload service. Its message is in words (what
 * failed and why); the code is `code` (for `--json`), and the URL and status are kept for DEBUG.
 */
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
    super(code, `could not ${step}: ${inWords(code, status, serverMessage)}`, hint);
  }

  /** The request and its answer as the server gave them, for DEBUG=1. */
  get detail(): string {
    return `${this.url} answered ${this.status} ${this.code}: ${this.serverMessage}`;
  }
}

/** Why a request was refused, in words: the server's own message, or a sentence where it is terse. */
function inWords(code: string, status: number, serverMessage: string): string {
  switch (code) {
    case "UNAUTHORIZED":
      return "the server does not know this project's token (the project was deleted, or it lives on another server)";
    case "PROJECT_NOT_FOUND":
      return "the project no longer exists on the server";
    case "PROJECT_EXPIRED":
      return "the project has expired";
    default:
      return serverMessage.trim() === "" ? `the server answered with status ${status}` : serverMessage;
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
