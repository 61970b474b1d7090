import { expect } from "vitest";
import { LEVEL, type LogLine } from "./log-lines.js";

/**
 * Checks the answer of a listener that is not ready yet (contract §5 `SERVER_STARTING`): 503, JSON,
 * `Retry-After: 1`, and the warning logged for the `POST /projects` that got it.
 */
export async function expectStartingAnswer(response: Response | undefined, lines: LogLine[]): Promise<void> {
  expect(response?.status).toBe(503);
  expect(response?.headers.get("retry-after")).toBe("1");
  expect(response?.headers.get("content-type")).toBe("application/json");
  expect(await response?.json()).toEqual({
    error: { code: "SERVER_STARTING", message: "the server is starting, retry in a moment" },
  });
  expect(lines).toContainEqual(
    expect.objectContaining({ level: LEVEL.warn, msg: "SERVER_STARTING", method: "POST", path: "/projects" }),
  );
}
