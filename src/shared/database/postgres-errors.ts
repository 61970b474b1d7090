/** Node's socket errors: the server is not there, or went away. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/**
 * PostgreSQL's SQLSTATEs that say the database cannot serve us now, rather than that the
 * statement was wrong: connection exceptions (class 08), insufficient resources (53), a shutdown
 * or restart in progress, a cancelled (timed-out) statement, a database or role that does not
 * exist or refuses us (3D000, 28xxx): a misconfigured DATABASE_URL is an outage too.
 */
const UNAVAILABLE_STATES = /^(08...|53...|57P0[1-4]|57014|3D000|28...)$/;

/** The messages pg and pg-pool give for a connection that timed out or ended under a query. */
const CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|Connection is closed|connect ECONNREFUSED/i;

/**
 * True when `error` says PostgreSQL is unreachable, down, overloaded or misconfigured (an outage
 * to answer 503 for), false for an error of the statement itself (a constraint, a syntax error).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.test(code))) {
      return true;
    }
    if (CONNECTION_MESSAGES.test(e.message)) return true;
    // Node's AggregateError (connect to ::1 and 127.0.0.1 both refused) keeps its parts.
    if (e instanceof AggregateError && e.errors.some((part) => isDatabaseUnavailable(part))) return true;
    e = e.cause;
  }
  return false;
}
