/**
 * The URL the edge serves a site file at, its canonical URL (contract §7): `/a.html` → `/a`,
 * `/d/index.html` → `/d/`, anything else as it is. Valid for sites without an extensionless twin
 * (`/a` beside `/a.html`), which the tests that use it do not have.
 */
export function canonicalPath(path: string): string {
  if (path.endsWith("/index.html")) return path.slice(0, -"index.html".length);
  if (path.endsWith(".html")) return path.slice(0, -".html".length);
  return path;
}
