import { blobStoreState, databaseFiles, queryDatabase } from "./store-snapshot.js";
import { type TestProject, identity, manifestOf } from "./deploy-flow.js";
import { api, type JsonResponse } from "./http.js";

/** A prepared deploy as the tests hold it: the prepare body and the content by hash. */
export interface PreparedFiles {
  prepared: any;
  manifest: Record<string, { hash: string; size: number }>;
  byHash: Map<string, Buffer>;
  /** Hash of each path inside the site. */
  hashOf: (path: string) => string;
}

/** Hashes `files` into a manifest and prepares a deploy of it; throws unless prepare answers 200. */
export async function prepareFiles(
  apiUrl: string,
  p: TestProject,
  files: Record<string, string | Buffer>,
): Promise<PreparedFiles> {
  const { manifest, byHash } = await manifestOf(p.slug, files);
  const response = await api(apiUrl, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    body: { ...identity(p), manifest },
  });
  if (response.status !== 200)
    throw new Error(`prepare failed: ${response.status} ${JSON.stringify(response.body)}`);
  return {
    prepared: response.body,
    manifest,
    byHash,
    hashOf: (path) => manifest[`/${p.slug}${path}`]!.hash,
  };
}

/** Calls the deploy route with a deploy id and a completion token, whatever the answer. */
export function completeDeploy(
  apiUrl: string,
  p: TestProject,
  deployId: string,
  completionJwt: string,
): Promise<JsonResponse> {
  return api(apiUrl, "POST", `/projects/${p.slug}/deploy`, {
    token: p.token,
    body: { ...identity(p), deployId, completionJwt },
  });
}

/** POSTs any body to an upload URL, with an optional bearer token and Content-Type. */
export async function rawUpload(
  url: string,
  options: { token?: string; contentType?: string; body?: Buffer | string },
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.contentType !== undefined) headers["content-type"] = options.contentType;
  const response = await fetch(url, { method: "POST", headers, body: options.body ?? "" });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The hashes of every blob a DATA_DIR holds whole: a row not marked damaged whose bytes are on
 * disk (in its pack, or its own file from before packs).
 */
export function storedBlobs(dataDir: string): Set<string> {
  const state = blobStoreState(dataDir);
  const broken = new Set([...state.missingFiles, ...state.wrongSize]);
  const rows = queryDatabase<{ hash: string }>(
    databaseFiles(dataDir).platform,
    "SELECT hash FROM blobs WHERE damaged = 0",
  );
  return new Set(rows.map((row) => row.hash).filter((hash) => !broken.has(hash)));
}

/** The payload of a JWT, decoded without checking its signature. */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}
