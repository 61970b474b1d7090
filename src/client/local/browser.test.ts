import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserOpener, openInBrowser } from "./browser.js";

describe("browser", () => {
  it("browserOpener: the platform's opener when $BROWSER is unset or blank", () => {
    expect(browserOpener({}, "linux")).toEqual({ command: "xdg-open", args: [] });
    expect(browserOpener({ BROWSER: "  " }, "linux")).toEqual({ command: "xdg-open", args: [] });
    expect(browserOpener({}, "darwin")).toEqual({ command: "open", args: [] });
    expect(browserOpener({}, "win32")).toEqual({ command: "cmd", args: ["/c", "start", '""'] });
  });

  it("browserOpener: $BROWSER's first entry split into its command and arguments; `none` opens nothing", () => {
    expect(browserOpener({ BROWSER: " firefox --new-tab :chromium " }, "linux")).toEqual({
      command: "firefox",
      args: ["--new-tab"],
    });
    expect(browserOpener({ BROWSER: "w3m" }, "darwin")).toEqual({ command: "w3m", args: [] });
    expect(browserOpener({ BROWSER: "lynx   -accept_all_cookies" }, "linux")).toEqual({
      command: "lynx",
      args: ["-accept_all_cookies"],
    });
    expect(browserOpener({ BROWSER: "none" }, "linux")).toBeUndefined();
    expect(browserOpener({ BROWSER: ":firefox" }, "linux")).toBeUndefined();
  });

  it("openInBrowser: true when the opener exits 0, false when it fails or is missing", async () => {
    expect(await openInBrowser("http://example.test/", { BROWSER: "true", PATH: process.env.PATH })).toBe(
      true,
    );
    expect(await openInBrowser("https://example.test/", { BROWSER: "false", PATH: process.env.PATH })).toBe(
      false,
    );
    expect(
      await openInBrowser("http://example.test/", { BROWSER: "no-such-opener-here", PATH: process.env.PATH }),
    ).toBe(false);
  });

  it("openInBrowser: the URL is the opener's last argument, and only http(s) URLs are opened", async () => {
    const dir = await mkdtemp(join(tmpdir(), "opener-"));
    const script = join(dir, "opener.sh");
    await writeFile(script, '#!/bin/sh\n[ "$1" = "--tab" ] && [ "$2" = "http://example.test/?a=1&b=2" ]\n', {
      mode: 0o755,
    });
    try {
      const env = { BROWSER: `${script} --tab`, PATH: process.env.PATH };
      expect(await openInBrowser("http://example.test/?a=1&b=2", env)).toBe(true);
      expect(await openInBrowser("http://example.test/?other", env)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await openInBrowser("file:///etc/passwd", { BROWSER: "true", PATH: process.env.PATH })).toBe(
      false,
    );
    expect(await openInBrowser("http://example.test/", { BROWSER: "none", PATH: process.env.PATH })).toBe(
      false,
    );
  });
  it("openInBrowser: the opener is found on the PATH of the environment given", async () => {
    const dir = await mkdtemp(join(tmpdir(), "opener-path-"));
    await writeFile(join(dir, "my-opener"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    try {
      expect(
        await openInBrowser("http://example.test/", { BROWSER: "my-opener", PATH: `${dir}:/usr/bin:/bin` }),
      ).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
