import type Cloudflare from "cloudflare";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";

const PAGE_SIZE = 50;

/** What Cloudflare says of a custom hostname: its status, its certificate's, and why it is not active. */
export interface CustomHostnameState {
  id: string;
  /** `active` once Cloudflare validated it; `pending` and others before. */
  status: string;
  certificate: string;
  errors: string[];
}

/** Cloudflare for SaaS custom hostnames in the zone of SITES_DOMAIN (DV certificates, HTTP validation). */
export class CustomHostnames {
  constructor(
    private readonly client: Cloudflare,
    private readonly zoneId: string,
    private readonly budget: RetryBudget,
  ) {}

  /** Creates the custom hostname; one that exists already is left as it is. */
  async add(hostname: string): Promise<void> {
    try {
      await cloudflareCall(`adding custom hostname ${hostname}`, this.budget, () =>
        this.client.customHostnames.create({
          zone_id: this.zoneId,
          hostname,
          ssl: { method: "http", type: "dv" },
        }),
      );
    } catch (error) {
      if (!(error instanceof CloudflareRefusal && error.status === 409)) throw error;
    }
  }

  /** Cloudflare's view of the custom hostname, or undefined when there is none. */
  async status(hostname: string): Promise<CustomHostnameState | undefined> {
    const [found] = await this.find(hostname);
    return found;
  }

  /** Deletes the custom hostname, if there is one. */
  async remove(hostname: string): Promise<void> {
    for (const { id } of await this.find(hostname)) {
      await cloudflareCall(`deleting custom hostname ${hostname}`, this.budget, () =>
        this.client.customHostnames.delete(id, { zone_id: this.zoneId }),
      );
    }
  }

  /** Every custom hostname of the zone: its id, name and when Cloudflare created it (ms). */
  async all(): Promise<{ id: string; hostname: string; createdAt: number }[]> {
    const found: { id: string; hostname: string; createdAt: number }[] = [];
    // Paged by hand: the SDK's iterator stops only at an empty page, one call more than needed.
    for (let page = 1; ; page += 1) {
      const listed = await cloudflareCall("listing custom hostnames", this.budget, () =>
        this.client.customHostnames.list({ zone_id: this.zoneId, page, per_page: PAGE_SIZE }),
      );
      for (const h of listed.result) {
        found.push({ id: h.id, hostname: h.hostname, createdAt: Date.parse(h.created_at ?? "") || 0 });
      }
      if (listed.result.length < PAGE_SIZE) return found;
    }
  }

  /** Deletes a custom hostname by id; one already gone is fine. */
  async removeId(id: string, hostname: string): Promise<void> {
    try {
      await cloudflareCall(`deleting custom hostname ${hostname}`, this.budget, () =>
        this.client.customHostnames.delete(id, { zone_id: this.zoneId }),
      );
    } catch (error) {
      if (!(error instanceof CloudflareRefusal && error.status === 404)) throw error;
    }
  }

  private find(hostname: string): Promise<CustomHostnameState[]> {
    return cloudflareCall(`finding custom hostname ${hostname}`, this.budget, async () => {
      const page = await this.client.customHostnames.list({
        zone_id: this.zoneId,
        hostname: { exact: hostname },
      });
      return page.result.map((h) => ({
        id: h.id,
        status: h.status ?? "pending",
        certificate: h.ssl?.status ?? "pending",
        errors: h.verification_errors ?? [],
      }));
    });
  }
}
