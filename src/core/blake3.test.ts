import { afterEach, describe, expect, it, vi } from "vitest";
import { createBlake3, defaultBlake3Backend } from "./blake3.js";

// BLAKE3's published test vector for the empty input.
const EMPTY = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

describe("createBlake3", () => {
  it("defaultBlake3Backend: native where npm installed the prebuilt binary for this platform", () => {
    expect(defaultBlake3Backend()).toBe("native");
  });

  it.each(["native", "wasm"] as const)(
    "createBlake3 (%s): gives BLAKE3's digest and starts over on init",
    async (backend) => {
      const hasher = await createBlake3(backend);
      expect(hasher.digestHex()).toBe(EMPTY);
      hasher.init();
      hasher.update("abc");
      hasher.update(Buffer.from("def"));
      const joined = hasher.digestHex();
      hasher.init();
      expect(hasher.digestHex()).toBe(EMPTY);
      hasher.init();
      hasher.update("abcdef");
      expect(hasher.digestHex()).toBe(joined);
      expect(joined).toMatch(/^[0-9a-f]{64}$/);
    },
  );

  it("createBlake3: the two backends agree on inputs across SIMD block sizes", async () => {
    const native = await createBlake3("native");
    const wasm = await createBlake3("wasm");
    for (const size of [1, 63, 64, 65, 1023, 1024, 1025, 4096, 16_385, 1_000_003]) {
      const bytes = Buffer.alloc(size, size % 251);
      native.init();
      wasm.init();
      native.update(bytes);
      wasm.update(bytes);
      expect(native.digestHex()).toBe(wasm.digestHex());
    }
  });

  describe("DEPLOY_BLAKE3=wasm", () => {
    afterEach(() => {
      vi.unstubAllEnvs();
      vi.resetModules();
    });

    it("defaultBlake3Backend: wasm when DEPLOY_BLAKE3=wasm, and createBlake3 then refuses native", async () => {
      vi.stubEnv("DEPLOY_BLAKE3", "wasm");
      vi.resetModules();
      const fresh = await import("./blake3.js");
      expect(fresh.defaultBlake3Backend()).toBe("wasm");
      await expect(fresh.createBlake3("native")).rejects.toThrow("the native BLAKE3 module is not installed");
      const hasher = await fresh.createBlake3();
      expect(hasher.digestHex()).toBe(EMPTY);
    });
  });
});
