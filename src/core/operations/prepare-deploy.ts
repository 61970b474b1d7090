import { generateOpaqueId, generateRevisionId } from "../ids.js";
import { Pacer } from "../../shared/event-loop.js";
import { CheckedManifest } from "../checked-manifest.js";
import { parseManifestSliced } from "../manifest.js";
import { addSeconds, type PublicProject, type Services, toPublicProject } from "./services.js";
import { revisionUrl } from "../site-urls.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";
import { manifestDigest } from "../manifest-digest.js";
import { renewByDigest, renewIfUnchanged, type UnchangedDeploy } from "./unchanged-redeploy.js";

/** The prepare response (contract §3). */
export interface PreparedDeploy {
  deployId: string;
  accountId: string;
  revisionId: string;
  uploadJwt: string;
  buckets: string[][];
  project: PublicProject;
  urls: { upload: string; production: string; revision: string };
  expiresAt: string;
}

/**
 * Prepares a deploy: checks the manifest, opens an upload session for what the platform lacks, and
 * records the preparation, which lives DEPLOY_TTL_SECONDS. With `skipUnchanged`, a manifest that
 * production already serves opens nothing: the project's expiry is renewed and that is the answer;
 * with `manifestDigest` instead of the manifest, that is the only answer (`renewByDigest`).
 */
export async function prepareDeploy(
  services: Services,
  input: ProjectCredentials & {
    manifest: unknown;
    clientAddress?: string;
    skipUnchanged?: boolean;
    manifestDigest?: string;
  },
): Promise<PreparedDeploy | UnchangedDeploy> {
  if (input.manifestDigest !== undefined) {
    return renewByDigest(services, { ...input, manifestDigest: input.manifestDigest });
  }
  const { store, platform, config } = services;
  // Formats first (contract §5): the manifest is judged before the project and ownership, in
  // slices, so that 100,000 entries do not hold the thread the edge and uploads share.
  // A large body's manifest was checked and digested in a worker thread (`CheckedManifest`).
  const pacer = new Pacer();
  const checked =
    input.manifest instanceof CheckedManifest
      ? await input.manifest.open(pacer)
      : { entries: await parseManifestSliced(input.manifest, input.projectSlug, config.limits, pacer) };
  const { entries } = checked;
  const project = await authorize(services, input);
  const now = services.now();
  const expiresAt = addSeconds(now, config.deployTtlSeconds);
  // Under the project's lock, as deletion is: a deletion that ran since `authorize` is seen here
  // (404), and one that comes later removes this session and deploy with the rest of the project.
  const digest = "digest" in checked ? checked.digest : manifestDigest(entries);
  const prepared = await withProjectLock(services, project, async (current) => {
    if (input.skipUnchanged === true) {
      const unchanged = await renewIfUnchanged(services, current, digest);
      if (unchanged) return unchanged;
    }
    const session = await callPlatform(() =>
      platform.openUploadSession({
        projectSlug: project.slug,
        entries,
        expiresAt,
        clientAddress: input.clientAddress,
        manifestDigest: digest,
        ...("byPath" in checked ? { byPath: checked.byPath } : {}),
        // Whose client quota the project's storage counts against (CLIENT_QUOTA_BYTES).
        ...(current.createdBy
          ? { owner: { clientAddress: current.createdBy, createdAt: new Date(current.createdAt) } }
          : {}),
      }),
    );
    const deploy = {
      deployId: generateOpaqueId(),
      projectSlug: project.slug,
      revisionId: generateRevisionId(),
      sessionId: session.sessionId,
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
      completedAt: null,
      completionHash: null,
      fileCount: entries.length,
      byteCount: entries.reduce((sum, entry) => sum + entry.size, 0),
      manifestDigest: digest,
    };
    await store.createDeploy(deploy);
    return { session, deploy, current };
  });
  if ("unchanged" in prepared) return prepared;
  const { session, deploy, current } = prepared;
  const publicProject = toPublicProject(current, config.sites);
  return {
    deployId: deploy.deployId,
    accountId: session.accountId,
    revisionId: deploy.revisionId,
    uploadJwt: session.uploadJwt,
    buckets: session.buckets,
    project: publicProject,
    urls: {
      upload: session.uploadUrl,
      production: publicProject.productionUrl,
      revision: revisionUrl(deploy.revisionId, project.slug, config.sites),
    },
    expiresAt: deploy.expiresAt,
  };
}
