import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { Metrics } from "../../shared/observability/metrics.js";
import { apiMetrics } from "./api-metrics.js";

/** An app behind apiMetrics whose deploy and prepare routes answer the status `?status=` asks for. */
function app(metrics: Metrics): Hono {
  const projects = new Hono();
  const answer = (c: import("hono").Context) => c.body(null, Number(c.req.query("status") ?? 200) as 200);
  projects.post("/:projectSlug/deploy", answer);
  projects.get("/:projectSlug/deploy", answer);
  projects.post("/:projectSlug/prepare", answer);
  const hono = new Hono();
  hono.use(apiMetrics(metrics));
  hono.route("/projects", projects);
  return hono;
}

/** How many deploys the counter holds. */
async function deploys(metrics: Metrics): Promise<number> {
  return (await metrics.deploys.get()).values[0]?.value ?? 0;
}

describe("apiMetrics", () => {
  it("apiMetrics: a POST to the deploy route answered below 300 counts one deploy", async () => {
    const metrics = new Metrics("api");
    const hono = app(metrics);
    expect((await hono.request("/projects/a/deploy", { method: "POST" })).status).toBe(200);
    expect(await deploys(metrics)).toBe(1);
    expect((await hono.request("/projects/a/deploy?status=299", { method: "POST" })).status).toBe(299);
    expect(await deploys(metrics)).toBe(2);
  });

  it("apiMetrics: a refused deploy (300 and up), a GET of the deploy route and another route count no deploy", async () => {
    const metrics = new Metrics("api");
    const hono = app(metrics);
    for (const status of [300, 422]) {
      const response = await hono.request(`/projects/a/deploy?status=${status}`, { method: "POST" });
      expect(response.status).toBe(status);
    }
    expect((await hono.request("/projects/a/deploy")).status).toBe(200);
    expect((await hono.request("/projects/a/prepare", { method: "POST" })).status).toBe(200);
    expect(await deploys(metrics)).toBe(0);
  });

  it("apiMetrics: every request is counted under the api role by its route pattern", async () => {
    const metrics = new Metrics("api");
    await app(metrics).request("/projects/some-slug/prepare?status=201", { method: "POST" });
    const { body } = await metrics.render();
    expect(body).toMatch(
      /^http_requests_total\{role="api",route="\/projects\/:projectSlug\/prepare",method="POST",status="201",process_roles="api"\} 1$/m,
    );
  });
});
