import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { cors } from "./cors.js";

/** An app behind cors(origin) with one route whose response already varies by encoding. */
function app(origin: string): Hono {
  const hono = new Hono();
  hono.use(cors(origin));
  hono.get("/thing", (c) => c.text("thing", 200, { Vary: "Accept-Encoding" }));
  return hono;
}

describe("cors", () => {
  it("cors: a preflight answers 204 with no body, the methods, headers, a day's max age and Vary: Origin for one origin", async () => {
    const response = await app("https://app.example").request("/anything", { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(Object.fromEntries(response.headers)).toEqual({
      "access-control-allow-origin": "https://app.example",
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": "Authorization, Content-Type",
      "access-control-max-age": "86400",
      vary: "Origin",
    });
  });

  it("cors: a preflight for any origin (*) carries no Vary", async () => {
    const response = await app("*").request("/thing", { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("vary")).toBeNull();
  });

  it("cors: a response gets the allowed origin, and Origin added to its Vary for one origin", async () => {
    const response = await app("https://app.example").request("/thing");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("thing");
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(response.headers.get("vary")).toBe("Accept-Encoding, Origin");
  });

  it("cors: a response for any origin (*) keeps its Vary as it was", async () => {
    const response = await app("*").request("/thing");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
  });
});
