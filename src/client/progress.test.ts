import { afterEach, describe, expect, it, vi } from "vitest";
import { createProgress, renderBar, type Ticker } from "./progress.js";

function capture(isTTY: boolean) {
  let text = "";
  return { stream: { write: (chunk: string) => (text += chunk), isTTY, columns: 200 }, text: () => text };
}

/** A ticker the test fires by hand; `running` says whether the progress keeps one going. */
function manualTicker() {
  const state = { tick: undefined as (() => void) | undefined, running: false };
  const ticker: Ticker = (tick) => {
    state.tick = tick;
    state.running = true;
    return () => {
      state.running = false;
    };
  };
  return { state, ticker };
}

const lastFrame = (text: string) => text.split("\r\x1b[2K").at(-1)!;

describe("progress", () => {
  it("renderBar: fills in proportion, clamped", () => {
    expect(renderBar(0.5, 10)).toBe("[#####-----]");
    expect(renderBar(2, 4)).toBe("[####]");
    expect(renderBar(-1, 4)).toBe("[----]");
  });

  it("createProgress: on a terminal, a counted phase draws at once, then files, bytes, and rate and ETA only once the rate is known", () => {
    let clock = 0;
    const out = capture(true);
    const { ticker } = manualTicker();
    const progress = createProgress(out.stream, true, () => clock, ticker);
    progress.start("Uploading", 10, 1024 * 1024);
    expect(lastFrame(out.text())).toBe("Uploading [--------------------] 0/10 files · 0 B/1.0 MiB");
    progress.advance(5, 512 * 1024);
    clock = 500;
    progress.advance(0, 0);
    // Half a second of bytes is no rate: no rate and no ETA yet.
    expect(lastFrame(out.text())).toBe("Uploading [##########----------] 5/10 files · 512.0 KiB/1.0 MiB");
    expect(out.text()).not.toContain("ETA");
    clock = 1000;
    progress.advance(0, 0);
    expect(lastFrame(out.text())).toBe(
      "Uploading [##########----------] 5/10 files · 512.0 KiB/1.0 MiB · 512.0 KiB/s · ETA 1.0s",
    );
    progress.finish("Uploaded 10 files");
    expect(out.text().endsWith("\r\x1b[2KUploaded 10 files\n")).toBe(true);
  });

  it("createProgress: the rate counts from the first byte, not from the phase's start", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 2, 2000);
    // A slow first answer (the old first frame said "ETA 66m21s"): nothing moves for 3 s.
    clock = 3000;
    progress.advance(1, 1000);
    expect(lastFrame(out.text())).not.toMatch(/\/s|ETA/);
    clock = 4000;
    progress.advance(0, 0);
    expect(lastFrame(out.text())).toBe(
      "Uploading [##########----------] 1/2 files · 1000 B/2.0 KiB · 1000 B/s · ETA 1.0s",
    );
  });

  it("createProgress: a step draws its name at once and its time on every tick; done clears it and stops the ticker", () => {
    let clock = 0;
    const out = capture(true);
    const { state, ticker } = manualTicker();
    const progress = createProgress(out.stream, true, () => clock, ticker);
    progress.step("Creating the project");
    expect(lastFrame(out.text())).toBe("Creating the project… 0ms");
    expect(state.running).toBe(true);
    clock = 150;
    state.tick!();
    expect(lastFrame(out.text())).toBe("Creating the project… 150ms");
    progress.step("Preparing the deploy (3 files)");
    expect(lastFrame(out.text())).toBe("Preparing the deploy (3 files)… 0ms");
    progress.done();
    expect(out.text().endsWith("\r\x1b[2K")).toBe(true);
    expect(state.running).toBe(false);
  });

  it("createProgress: a status replaces the ETA with what the phase waits for, and its time", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 2, 2048);
    progress.advance(2, 2048);
    clock = 1200;
    progress.status("sent; the server is storing the last 2 requests");
    expect(lastFrame(out.text())).toBe(
      "Uploading [####################] 2/2 files · 2.0 KiB/2.0 KiB · 1.7 KiB/s · sent; the server is storing the last 2 requests… 1.2s",
    );
  });

  it("createProgress: off a terminal, plain lines at most every 5 seconds, steps silent, no escape codes", () => {
    let clock = 0;
    const out = capture(false);
    const { state, ticker } = manualTicker();
    const progress = createProgress(out.stream, false, () => clock, ticker);
    progress.step("Creating the project");
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
    expect(state.tick).toBeUndefined();
  });
  it("createProgress: a phase of empty files fills its bar by files; a phase of nothing shows it full", () => {
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => 0, manualTicker().ticker);
    progress.start("Hashing", 4, 0);
    progress.advance(1, 0);
    progress.status(undefined);
    progress.note("x");
    expect(lastFrame(out.text())).toBe("Hashing   [#####---------------] 1/4 files · 0 B/0 B");
    progress.start("Uploading", 0, 0);
    expect(lastFrame(out.text())).toBe("Uploading [####################] 0/0 files · 0 B/0 B");
  });

  it("createProgress: the live line is cut to the terminal's width less one, at least 20, 100 when unknown", () => {
    const frame = (columns: number | undefined) => {
      let text = "";
      const stream = { write: (chunk: string) => (text += chunk), isTTY: true, columns };
      createProgress(stream, true, () => 0, manualTicker().ticker).step("x".repeat(300));
      return lastFrame(text);
    };
    expect(frame(50)).toBe("x".repeat(49));
    expect(frame(10)).toBe("x".repeat(20));
    expect(frame(undefined)).toBe("x".repeat(99));
    expect(frame(0)).toBe("x".repeat(99));
  });

  it("createProgress: on a terminal a note clears the live line, stands on its own, and the line is drawn again", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.step("Publishing");
    clock = 300;
    progress.note("retrying in 1.0s");
    expect(out.text()).toBe("\r\x1b[2KPublishing… 0ms\r\x1b[2Kretrying in 1.0s\n\r\x1b[2KPublishing… 300ms");
    progress.done();
    progress.note("after");
    // With no phase shown, a note is only the note.
    expect(out.text().endsWith("\r\x1b[2Kafter\n")).toBe(true);
  });

  it("createProgress: no ETA once every byte is counted; a status given twice draws once", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 1, 1000);
    progress.advance(0, 500);
    clock = 2000;
    progress.advance(1, 500);
    expect(lastFrame(out.text())).toBe(
      "Uploading [####################] 1/1 files · 1000 B/1000 B · 500 B/s",
    );
    progress.status("storing");
    const drawn = out.text().length;
    progress.status("storing");
    expect(out.text().length).toBe(drawn);
  });

  it("createProgress: before any phase and after done, counts and a status draw nothing and a note is only the note", () => {
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => 0, manualTicker().ticker);
    progress.advance(1, 10);
    progress.status("waiting");
    progress.note("first");
    expect(out.text()).toBe("first\n");
    progress.step("Publishing");
    progress.done();
    progress.done();
    progress.advance(1, 10);
    progress.status("later");
    progress.note("after");
    // One clear for the one line drawn: a second done, or the note, clears nothing more.
    expect(out.text()).toBe("first\n\r\x1b[2KPublishing… 0ms\r\x1b[2Kafter\n");
  });

  it("createProgress: the live line is redrawn at most every 100 ms by counts, and a tick redraws only once due", () => {
    let clock = 10_000;
    const out = capture(true);
    const { state, ticker } = manualTicker();
    const progress = createProgress(out.stream, true, () => clock, ticker);
    progress.start("Hashing", 4, 400);
    const frames = () => out.text().split("\r\x1b[2K").length - 1;
    expect(frames()).toBe(1);
    clock = 10_099;
    progress.advance(1, 100);
    state.tick!();
    expect(frames()).toBe(1);
    clock = 10_100;
    progress.advance(1, 100);
    expect(frames()).toBe(2);
    expect(lastFrame(out.text())).toBe("Hashing   [##########----------] 2/4 files · 200 B/400 B");
    clock = 10_150;
    state.tick!();
    expect(frames()).toBe(2);
    clock = 10_200;
    state.tick!();
    expect(frames()).toBe(3);
  });

  it("createProgress: a new status is drawn at once on a terminal, and never off one", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 2, 2000);
    clock = 10;
    progress.status("waiting for the server");
    expect(lastFrame(out.text())).toBe(
      "Uploading [--------------------] 0/2 files · 0 B/2.0 KiB · waiting for the server… 10ms",
    );
    const plain = capture(false);
    const quiet = createProgress(plain.stream, false, () => clock, manualTicker().ticker);
    quiet.start("Uploading", 2, 2000);
    quiet.status("waiting for the server");
    quiet.step("Publishing");
    clock = 60_000;
    quiet.advance(1, 1);
    expect(plain.text()).toBe("");
  });

  it("createProgress: a status hides the ETA while bytes are left; the bar follows bytes, not files", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 4, 4000);
    progress.advance(1, 3000);
    clock = 1000;
    progress.status("retrying");
    expect(lastFrame(out.text())).toBe(
      "Uploading [###############-----] 1/4 files · 2.9 KiB/3.9 KiB · 2.9 KiB/s · retrying… 1.0s",
    );
  });

  it("createProgress: the rate waits for bytes, not for files without any, and bytes taken back to none hide it", () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress(out.stream, true, () => clock, manualTicker().ticker);
    progress.start("Uploading", 3, 2000);
    progress.advance(1, 0);
    clock = 3000;
    progress.advance(1, 1000);
    clock = 4000;
    progress.advance(0, 0);
    expect(lastFrame(out.text())).toBe(
      "Uploading [##########----------] 2/3 files · 1000 B/2.0 KiB · 1000 B/s · ETA 1.0s",
    );
    clock = 5000;
    progress.advance(-1, -1000);
    expect(lastFrame(out.text())).toBe("Uploading [--------------------] 1/3 files · 0 B/2.0 KiB");
  });
});

describe("createProgress's own clock and timer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("createProgress: by default redraws every 100 ms by the system clock, and done stops the timer", () => {
    vi.useFakeTimers({ now: 50_000 });
    const out = capture(true);
    const progress = createProgress(out.stream, true);
    progress.step("Publishing");
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(250);
    expect(lastFrame(out.text())).toBe("Publishing… 200ms");
    progress.done();
    expect(vi.getTimerCount()).toBe(0);
  });
});
