import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Debian's chromium, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const INSTALL = fileURLToPath(new URL("../../scripts/install-chromium.sh", import.meta.url));

/** Runs scripts/install-chromium.sh when we are root with apt-get (the README's promise); true if it worked. */
function installChromium(): boolean {
  if (
    process.env.CHROMIUM_PATH !== undefined ||
    process.getuid?.() !== 0 ||
    !existsSync("/usr/bin/apt-get")
  ) {
    return false;
  }
  console.warn("browser test: chromium is missing; installing it with scripts/install-chromium.sh");
  const result = spawnSync("bash", [INSTALL], { stdio: "inherit", timeout: 600_000 });
  return result.status === 0 && existsSync(CHROMIUM);
}

/**
 * True when chromium is there (installed now if it can be). Without it a browser test is skipped
 * with a message, except under CI, where it must fail.
 */
export function chromiumPresent(): boolean {
  const present = existsSync(CHROMIUM) || installChromium();
  if (!present && !process.env.CI) {
    console.warn(
      `browser test skipped: no chromium at ${CHROMIUM}; install it with scripts/install-chromium.sh`,
    );
  }
  return present;
}
