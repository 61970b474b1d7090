import { describe, expect, it } from "vitest";
import { createProgress, renderBar } from "./progress.js";

function capture(isTTY: boolean) {
  let text = "";
  return { stream: { write: (chunk: string) => (text += chunk), isTTY, columns: 200 }, text: () => text };
}

describe("progress", () => {
  it("renderBar: fills in proportion, clamped", () => {
    expect(renderBar(0.5, 10)).toBe("[#####-----]");
    expect(renderBar(2, 4)).toBe("[####]");
    expect(renderBar(-1, 4)).toBe("[----]");
  });

  it("createProgress: on a terminal, redraws one line with files, bytes, rate and ETA", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock);
    progress.start("Uploading", 10, 1024 * 1024);
    clock = 1000;
    progress.advance(5, 512 * 1024);
    const last = out.text().split("\r\x1b[2K").at(-1)!;
    expect(last).toBe(
      "Uploading [##########----------] 5/10 files · 512.0 KiB/1.0 MiB · 512.0 KiB/s · ETA 1.0s",
    );
    progress.finish("Uploaded 10 files");
    expect(out.text().endsWith("\r\x1b[2KUploaded 10 files\n")).toBe(true);
  });

  it("createProgress: off a terminal, plain lines at most every 5 seconds and no escape codes", () => {
    let clock = 0;
    const out = capture(false);
    const progress = createProgress(out.stream, false, () => clock);
    progress.start("Hashing", 3, 300);
    progress.advance(1, 100);
    clock = 6000;
    progress.advance(1, 100);
    progress.note("retrying");
    progress.finish("Hashed 3 files");
    expect(out.text()).toBe(
      "Hashing   2/3 files · 200 B/300 B · 33 B/s · ETA 3.0s\nretrying\nHashed 3 files\n",
    );
    expect(out.text()).not.toContain("\x1b");
  });
});
