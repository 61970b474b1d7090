import { createHash, randomBytes } from "node:crypto";
import { assetHash } from "./asset-hash.js";

/** A project created through the API, with what every project route needs. */
export interface ApiProject {
  slug: string;
  token: string;
  projectHash: string;
  anonFingerprint: string;
}

interface JsonReply {
  status: number;
  body: unknown;
}

/** POSTs a JSON body (an object, or text already serialized) and parses the JSON answer. */
export async function postJson(url: string, body: unknown, token?: string): Promise<JsonReply> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** A fresh random identity (projectHash, anonFingerprint), as a new client folder would have. */
export function randomIdentity(): { projectHash: string; anonFingerprint: string } {
  const hex = () => createHash("sha256").update(randomBytes(32)).digest("hex");
  return { projectHash: hex(), anonFingerprint: hex() };
}

/** Creates a project through `POST /projects`. */
export async function createProject(apiUrl: string): Promise<ApiProject> {
  const identity = randomIdentity();
  const reply = await postJson(`${apiUrl}/projects`, identity);
  const body = reply.body as { project?: { projectSlug?: string }; apiToken?: string } | undefined;
  if (reply.status !== 201 || !body?.project?.projectSlug || !body.apiToken) {
    throw new Error(`POST /projects answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return { ...identity, slug: body.project.projectSlug, token: body.apiToken };
}

/** The body of a prepare request for a manifest given as site paths to hash and size. */
export function prepareBody(
  project: ApiProject,
  entries: Iterable<{ path: string; hash: string; size: number }>,
): string {
  const manifest: Record<string, { hash: string; size: number }> = {};
  for (const entry of entries)
    manifest[`/${project.slug}${entry.path}`] = { hash: entry.hash, size: entry.size };
  return JSON.stringify({
    projectHash: project.projectHash,
    anonFingerprint: project.anonFingerprint,
    manifest,
  });
}

/**
 * Publishes files (site path → bytes) through the API as any client would: create (unless a
 * project is given: then a redeploy of it), prepare, upload the buckets asked for (multipart of
 * base64 parts), deploy. Returns the project and its hostname. `phase` is told as each step starts
 * (a benchmark counting what each costs).
 */
export async function deployFiles(
  apiUrl: string,
  files: ReadonlyMap<string, Buffer>,
  existing?: ApiProject,
  phase: (name: "prepare" | "upload" | "deploy") => void = () => undefined,
): Promise<{ project: ApiProject; hostname: string }> {
  const project = existing ?? (await createProject(apiUrl));
  const entries: { path: string; hash: string; size: number; bytes: Buffer }[] = [];
  for (const [path, bytes] of files)
    entries.push({ path, bytes, size: bytes.length, hash: await assetHash(bytes, path) });
  phase("prepare");
  const prepared = await postJson(
    `${apiUrl}/projects/${project.slug}/prepare`,
    prepareBody(project, entries),
    project.token,
  );
  const plan = prepared.body as {
    deployId: string;
    uploadJwt: string;
    buckets: string[][];
    urls: { upload: string };
    project: { hostname: string };
  };
  if (prepared.status !== 200)
    throw new Error(`prepare answered ${prepared.status}: ${JSON.stringify(prepared.body)}`);
  let completionJwt = plan.uploadJwt;
  phase("upload");
  for (const bucket of plan.buckets) {
    const parts = bucket.map((hash) => {
      const entry = entries.find((candidate) => candidate.hash === hash);
      if (!entry) throw new Error(`the server asked for ${hash}, which was not sent`);
      return entry;
    });
    const jwt = await uploadBucket(plan.urls.upload, plan.uploadJwt, parts);
    if (jwt !== undefined) completionJwt = jwt;
  }
  phase("deploy");
  const deployed = await postJson(
    `${apiUrl}/projects/${project.slug}/deploy`,
    {
      projectHash: project.projectHash,
      anonFingerprint: project.anonFingerprint,
      deployId: plan.deployId,
      completionJwt,
    },
    project.token,
  );
  if (deployed.status !== 200)
    throw new Error(`deploy answered ${deployed.status}: ${JSON.stringify(deployed.body)}`);
  return { project, hostname: plan.project.hostname };
}

/** Uploads one bucket; returns the completion token when the service answers 201. */
export async function uploadBucket(
  url: string,
  jwt: string,
  parts: readonly { hash: string; bytes: Buffer }[],
): Promise<string | undefined> {
  const boundary = `bench-${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    // No Content-Type on the part: the service then takes the media type of the manifest path.
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.hash}"; filename="${part.hash}"\r\n\r\n`,
      ),
      Buffer.from(part.bytes.toString("base64")),
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat(chunks),
  });
  const body = (await response.json()) as { result?: { jwt?: string } };
  if (response.status === 201) return body.result?.jwt;
  if (response.status !== 202)
    throw new Error(`bucket upload answered ${response.status}: ${JSON.stringify(body)}`);
  return undefined;
}
