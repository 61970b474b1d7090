import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/http.js";
import { createTestProject, identity } from "../support/deploy-flow.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

/** `deploy --message` through the client against a server on `store`, SQLite or PostgreSQL. */
function messageSuite(store: string, start: () => Promise<TestBed>): void {
  let bed: TestBed;
  beforeAll(async () => {
    bed = await start();
  });
  afterAll(async () => {
    await bed?.stop();
  });

  const json = async (argv: string[]) => {
    const run = await runInProcess([...argv, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };

  it(`deploy --message (${store}): list and status show the message of each revision, as text and --json`, async () => {
    const dir = join(bed.dir, "message-site");
    await writeSite(dir, { "index.html": "one" });
    const one = await json([dir, "--message", "first: the landing page ✓"]);
    expect(one.message).toBe("first: the landing page ✓");
    // The same files again, with a message: a revision of its own (a message belongs to one).
    const two = await json([dir, "-m", "same files, new words"]);
    expect(two.revisionId).not.toBe(one.revisionId);
    expect(two.unchanged).toBeUndefined();
    await writeSite(dir, { "index.html": "three" });
    const three = await json([dir]);

    const listed = await json(["list", "--dir", dir]);
    expect(listed.revisions.map((r: any) => [r.revisionId, r.message])).toEqual([
      [three.revisionId, null],
      [two.revisionId, "same files, new words"],
      [one.revisionId, "first: the landing page ✓"],
    ]);
    const list = await runInProcess(["list", "--dir", dir], bed.env);
    const lines = list.stdout.split("\n");
    expect(lines[0]).toMatch(/REVISION +DEPLOYED +FILES +SIZE +MESSAGE$/);
    expect(lines[2]).toMatch(new RegExp(`^ +${two.revisionId} .*  same files, new words$`));
    expect(lines[3]).toMatch(/first: the landing page ✓$/);

    const noMessage = await runInProcess(["status", "--dir", dir], bed.env);
    expect(noMessage.stdout).not.toContain("Message:");
    const promoted = await runInProcess(["promote", one.revisionId, "--dir", dir], bed.env);
    expect(promoted.code, promoted.stderr).toBe(0);
    const status = await runInProcess(["status", "--dir", dir], bed.env);
    expect(status.stdout).toContain("  Message:    first: the landing page ✓\n");
    expect((await json(["status", "--dir", dir])).message).toBe("first: the landing page ✓");
  });

  it(`deploy --message (${store}): an empty, multi-line or overlong message is a usage error, nothing created`, async () => {
    const dir = join(bed.dir, "bad-message");
    await writeSite(dir, { "index.html": "x" });
    for (const message of ["", "two\nlines", "x".repeat(501), "bell\u0007"]) {
      const run = await runInProcess([dir, "--message", message], bed.env);
      expect(run.code, message).toBe(2);
      expect(run.stderr).toMatch(/--message: a message is/);
    }
    const status = await runInProcess(["status", "--dir", dir], bed.env);
    expect(status.stderr).toContain("no project for");
  });

  it(`deploy route (${store}): a message with a control character or over 500 characters is 400 INVALID_REQUEST naming it`, async () => {
    const p = await createTestProject(bed.server.urls.api!, "message-api");
    for (const message of ["\u001b[31mred", "y".repeat(501), 42]) {
      const res = await api(bed.server.urls.api!, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: "d".repeat(20), completionJwt: "x", message },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.message).toMatch(/^message/);
    }
  });
}

describe("deploy messages on SQLite", () => {
  messageSuite("SQLite", () => startTestBed());
});

await describePostgres("deploy messages on PostgreSQL", () => {
  messageSuite("PostgreSQL", () => {
    const options = testPostgres();
    return startTestBed({ databaseUrl: options.url, databaseSchema: options.schema });
  });
});
