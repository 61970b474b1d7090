import { neverExpires } from "../../../core/project-expiry.js";
import type { CommandContext } from "../../context.js";
import { retryNote } from "../../context.js";
import { forEachLimit } from "../../deploy/concurrency.js";
import { ApiError } from "../../errors.js";
import { configDir } from "../../local/config-dir.js";
import { anonFingerprint } from "../../local/identity.js";
import { SavedProjects, type HeldProject } from "../../local/saved-projects.js";
import { ApiClient, PROJECT_GONE_CODES } from "../../net/api-client.js";
import { jsonLine } from "./output.js";

/** One held project as `deploy projects` shows it. */
interface ListedProject {
  projectSlug: string;
  productionUrl: string;
  /** When it expires, as the server says; null when the server no longer knows it. */
  expiresAt: string | null;
  expired: boolean;
  /** "gone" when the server answers that it no longer exists (or not to this token). */
  status: "active" | "expired" | "gone";
  /** The folder it is attached to on this machine, "" when none is. */
  dir: string;
}

/** State requests in flight at once. */
const CONCURRENCY = 4;

/**
 * `deploy projects`: the projects this machine holds tokens for on the API, each with its URL and
 * expiry as the server tells them now, and the folder it deploys from here.
 */
export async function projectsCommand(ctx: CommandContext): Promise<void> {
  const config = configDir(ctx.io.env);
  const all = await new SavedProjects(config).list();
  const here = all.filter(({ project }) => project.apiUrl === ctx.apiUrl);
  const fingerprint = here.length === 0 ? "" : await anonFingerprint(config);
  const listed: ListedProject[] = new Array<ListedProject>(here.length);
  await forEachLimit(here, CONCURRENCY, async (held, index) => {
    listed[index] = await describe(ctx, held, fingerprint);
  });
  const elsewhere = all.length - here.length;
  if (ctx.json) {
    ctx.io.stdout.write(jsonLine({ apiUrl: ctx.apiUrl, projects: listed, otherApis: elsewhere }));
    return;
  }
  const lines =
    listed.length === 0
      ? [`No project on ${ctx.apiUrl} is held here: \`deploy <dir>\` creates one.`]
      : [`${listed.length === 1 ? "1 project" : `${listed.length} projects`} on ${ctx.apiUrl}:`];
  for (const project of listed) {
    lines.push(`  ${project.projectSlug}  ${project.productionUrl}  ${expiryText(project)}`);
    lines.push(`    ${project.dir === "" ? "no folder linked" : project.dir}`);
  }
  if (elsewhere > 0) lines.push(`(and ${elsewhere} on other APIs: --api-url names one)`);
  ctx.io.stdout.write(`${lines.join("\n")}\n`);
}

/** When a listed project expires, in a few words; a server with PROJECT_TTL_SECONDS=0 keeps it forever. */
function expiryText(project: ListedProject): string {
  if (project.status === "gone") return "gone from the server";
  if (neverExpires(project.expiresAt!)) return "never expires";
  return `${project.status === "expired" ? "expired" : "expires"} ${project.expiresAt!.slice(0, 10)}`;
}

async function describe(ctx: CommandContext, held: HeldProject, fingerprint: string): Promise<ListedProject> {
  const { project } = held;
  const identity = { projectHash: held.projectHash, anonFingerprint: fingerprint };
  const api = new ApiClient(ctx.apiUrl, identity, ctx.retry, retryNote(ctx.progress));
  const base = { projectSlug: project.projectSlug, dir: project.dir };
  try {
    const state = await api.state(project.projectSlug, project.apiToken);
    const expired = Date.parse(state.project.expiresAt) <= Date.now();
    return {
      ...base,
      productionUrl: state.project.productionUrl,
      expiresAt: state.project.expiresAt,
      expired,
      status: expired ? "expired" : "active",
    };
  } catch (error) {
    if (!(error instanceof ApiError && PROJECT_GONE_CODES.has(error.code))) throw error;
    return { ...base, productionUrl: project.productionUrl, expiresAt: null, expired: true, status: "gone" };
  }
}
