import { expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/index.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { storeContract } from "./store-contract.js";

await describePostgres("postgres store", () => {
  storeContract("postgres", () => openPostgresStore(testPostgres()));

  it("openPostgresStore: reopening a schema keeps what was stored and migrates again without harm", async () => {
    const options = testPostgres();
    const first = await openPostgresStore(options);
    await first.createProject({
      slug: "kept-otter-a1b2c",
      projectHash: "a".repeat(64),
      anonFingerprint: "b".repeat(64),
      tokenHash: "c".repeat(64),
      generatedHostname: "kept-otter-a1b2c.localhost",
      customHostname: null,
      domain: null,
      revisionId: null,
      createdAt: "2030-01-01T00:00:00.000Z",
      expiresAt: "2030-01-31T00:00:00.000Z",
    });
    await first.close();
    const second = await openPostgresStore(options);
    try {
      expect((await second.getProject("kept-otter-a1b2c"))?.generatedHostname).toBe(
        "kept-otter-a1b2c.localhost",
      );
    } finally {
      await second.close();
    }
  });
});
