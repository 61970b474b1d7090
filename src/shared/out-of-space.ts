/** True for the errors of a full disk: a write (ENOSPC, EDQUOT) or SQLite's (SQLITE_FULL). */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL";
}
