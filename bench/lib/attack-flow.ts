import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { postJson, prepareBody, type ApiProject } from "./api-deploy.js";

/** What a prepare answered: its status, and the plan when it was accepted. */
export interface PrepareReply {
  status: number;
  code?: string;
  plan?: { deployId: string; uploadJwt: string; buckets: string[][]; urls: { upload: string } };
}

/** Sends a prepare of `entries` (site paths) and returns its status, error code and plan. */
export async function prepare(
  apiUrl: string,
  project: ApiProject,
  entries: Iterable<{ path: string; hash: string; size: number }>,
): Promise<PrepareReply> {
  const reply = await postJson(
    `${apiUrl}/projects/${project.slug}/prepare`,
    prepareBody(project, entries),
    project.token,
  );
  if (reply.status !== 200) return { status: reply.status, code: errorCode(reply.body) };
  return { status: 200, plan: reply.body as PrepareReply["plan"] };
}

/** Completes a prepared deploy (as a preview when asked); returns the status and error code. */
export async function completeDeploy(
  apiUrl: string,
  project: ApiProject,
  deployId: string,
  completionJwt: string,
  preview: boolean,
): Promise<{ status: number; code?: string }> {
  const reply = await postJson(
    `${apiUrl}/projects/${project.slug}/deploy`,
    {
      projectHash: project.projectHash,
      anonFingerprint: project.anonFingerprint,
      deployId,
      completionJwt,
      preview,
    },
    project.token,
  );
  return { status: reply.status, code: errorCode(reply.body) };
}

/**
 * Posts one bucket whose parts are given as (hash, base64) pairs, repeated as listed; returns the
 * status, the upload error code and the completion token when there is one. `timeoutMs` bounds
 * the wait (an unbounded server would otherwise hold the bench for minutes).
 */
export async function postBucket(
  uploadUrl: string,
  jwt: string,
  parts: readonly { hash: string; base64: string }[],
  timeoutMs: number,
): Promise<{ status: number | "timed out"; code?: number; jwt?: string }> {
  const boundary = `attack-${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.hash}"; filename="${part.hash}"\r\n\r\n` +
          `${part.base64}\r\n`,
      ),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  try {
    const response = await fetch(uploadUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${jwt}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      body: Buffer.concat(chunks),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as { result?: { jwt?: string }; errors?: { code?: number }[] };
    return { status: response.status, code: body.errors?.[0]?.code, jwt: body.result?.jwt };
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return { status: "timed out" };
    throw error;
  }
}

/** Bytes of every file under `dir` (what a data directory holds on disk, roughly). */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The contract error's code, with the quota it names when there is one (`QUOTA_EXCEEDED (client)`). */
function errorCode(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown; quota?: unknown } } | undefined)?.error;
  if (typeof error?.code !== "string") return undefined;
  return typeof error.quota === "string" ? `${error.code} (${error.quota})` : error.code;
}
