import { afterAll, vi } from "vitest";

// A worker runs many test files in turn and shares their modules (isolate: false): what one file
// leaves changed globally, the next would inherit. Fake timers left on would stall every later
// file's waits; spies and stubbed globals or variables would answer for another file's code.
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
