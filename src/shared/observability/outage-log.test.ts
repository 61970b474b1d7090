import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { pino } from "pino";
import { OutageLog } from "./outage-log.js";

let lines: Record<string, unknown>[];
const logger = () => pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });

beforeEach(() => {
  lines = [];
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function refused(n: number): Error {
  const errno = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${n}`), { code: "ECONNREFUSED" });
  const request = new Error(`GetObject packs/${n}.pack: ECONNREFUSED`, { cause: errno });
  return new Error("the content store is unavailable, retry later", { cause: request });
}

it("OutageLog: 500 failed reads in one interval are one line with their count and the first one's message and code, no stack", () => {
  const outages = new OutageLog(logger(), 10_000);
  for (let i = 0; i < 500; i++) outages.record("OBJECT_STORE_UNAVAILABLE", refused(i));
  expect(lines).toEqual([]);
  vi.advanceTimersByTime(10_000);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 50,
    outage: "OBJECT_STORE_UNAVAILABLE",
    failures: 500,
    intervalSeconds: 10,
    first: {
      code: "OBJECT_STORE_UNAVAILABLE",
      message: "the content store is unavailable, retry later",
      cause: "GetObject packs/0.pack: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:0",
      causeCode: "ECONNREFUSED",
    },
  });
  expect(JSON.stringify(lines[0])).not.toContain("stack");
  // A quiet interval says nothing; the next failure starts another.
  vi.advanceTimersByTime(60_000);
  expect(lines).toHaveLength(1);
  outages.record("DATABASE_UNAVAILABLE", new Error("Connection terminated"));
  outages.record("OBJECT_STORE_UNAVAILABLE", refused(7));
  outages.flush();
  expect(lines.slice(1).map((line) => [line.outage, line.failures])).toEqual([
    ["DATABASE_UNAVAILABLE", 1],
    ["OBJECT_STORE_UNAVAILABLE", 1],
  ]);
});
