import { createProject } from "../../src/core/operations/index.js";
import type { ProjectCredentials } from "../../src/core/operations/authorize.js";
import { hex64 } from "./deploy-flow.js";

/** What `run` rejects with: its class and message. */
export async function rejection(run: Promise<unknown>): Promise<{ type: string; message: string }> {
  const error = await run.then(
    () => new Error("expected a rejection, it resolved"),
    (e: unknown) => e as Error,
  );
  return { type: error.constructor.name, message: error.message };
}

/** Creates a project through the core operation (no HTTP); its credentials, named after `label`. */
export async function createCoreProject(
  services: Parameters<typeof createProject>[0],
  label: string,
): Promise<ProjectCredentials> {
  const identity = { projectHash: hex64(`${label}-hash`), anonFingerprint: hex64(`${label}-fp`) };
  const { project, apiToken } = await createProject(services, identity);
  return { projectSlug: project.projectSlug, apiToken, ...identity };
}
