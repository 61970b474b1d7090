import { describe, expect, it } from "vitest";
import { PLAIN, paintFor } from "./paint.js";

const terminal = { write: () => true, isTTY: true };
const pipe = { write: () => true, isTTY: false };

describe("paint", () => {
  it("paintFor: a terminal gets ANSI styles, each closed by its own reset", () => {
    const paint = paintFor(terminal, {});
    expect(paint.bold("b")).toBe("\u001b[1mb\u001b[22m");
    expect(paint.green("g")).toBe("\u001b[32mg\u001b[39m");
    expect(paint.yellow("y")).toBe("\u001b[33my\u001b[39m");
    expect(paint.red("r")).toBe("\u001b[31mr\u001b[39m");
    expect(paint.dim("d")).toBe("\u001b[2md\u001b[22m");
  });

  it("paintFor: no colour on a pipe, with NO_COLOR set, or on a dumb terminal", () => {
    expect(paintFor(pipe, {})).toBe(PLAIN);
    expect(paintFor({ write: () => true }, {})).toBe(PLAIN);
    expect(paintFor(terminal, { NO_COLOR: "1" })).toBe(PLAIN);
    expect(paintFor(terminal, { TERM: "dumb" })).toBe(PLAIN);
  });

  it("paintFor: an empty NO_COLOR and another TERM leave colour on (no-color.org)", () => {
    expect(paintFor(terminal, { NO_COLOR: "" })).not.toBe(PLAIN);
    expect(paintFor(terminal, { TERM: "xterm-256color" }).red("x")).toBe("\u001b[31mx\u001b[39m");
  });

  it("PLAIN: every style returns the text unchanged", () => {
    for (const style of [PLAIN.bold, PLAIN.green, PLAIN.yellow, PLAIN.red, PLAIN.dim]) {
      expect(style("text")).toBe("text");
    }
  });
});
