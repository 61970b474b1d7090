import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "./sqlite.js";
import { checkpointInWorker } from "./wal-checkpointer.js";

describe("checkpointInWorker", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "wal-checkpoint-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("checkpointInWorker: the worker copies the log into the file before the connection would (under 1,000 pages), and stopping it leaves the connection whole", async () => {
    const file = join(dir, "a.sqlite");
    const db = openSqlite(file);
    const stop = checkpointInWorker(file);
    try {
      db.exec("CREATE TABLE t (v TEXT)");
      const before = statSync(file).size;
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      // About 2 MB of log: under the 1,000 pages (4 MB) past which the connection checkpoints itself.
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) insert.run("x".repeat(1000));
      })();
      const deadline = Date.now() + 10_000;
      while (statSync(file).size <= before + 1_000_000 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(statSync(file).size).toBeGreaterThan(before + 1_000_000);
      await stop();
      expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 2000 });
    } finally {
      await stop();
      db.close();
    }
  });
});
