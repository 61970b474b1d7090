import { InternalError } from "../errors.js";
import { generatedHostname } from "../hostnames.js";
import { generateApiToken, generateProjectSlug, sha256Hex } from "../ids.js";
import { projectExpiry } from "../project-expiry.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";

const SLUG_ATTEMPTS = 8;

/**
 * Creates an anonymous project, recording the client address that created it; the raw token is
 * returned here once and never kept.
 */
export async function createProject(
  services: Services,
  input: { projectHash: string; anonFingerprint: string; clientAddress?: string },
): Promise<{ project: PublicProject; apiToken: string }> {
  const { store, config } = services;
  const apiToken = generateApiToken();
  const now = services.now();
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const slug = generateProjectSlug();
    const hostname = generatedHostname(slug, config.sites);
    // A vanity hostname another project assigned itself is as taken as a slug.
    if (await store.getProjectByHostname(hostname)) continue;
    const record = {
      slug,
      projectHash: input.projectHash.toLowerCase(),
      anonFingerprint: input.anonFingerprint.toLowerCase(),
      tokenHash: sha256Hex(apiToken),
      generatedHostname: hostname,
      customHostname: null,
      domain: null,
      revisionId: null,
      createdAt: now.toISOString(),
      expiresAt: projectExpiry(now, config.projectTtlSeconds).toISOString(),
      // Whose storage its content counts against (CLIENT_QUOTA_BYTES).
      createdBy: input.clientAddress ?? null,
    };
    if (await store.createProject(record)) {
      return { project: toPublicProject(record, config.sites), apiToken };
    }
  }
  throw new InternalError("could not find a free project slug");
}
