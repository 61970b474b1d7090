import { Resolver } from "node:dns/promises";

/** Codes of a name that exists without such a record, or does not exist: an answer, not a failure. */
const NO_RECORD = new Set(["ENODATA", "ENOTFOUND"]);

export interface DnsResolverOptions {
  /** `host:port` of the resolver to ask; the system's resolvers when undefined. */
  server?: string | undefined;
  /** Milliseconds to wait for one answer before giving up. */
  timeoutMs: number;
}

/** Thrown when the resolver could not answer; `reason` says why in a few words. */
export class DnsUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`DNS lookup failed: ${reason}`);
  }
}

/**
 * CNAME and TXT lookups through one resolver (node's c-ares), each bounded by `timeoutMs` with a
 * single try: a check runs again later, so a slow resolver must never hold a request.
 */
export class DnsResolver {
  private readonly resolver: Resolver;

  constructor(options: DnsResolverOptions) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
    if (options.server !== undefined) this.resolver.setServers([options.server]);
  }

  /** The names `hostname` is a CNAME for, lowercase, without a trailing dot; [] when none. */
  async cnames(hostname: string): Promise<string[]> {
    const names = await this.ask(() => this.resolver.resolveCname(hostname));
    return names.map((name) => name.toLowerCase().replace(/\.$/, ""));
  }

  /** The TXT records at `hostname`, each one's character-strings joined; [] when none. */
  async txt(hostname: string): Promise<string[]> {
    const records = await this.ask(() => this.resolver.resolveTxt(hostname));
    return records.map((chunks) => chunks.join(""));
  }

  private async ask<T>(lookup: () => Promise<T[]>): Promise<T[]> {
    try {
      return await lookup();
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      if (NO_RECORD.has(code)) return [];
      throw new DnsUnavailableError(
        code === "ETIMEOUT"
          ? "the resolver did not answer in time"
          : `the resolver answered ${code || "with an error"}`,
      );
    }
  }
}
