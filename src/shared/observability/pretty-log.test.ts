import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { formatLogLine, prettyDestination } from "./pretty-log.js";

describe("pretty log lines", () => {
  it("formatLogLine: time, level, message and fields in words; pid and hostname left out", () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 10, 27, 21, 55, 14, 123),
      pid: 1,
      hostname: "h",
      msg: "request completed",
      method: "GET",
      path: "/a b",
      status: 200,
    });
    expect(formatLogLine(line)).toBe(
      '21:55:14.123 INFO  request completed method=GET path="/a b" status=200\n',
    );
  });

  it("formatLogLine: an error's message as a field and its stack indented below; a line that is not JSON passes as it is", () => {
    const line = JSON.stringify({
      level: 50,
      time: 0,
      msg: "sweep failed",
      err: { message: "boom", stack: "Error: boom\n    at x" },
    });
    expect(formatLogLine(line)).toBe(
      '00:00:00.000 ERROR sweep failed err="boom"\n    Error: boom\n        at x\n',
    );
    expect(formatLogLine("not json")).toBe("not json\n");
  });

  it("prettyDestination: a pino logger writes through it one readable line per record", () => {
    let text = "";
    const logger = pino(
      { base: undefined },
      prettyDestination({ write: (chunk: string) => (text += chunk) }),
    );
    logger.warn({ slug: "coral-birch" }, "project expired");
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}project expired slug=coral-birch\n$/);
  });
});
