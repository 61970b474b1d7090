import type { SiteTarget } from "./edge-storage.js";
import type { Route } from "./site-router.js";

export type { Route };

const DEFAULT_MAX_ROUTES = 10_000;
// Longer request targets are routed every time, never remembered: a flood of them holds no memory.
const MAX_KEY = 1024;

/**
 * Remembers the route of each request target (path and query, as sent) per site. It is keyed on
 * the SiteTarget object itself: the storage answers with new objects after a write of that site's
 * manifest (and keeps other sites' objects), so a publish or a removal leaves the old routes
 * unreachable without any bookkeeping.
 * Bounded by entry count (routes of replaced sites count until the next drop): when full,
 * everything is dropped and refilled by the next requests.
 */
export class RouteMemo {
  private routes = new WeakMap<SiteTarget, Map<string, Route>>();
  private count = 0;

  constructor(private readonly maxRoutes = DEFAULT_MAX_ROUTES) {}

  /** Number of routes held. */
  get size(): number {
    return this.count;
  }

  /** The remembered route of `target` on `site`, or undefined. */
  get(site: SiteTarget, target: string): Route | undefined {
    return this.routes.get(site)?.get(target);
  }

  /** Remembers a route, unless its target is too long to be worth the memory. */
  set(site: SiteTarget, target: string, route: Route): void {
    if (target.length > MAX_KEY || this.maxRoutes <= 0) return;
    if (this.count >= this.maxRoutes) {
      this.routes = new WeakMap();
      this.count = 0;
    }
    let routes = this.routes.get(site);
    if (routes === undefined) this.routes.set(site, (routes = new Map()));
    if (!routes.has(target)) this.count++;
    routes.set(target, route);
  }
}
