import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { assetsRoutes } from "./assets-routes.js";
import { customHostnameRoutes } from "./custom-hostname-routes.js";
import { fail, ok } from "./envelope.js";
import { Faults } from "./faults.js";
import { kvRoutes } from "./kv-routes.js";
import { scriptRoutes } from "./script-routes.js";
import { setupRoutes } from "./setup-routes.js";
import { CloudflareState } from "./state.js";
import { UploadTokens } from "./upload-tokens.js";

/** A running Cloudflare API stand-in. */
export interface CloudflareApi {
  /** The v4 base URL, as CLOUDFLARE_API_BASE_URL takes it. */
  url: string;
  state: CloudflareState;
  faults: Faults;
  /** Every call it answered, as `METHOD path` (path after the base). */
  calls: string[];
  close(): Promise<void>;
}

/**
 * Starts, on 127.0.0.1, a stand-in for the part of Cloudflare's v4 API the platform uses, written
 * from Cloudflare's documentation and the SDK's types: the envelope, the API token (Bearer; the
 * bucket upload takes the upload JWT instead), the assets upload, dispatch-namespace scripts,
 * Workers KV and custom hostnames. `now` is the stand-in's clock (JWT expiry).
 */
export async function startCloudflareApi(options: {
  apiToken: string;
  now: () => number;
}): Promise<CloudflareApi> {
  const state = new CloudflareState();
  const faults = new Faults();
  const calls: string[] = [];
  const tokens = new UploadTokens(options.now);
  const api = new Hono();

  api.use("*", async (c, next) => {
    const path = c.req.path;
    calls.push(`${c.req.method} ${path}`);
    const fault = faults.take(c.req.method, path);
    if (fault !== undefined) {
      const headers: Record<string, string> =
        fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
      if (fault.body !== undefined)
        return c.body(fault.body, fault.status, { ...headers, "content-type": "application/json" });
      return fail(c, fault.status, fault.code, fault.message, headers);
    }
    // An account id is 32 hex digits; Cloudflare routes nothing else (`/accounts/undefined/…`).
    const account = /\/accounts\/([^/]*)\//.exec(path)?.[1];
    if (account !== undefined && !/^[0-9a-f]{32}$/.test(account)) {
      return fail(c, 404, 7003, `Could not route to ${path}, perhaps your object identifier is invalid?`);
    }
    // The bucket upload is authorised by its upload JWT, everything else by the API token.
    if (
      !path.endsWith("/workers/assets/upload") &&
      c.req.header("authorization") !== `Bearer ${options.apiToken}`
    ) {
      return fail(c, 401, 10000, "Authentication error");
    }
    await next();
  });
  api.get("/user/tokens/verify", (c) => ok(c, { id: "stand-in-token", status: "active" }));
  api.route("/", assetsRoutes(state, tokens, options.now));
  api.route("/", scriptRoutes(state, tokens, options.now));
  api.route("/", kvRoutes(state));
  api.route("/", customHostnameRoutes(state, options.now));
  api.route("/", setupRoutes(state));
  api.notFound((c) => fail(c, 404, 7003, `No route for ${c.req.method} ${c.req.path}`));

  const app = new Hono().route("/client/v4", api);
  const server: Server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/client/v4`,
    state,
    faults,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
