import { serverLimits } from "../../core/operations/index.js";
import { responses } from "../request/schemas.js";
import { json } from "./operation.js";
import { defineRoute } from "./route.js";

/** `GET /limits`: the server's limits, read-only and the same for everyone (contract §3). */
export const limitsRoute = defineRoute({
  method: "get",
  path: "/limits",
  operation: () => ({
    summary: "the server's limits, so a client refuses what the server would before it creates anything",
    responses: { "200": { description: "ok", ...json(responses.limits) } },
  }),
  handlers: (deps) => [(c) => c.json(serverLimits(deps.services, deps.maxBodyBytes), 200)],
});
