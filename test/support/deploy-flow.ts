import { createHash } from "node:crypto";
import { hashAsset } from "../../src/core/asset-hash.js";
import { api, type JsonResponse } from "./http.js";
import { uploadBucket } from "./multipart.js";

/** A random-looking 64-hex identity value derived from a label, so tests read well. */
export function hex64(label: string): string {
  return createHash("sha256").update(label).digest("hex");
}

/** A created project as the tests hold it: its slug, token and identity. */
export interface TestProject {
  slug: string;
  token: string;
  projectHash: string;
  anonFingerprint: string;
  project: any;
}

/** Creates a project through the API. */
export async function createTestProject(apiUrl: string, label = "site"): Promise<TestProject> {
  const identity = { projectHash: hex64(`${label}-hash`), anonFingerprint: hex64(`${label}-fp`) };
  const created = await api(apiUrl, "POST", "/projects", { body: identity });
  if (created.status !== 201)
    throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  return {
    ...identity,
    slug: created.body.project.projectSlug,
    token: created.body.apiToken,
    project: created.body.project,
  };
}

/** The identity fields every project route needs in its body. */
export function identity(p: TestProject): { projectHash: string; anonFingerprint: string } {
  return { projectHash: p.projectHash, anonFingerprint: p.anonFingerprint };
}

/** Hashes files (path inside the site → content) into a manifest for the project. */
export async function manifestOf(
  slug: string,
  files: Record<string, string | Buffer>,
): Promise<{ manifest: Record<string, { hash: string; size: number }>; byHash: Map<string, Buffer> }> {
  const manifest: Record<string, { hash: string; size: number }> = {};
  const byHash = new Map<string, Buffer>();
  for (const [path, content] of Object.entries(files)) {
    const bytes = Buffer.from(content);
    const hash = await hashAsset(bytes, path);
    manifest[`/${slug}${path}`] = { hash, size: bytes.length };
    byHash.set(hash, bytes);
  }
  return { manifest, byHash };
}

/** Prepares, uploads every bucket and completes a deploy; returns the prepare and deploy bodies. */
export async function deployFiles(
  apiUrl: string,
  p: TestProject,
  files: Record<string, string | Buffer>,
): Promise<{ prepared: any; deployed: any }> {
  const { manifest, byHash } = await manifestOf(p.slug, files);
  const prepared = await api(apiUrl, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    body: { ...identity(p), manifest },
  });
  if (prepared.status !== 200)
    throw new Error(`prepare failed: ${prepared.status} ${JSON.stringify(prepared.body)}`);
  let completionJwt: string = prepared.body.uploadJwt;
  for (const bucket of prepared.body.buckets as string[][]) {
    const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
    const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
    if (uploaded.status === 201) completionJwt = uploaded.body.result.jwt;
    else if (uploaded.status !== 202)
      throw new Error(`upload failed: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
  }
  const deployed = await api(apiUrl, "POST", `/projects/${p.slug}/deploy`, {
    token: p.token,
    body: { ...identity(p), deployId: prepared.body.deployId, completionJwt },
  });
  if (deployed.status !== 200)
    throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  return { prepared: prepared.body, deployed: deployed.body };
}

/** Assigns `domain` (any JSON value, to test refusals) to the project, whatever the answer. */
export function assignDomain(apiUrl: string, p: TestProject, domain: unknown): Promise<JsonResponse> {
  return api(apiUrl, "POST", `/projects/${p.slug}/domains`, {
    token: p.token,
    body: { ...identity(p), domain },
  });
}

/** Resets the project to its generated hostname, whatever the answer. */
export function resetDomain(apiUrl: string, p: TestProject): Promise<JsonResponse> {
  return api(apiUrl, "DELETE", `/projects/${p.slug}/domains`, { token: p.token, body: identity(p) });
}

/** Deletes the project, whatever the answer. */
export function deleteProject(apiUrl: string, p: TestProject): Promise<JsonResponse> {
  return api(apiUrl, "DELETE", `/projects/${p.slug}`, { token: p.token, body: identity(p) });
}
