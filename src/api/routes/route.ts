import type { Handler, Hono, MiddlewareHandler } from "hono";
import type { RouteDeps } from "./route-deps.js";

/** An OpenAPI 3.1 operation object (summary, parameters, requestBody, responses). */
export type Operation = Record<string, unknown>;

/**
 * One route of the API, declared once: its method and path, its OpenAPI operation (built from the
 * schemas its handler validates with) and the middleware and handler that answer it. The app and
 * the OpenAPI document are both built by iterating the declarations (`api-routes.ts`).
 */
export interface ApiRoute<D = RouteDeps> {
  method: "get" | "post" | "delete";
  /** In Hono's syntax (`/projects/:projectSlug`); the document's (`{projectSlug}`) is derived. */
  path: string;
  /**
   * Its OpenAPI operation, written when the document is asked for, not when the route is loaded
   * (converting schemas costs the start, and a mutant is active only while a test runs).
   */
  operation: () => Operation;
  /** What answers the route, in order: middleware first, the handler last. */
  handlers: (deps: D) => (MiddlewareHandler | Handler)[];
}

/** Declares a route; the identity, so that the route's dependencies are typed where it is written. */
export function defineRoute<D = RouteDeps>(route: ApiRoute<D>): ApiRoute<D> {
  return route;
}

/** Registers each route on `app` with its handlers built from `deps`. */
export function mountRoutes<D>(app: Hono, routes: readonly ApiRoute<D>[], deps: D): void {
  for (const route of routes) app.on(route.method.toUpperCase(), [route.path], ...route.handlers(deps));
}

/** The route's path as the OpenAPI document writes it: `:name` becomes `{name}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}
