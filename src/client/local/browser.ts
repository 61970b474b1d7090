import { spawn } from "node:child_process";

/** How long an opener may run before it is left to itself (a browser started by $BROWSER may stay). */
const OPENER_WAIT_MS = 3000;

/** A command and its first arguments; the URL goes last. */
export interface Opener {
  command: string;
  args: string[];
}

/**
 * The command that opens a URL: $BROWSER when set (as xdg-open and many tools honour it; `none`
 * opens nothing), else the platform's opener: `open` on macOS, `start` on Windows, `xdg-open`.
 */
export function browserOpener(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): Opener | undefined {
  const browser = env.BROWSER?.trim();
  if (browser === "none") return undefined;
  if (browser !== undefined && browser !== "") {
    // $BROWSER may list several, separated by colons; the first is tried. No shell runs it.
    const [command, ...args] = browser.split(":")[0]!.trim().split(/\s+/);
    return command === undefined || command === "" ? undefined : { command, args };
  }
  if (platform === "darwin") return { command: "open", args: [] };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  return { command: "xdg-open", args: [] };
}

/**
 * Opens an http(s) URL with the opener; true when it started and (within a few seconds) did not
 * fail, false when there is none, it is missing, or it failed. Never throws.
 */
export function openInBrowser(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<boolean> {
  const opener = browserOpener(env);
  if (opener === undefined || !/^https?:\/\//.test(url)) return Promise.resolve(false);
  const target = process.platform === "win32" ? url.replace(/&/g, "^&") : url;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(opener.command, [...opener.args, target], {
        stdio: "ignore",
        detached: true,
        env: { ...env },
      });
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, OPENER_WAIT_MS);
    child.once("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
