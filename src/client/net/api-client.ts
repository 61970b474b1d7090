import type {
  CompletedDeploy,
  CreateProjectResult,
  DeleteResult,
  DomainResult,
  Identity,
  Manifest,
  PreparedDeploy,
  UnchangedDeploy,
  ProjectState,
  PromotedRevision,
  PublicProject,
  ServerLimits,
} from "./api-types.js";
import { ApiError, CliError } from "../errors.js";
import { headerValue, sendRequest, type HttpResponse } from "./http.js";
import {
  isRetryable,
  isRetryableUnsent,
  parseRetryAfter,
  withRetry,
  type RetryNotice,
  type RetryPolicy,
} from "./retry.js";

/** Codes after which the saved project is gone for good: the deploy command makes a new one. */
export const PROJECT_GONE_CODES = new Set(["UNAUTHORIZED", "PROJECT_NOT_FOUND", "PROJECT_EXPIRED"]);

/**
 * The deploy API over HTTP: one method per route, retrying network errors, 5xx, 429 and 408, except
 * project creation, which is retried only when the server surely did nothing.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly identity: Identity,
    private readonly retry: RetryPolicy,
    private readonly onRetry?: (notice: RetryNotice) => void,
  ) {}

  /** The identity fields this client sends. */
  get identityFields(): Identity {
    return this.identity;
  }

  /**
   * POST /projects: creates a project for this folder. Not idempotent: a retry after the request may
   * have arrived (a lost answer, a 5xx) could create a second project and spend the rate limit.
   */
  createProject(): Promise<CreateProjectResult> {
    return this.call("create a project", "POST", "/projects", undefined, {}, isRetryableUnsent);
  }

  /**
   * GET /limits: what the server refuses, asked before anything is created; undefined from a server
   * older than the route (its 404), which then judges the manifest itself as before.
   */
  async limits(): Promise<ServerLimits | undefined> {
    const step = "read the server's limits";
    const url = `${this.baseUrl}/limits`;
    const headers = { accept: "application/json" };
    try {
      const response = await withRetry(
        async () => checkStatus(step, url, await sendRequest(step, { method: "GET", url, headers })),
        this.retry,
        this.onRetry,
      );
      return JSON.parse(response.text) as ServerLimits;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      if (error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** POST /projects/:slug/prepare: hands the manifest in, gets buckets and an upload token. */
  prepare(slug: string, token: string, manifest: Manifest): Promise<PreparedDeploy> {
    return this.call("prepare the deploy", "POST", `/projects/${slug}/prepare`, token, { manifest });
  }

  /**
   * POST /projects/:slug/prepare with `skipUnchanged`: the same, or `{ unchanged: true, … }` when
   * production already serves exactly this manifest (nothing to upload, nothing to publish).
   */
  prepareUnlessUnchanged(
    slug: string,
    token: string,
    manifest: Manifest,
  ): Promise<PreparedDeploy | UnchangedDeploy> {
    const body = { manifest, skipUnchanged: true };
    return this.call("prepare the deploy", "POST", `/projects/${slug}/prepare`, token, body);
  }

  /**
   * POST /projects/:slug/prepare naming the manifest by its digest alone (with `skipUnchanged`):
   * `{ unchanged: true, … }` when production was deployed from it, else a MANIFEST_CHANGED error.
   */
  prepareByDigest(slug: string, token: string, manifestDigest: string): Promise<UnchangedDeploy> {
    const body = { skipUnchanged: true, manifestDigest };
    return this.call("prepare the deploy", "POST", `/projects/${slug}/prepare`, token, body);
  }

  /**
   * POST /projects/:slug/deploy: completes a prepared deploy (a preview leaves production), sending
   * the texts of the site's rules files when it has any.
   */
  deploy(
    slug: string,
    token: string,
    deployId: string,
    completionJwt: string,
    options: {
      preview?: boolean;
      siteRules?: { redirects?: string; headers?: string };
      message?: string | undefined;
      alias?: string | undefined;
    } = {},
  ): Promise<CompletedDeploy> {
    const { preview, siteRules, message, alias } = options;
    const hasRules = siteRules !== undefined && Object.keys(siteRules).length > 0;
    const body = {
      deployId,
      completionJwt,
      ...(preview && { preview }),
      ...(hasRules && { siteRules }),
      ...(message !== undefined && { message }),
      ...(alias !== undefined && { alias }),
    };
    return this.call("complete the deploy", "POST", `/projects/${slug}/deploy`, token, body);
  }

  /** POST /projects/:slug/state: the project and its kept revisions, newest first. */
  state(slug: string, token: string): Promise<ProjectState> {
    return this.call("read the project", "POST", `/projects/${slug}/state`, token, {});
  }

  /** POST /projects/:slug/promote: makes a kept revision production (idempotent). */
  promote(slug: string, token: string, revisionId: string): Promise<PromotedRevision> {
    return this.call("promote the revision", "POST", `/projects/${slug}/promote`, token, { revisionId });
  }

  /** POST /projects/:slug/domains: assigns a hostname. */
  assignDomain(slug: string, token: string, domain: string): Promise<DomainResult> {
    return this.call("assign the domain", "POST", `/projects/${slug}/domains`, token, { domain });
  }

  /** POST /projects/:slug/domains/check: asks DNS about the custom hostname now. */
  checkDomain(slug: string, token: string): Promise<DomainResult> {
    return this.call("check the domain", "POST", `/projects/${slug}/domains/check`, token, {});
  }

  /** DELETE /projects/:slug/domains: back to the generated hostname. */
  resetDomain(slug: string, token: string): Promise<{ project: PublicProject }> {
    return this.call("reset the domain", "DELETE", `/projects/${slug}/domains`, token, {});
  }

  /** DELETE /projects/:slug: deletes the project. */
  deleteProject(slug: string, token: string): Promise<DeleteResult> {
    return this.call("delete the project", "DELETE", `/projects/${slug}`, token, {});
  }

  private async call<T>(
    step: string,
    method: "POST" | "DELETE",
    path: string,
    token: string | undefined,
    fields: Record<string, unknown>,
    retryable: (error: unknown) => boolean = isRetryable,
  ): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const body = JSON.stringify({ ...this.identity, ...fields });
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      accept: "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const response = await withRetry(
      async () => checkStatus(step, url, await sendRequest(step, { method, url, headers, body })),
      this.retry,
      this.onRetry,
      retryable,
    );
    try {
      return JSON.parse(response.text) as T;
    } catch {
      throw new CliError(
        "BAD_RESPONSE",
        `could not ${step}: ${url} answered ${response.status} with a body that is not JSON`,
      );
    }
  }
}

function checkStatus(step: string, url: string, response: HttpResponse): HttpResponse {
  if (response.status >= 200 && response.status < 300) return response;
  const { code, message } = readError(response);
  const retryAfter = parseRetryAfter(headerValue(response.headers["retry-after"]));
  throw new ApiError(step, url, response.status, code, message, hintFor(code, response.status), retryAfter);
}

/** The code and message of an error answer, whichever form it takes (contract §5). */
function readError(response: HttpResponse): { code: string; message: string } {
  try {
    const parsed = JSON.parse(response.text) as { error?: unknown };
    const error = parsed.error;
    if (typeof error === "string") return { code: `HTTP_${response.status}`, message: error };
    if (typeof error === "object" && error !== null) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      return { code: String(code ?? `HTTP_${response.status}`), message: String(message ?? "") };
    }
  } catch {
    // not JSON: fall through
  }
  const snippet = response.text.trim().slice(0, 200) || "(empty body)";
  return { code: `HTTP_${response.status}`, message: snippet };
}

function hintFor(code: string, status: number): string | undefined {
  switch (code) {
    case "OWNERSHIP_MISMATCH":
      return "The token kept in your config folder does not match this folder's project; check DEPLOY_CONFIG_DIR.";
    case "PROJECT_EXPIRED":
    case "PROJECT_NOT_FOUND":
    case "UNAUTHORIZED":
      return "Run `deploy` in this folder to create a new project.";
    case "REVISION_NOT_FOUND":
      return "`deploy list` shows the revisions the project keeps.";
    case "DOMAIN_TAKEN":
      return "Another project holds this hostname; choose another.";
    case "INVALID_DOMAIN":
      return "Give a hostname such as www.example.com or my-name.<sites domain>.";
    case "RATE_LIMITED":
      return "Wait a little and run the command again.";
    default:
      if (status === 404 || status === 405)
        return "Is --api-url (or DEPLOY_API_URL) the deploy API's address?";
      return status >= 500 ? "The server failed; try again later, or ask its operator." : undefined;
  }
}
