import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { EdgeStorage } from "../../src/edge/edge-storage.js";
import { startTestEdge } from "../support/edge-site.js";
import { MemoryEdgeStorage } from "../support/memory-edge-storage.js";

// What every EdgeStorage does, run on the in-memory one the edge's unit tests use and on the
// self-hosted one the server hands the edge: the unit tests are only as good as their likeness.

interface Subject {
  storage: EdgeStorage;
  /** Makes `files` the revision `revisionId` of `slug`, served on `host`. */
  publish(host: string, slug: string, revisionId: string, files: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

const SUBJECTS: Record<string, () => Promise<Subject>> = {
  "in memory": async () => {
    const storage = new MemoryEdgeStorage();
    return {
      storage,
      publish: async (host, projectSlug, revisionId, files) =>
        void storage.publish(host, { projectSlug, revisionId, files }),
      close: async () => undefined,
    };
  },
  "self-hosted (SQLite, local folder)": async () => {
    const edge = await startTestEdge();
    return {
      storage: edge.storage,
      publish: (host, slug, revisionId, files) =>
        edge.publish({ slug, revisionId, files, hostnames: [host] }),
      close: () => edge.close(),
    };
  },
};

const HOST = "shop.example";
const PAGE = "<!doctype html><title>shop</title>";

for (const [name, start] of Object.entries(SUBJECTS)) {
  describe(`EdgeStorage ${name}`, () => {
    let subject: Subject | undefined;
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    /** The subject with one site published on HOST. */
    async function published(files: Record<string, string> = { "/index.html": PAGE }) {
      subject = await start();
      await subject.publish(HOST, "shop", "aaaaaaaaa1", files);
      return subject.storage;
    }

    it("lookupSite: a published host answers its revision, in any case and with a port; another host, undefined", async () => {
      const storage = await published();
      expect(await storage.lookupSite("SHOP.example:8080")).toMatchObject({
        projectSlug: "shop",
        revisionId: "aaaaaaaaa1",
        immutable: false,
      });
      expect(await storage.lookupSite("other.example")).toBeUndefined();
    });

    it("lookupSite: after a new publish on the host, a new target naming the new revision", async () => {
      const storage = await published();
      const before = await storage.lookupSite(HOST);
      await subject!.publish(HOST, "shop", "bbbbbbbbb2", { "/index.html": "new" });
      const after = await storage.lookupSite(HOST);
      expect(after).not.toBe(before);
      expect(after?.revisionId).toBe("bbbbbbbbb2");
    });

    it("findFile: a file has its bytes' size and its path's media type; a path of no file, undefined", async () => {
      const storage = await published();
      const file = await storage.findFile("shop", "aaaaaaaaa1", "/index.html");
      expect(file).toMatchObject({ size: PAGE.length, contentType: "text/html; charset=utf-8" });
      expect(await storage.findFile("shop", "aaaaaaaaa1", "/missing.html")).toBeUndefined();
    });

    it("rulesOf: a revision's _redirects compiled; a revision without rules files, empty rules", async () => {
      const storage = await published({ "/index.html": PAGE, "/_redirects": "/old /new 302\n" });
      const rules = await storage.rulesOf("shop", "aaaaaaaaa1");
      expect(rules.redirectFor("/old", "")).toMatchObject({ status: 302, location: "/new" });
      await subject!.publish("plain.example", "plain", "ccccccccc3", { "/index.html": PAGE });
      expect((await storage.rulesOf("plain", "ccccccccc3")).empty).toBe(true);
    });

    it("readBlob, openBlob: a file's bytes whole, and any range of them", async () => {
      const storage = await published();
      const { hash } = (await storage.findFile("shop", "aaaaaaaaa1", "/index.html"))!;
      expect((await storage.readBlob(hash)).toString()).toBe(PAGE);
      const blob = await storage.openBlob(hash);
      expect(blob.size).toBe(PAGE.length);
      expect((await buffer(blob.stream(2, 8))).toString()).toBe(PAGE.slice(2, 9));
      blob.close();
    });

    it("storeVariant: no variant until one is stored; then it is opened and sized as written", async () => {
      const storage = await published();
      const { hash } = (await storage.findFile("shop", "aaaaaaaaa1", "/index.html"))!;
      expect([await storage.variantSize(hash, "br"), await storage.openVariant(hash, "br")]).toEqual([
        undefined,
        undefined,
      ]);
      await storage.storeVariant(hash, "br", (sink) => pipeline(Readable.from([Buffer.from("coded")]), sink));
      expect(await storage.variantSize(hash, "br")).toBe(5);
      const variant = (await storage.openVariant(hash, "br"))!;
      expect((await buffer(variant.stream(0, variant.size - 1))).toString()).toBe("coded");
      variant.close();
    });
  });
}
