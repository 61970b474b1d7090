import { hashAsset } from "../../../src/core/asset-hash.js";
import { UploadPlatformError } from "../../../src/core/errors.js";
import type { PublishInput } from "../../../src/core/ports/index.js";
import { CloudflarePlatform } from "../../../src/platform/cloudflare/cloudflare-platform.js";
import { uploadBucket } from "../multipart.js";
import { type CloudflareApi, startCloudflareApi } from "./server.js";

/** Settings of the stand-in's account, as the tests configure the platform. */
export const CF = {
  accountId: "0123456789abcdef0123456789abcdef",
  apiToken: "test-token-0123456789abcdef",
  dispatchNamespace: "sites",
  kvNamespaceId: "fedcba9876543210fedcba9876543210",
  zoneId: "00112233445566778899aabbccddeeff",
};

/** A Cloudflare platform on a fresh stand-in; its waits between retries are recorded, not slept. */
export async function cloudflareFixture(): Promise<{
  api: CloudflareApi;
  platform: CloudflarePlatform;
  clock: { now: number };
  waits: number[];
  /** Opens a session for `files` and uploads them: its id and completion token. */
  upload(slug: string, files: Record<string, string>): Promise<{ sessionId: string; completion: string }>;
  /** Uploads and publishes `files` on `<slug>.sites.test` for a day; `input` overrides the publish. */
  deploy(
    slug: string,
    revisionId: string,
    files: Record<string, string>,
    input?: Partial<PublishInput>,
  ): Promise<void>;
}> {
  const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
  const api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => clock.now });
  const waits: number[] = [];
  const platform = new CloudflarePlatform({
    ...CF,
    apiBaseUrl: api.url,
    sitesDomain: "sites.test",
    now: () => clock.now,
    retryBudgetMs: 10_000,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  async function upload(slug: string, files: Record<string, string>) {
    const entries = [];
    const bytes = new Map<string, Buffer>();
    for (const [path, text] of Object.entries(files)) {
      const body = Buffer.from(text);
      const hash = await hashAsset(body, path);
      entries.push({ path, hash, size: body.length });
      bytes.set(hash, body);
    }
    const session = await platform.openUploadSession({
      projectSlug: slug,
      entries,
      expiresAt: new Date(clock.now + 3_600_000),
    });
    let completion = session.buckets.length === 0 ? session.uploadJwt : undefined;
    for (const bucket of session.buckets) {
      const reply = await uploadBucket(
        session.uploadUrl,
        session.uploadJwt,
        bucket.map((hash) => ({ hash, bytes: bytes.get(hash)! })),
      );
      if (reply.status === 201) completion = reply.body.result.jwt;
    }
    if (completion === undefined) throw new UploadPlatformError("the stand-in issued no completion token");
    return { sessionId: session.sessionId, completion };
  }
  async function deploy(
    slug: string,
    revisionId: string,
    files: Record<string, string>,
    input: Partial<PublishInput> = {},
  ) {
    const { sessionId, completion } = await upload(slug, files);
    await platform.publishRevision({
      projectSlug: slug,
      revisionId,
      sessionId,
      completionJwt: completion,
      hostnames: [`${slug}.sites.test`],
      expiresAt: new Date(clock.now + 86_400_000),
      ...input,
    });
  }
  return { api, platform, clock, waits, upload, deploy };
}
