import type { MiddlewareHandler } from "hono";

const METHODS = "GET, POST, DELETE, OPTIONS";
const HEADERS = "Authorization, Content-Type";
const MAX_AGE = "86400";

/**
 * CORS as contract §3 gives it: every response carries the allowed origin, and a preflight
 * (`OPTIONS` on any path) answers 204 with methods, headers and max age.
 */
export function cors(allowOrigin: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "OPTIONS") {
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": allowOrigin,
        "Access-Control-Allow-Methods": METHODS,
        "Access-Control-Allow-Headers": HEADERS,
        "Access-Control-Max-Age": MAX_AGE,
        ...(allowOrigin === "*" ? {} : { Vary: "Origin" }),
      });
    }
    await next();
    c.res.headers.set("Access-Control-Allow-Origin", allowOrigin);
    if (allowOrigin !== "*") c.res.headers.append("Vary", "Origin");
  };
}
