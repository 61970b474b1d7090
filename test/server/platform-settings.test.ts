import { jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { createTestProject } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { databaseFiles, queryDatabase } from "../support/store-snapshot.js";
import { prepareFiles } from "../support/upload-flow.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A row of the platform database's settings table. */
function setting(dataDir: string, key: string): string | undefined {
  return queryDatabase<{ value: string }>(
    databaseFiles(dataDir).platform,
    "SELECT value FROM settings WHERE key = ?",
    key,
  )[0]?.value;
}

describe("the built-in platform's settings", () => {
  it("start: the account id and the upload signing secret are kept as account_id and upload_jwt_secret", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const project = await createTestProject(server.urls.api, "settings");
    const { prepared } = await prepareFiles(server.urls.api, project, { "/index.html": "<p>kept</p>" });
    const accountId = /\/accounts\/([0-9a-f]+)\//.exec(prepared.urls.upload as string)![1];
    expect(setting(server.dataDir, "account_id")).toBe(accountId);
    const secret = setting(server.dataDir, "upload_jwt_secret");
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await expect(
      jwtVerify(prepared.uploadJwt as string, new TextEncoder().encode(secret)),
    ).resolves.toBeDefined();
  });
});
