import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Debian's caddy and pebble, and openssl for the throwaway CA of pebble's own listener. */
export const TOOLS = { caddy: "/usr/bin/caddy", pebble: "/usr/bin/pebble", openssl: "/usr/bin/openssl" };
const INSTALL = fileURLToPath(new URL("../../scripts/install-https-tools.sh", import.meta.url));

const allPresent = () => Object.values(TOOLS).every((path) => existsSync(path));

/** Runs scripts/install-https-tools.sh when we are root with apt-get; true if it worked. */
function install(): boolean {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) return false;
  console.warn("https test: caddy or pebble is missing; installing them with scripts/install-https-tools.sh");
  const result = spawnSync("bash", [INSTALL], { stdio: "inherit", timeout: 600_000 });
  return result.status === 0 && allPresent();
}

/**
 * True when caddy, pebble and openssl are there (installed now if they can be). Without them the
 * HTTPS test is skipped with a message, except under CI, where it must fail.
 */
export function httpsToolsPresent(): boolean {
  const present = allPresent() || install();
  if (!present && !process.env.CI) {
    console.warn(
      "https test skipped: caddy, pebble or openssl missing; install them with scripts/install-https-tools.sh",
    );
  }
  return present;
}
