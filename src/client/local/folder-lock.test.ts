import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lockFolder } from "./folder-lock.js";
import { refusal } from "../test-rejection.js";

let configDir: string;

beforeAll(async () => {
  configDir = await mkdtemp(join(tmpdir(), "folder-lock-"));
});
afterAll(() => rm(configDir, { recursive: true, force: true }));

const lockPath = (key: string) => join(configDir, "locks", `${key}.lock`);

function lock(key: string, waitSeconds: number, waits: string[] = []) {
  return lockFolder({
    configDir,
    key,
    dir: `/site/${key}`,
    waitSeconds,
    onWait: (message) => waits.push(message),
  });
}

describe("lockFolder", () => {
  it("lockFolder: the lock file names this run and its folder; the release removes it", async () => {
    const release = await lock("a", 0);
    const holder = JSON.parse(await readFile(lockPath("a"), "utf8")) as Record<string, unknown>;
    expect(holder).toEqual({ pid: process.pid, startedAt: expect.any(String), dir: "/site/a" });
    expect(Date.parse(holder.startedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    await release();
    await expect(stat(lockPath("a"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("lockFolder: a lock a live run holds is LOCKED once the wait is over, naming it and the file", async () => {
    const release = await lock("b", 0);
    const waits: string[] = [];
    const error = await refusal(lock("b", 0, waits));
    const holder = JSON.parse(await readFile(lockPath("b"), "utf8")) as { startedAt: string };
    expect(error.code).toBe("LOCKED");
    expect(error.message).toBe(
      `another run (pid ${process.pid}, since ${holder.startedAt}) is acting on /site/b; gave up waiting after 0 s`,
    );
    expect(error.hint).toBe(
      `Run again once it is done. If no such run is going on, remove ${lockPath("b")}.`,
    );
    expect(waits).toEqual([]);
    await release();
  });

  it("lockFolder: waits for a live holder, saying so once, and takes the lock when it is let go", async () => {
    const release = await lock("c", 0);
    const waits: string[] = [];
    const second = lock("c", 5, waits);
    await vi.waitFor(() => expect(waits).toHaveLength(1));
    await release();
    const releaseSecond = await second;
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(
      new RegExp(`^Waiting for another run \\(pid ${process.pid}, since .+\\) on /site/c to finish…$`),
    );
    await releaseSecond();
  });

  it("lockFolder: a lock left by a run that died is taken over at once", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    await mkdir(join(configDir, "locks"), { recursive: true });
    await writeFile(
      lockPath("d"),
      JSON.stringify({ pid: dead, startedAt: "2026-01-01T00:00:00.000Z", dir: "/x" }),
    );
    const waits: string[] = [];
    const release = await lock("d", 0, waits);
    expect(waits).toEqual([]);
    expect(JSON.parse(await readFile(lockPath("d"), "utf8")).pid).toBe(process.pid);
    await release();
  });

  it("lockFolder: a lock file that does not name its holder is held by 'another run'", async () => {
    await mkdir(join(configDir, "locks"), { recursive: true });
    for (const text of ["{", JSON.stringify({ pid: "1", startedAt: "x" }), JSON.stringify({ pid: 1 })]) {
      await writeFile(lockPath("e"), text);
      const error = await refusal(lock("e", 0));
      expect(error.message).toBe("another run is acting on /site/e; gave up waiting after 0 s");
    }
  });
  it("lockFolder: a holder that stays is waited for, said once, and given up on after the wait", async () => {
    const release = await lock("f", 0);
    const waits: string[] = [];
    const error = await refusal(lock("f", 0.35, waits));
    expect(error.message).toMatch(/gave up waiting after 0.35 s$/);
    // Several polls in 0.35 s, one line.
    expect(waits).toHaveLength(1);
    await release();
  });
});
