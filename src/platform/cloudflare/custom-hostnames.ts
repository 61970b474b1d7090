import type Cloudflare from "cloudflare";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";

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

  /** `pending` or `active` (Cloudflare's status), or undefined when there is none. */
  async status(hostname: string): Promise<string | undefined> {
    const found = await this.find(hostname);
    return found[0]?.status;
  }

  /** Deletes the custom hostname, if there is one. */
  async remove(hostname: string): Promise<void> {
    for (const { id } of await this.find(hostname)) {
      await cloudflareCall(`deleting custom hostname ${hostname}`, this.budget, () =>
        this.client.customHostnames.delete(id, { zone_id: this.zoneId }),
      );
    }
  }

  private find(hostname: string): Promise<{ id: string; status?: string }[]> {
    return cloudflareCall(`finding custom hostname ${hostname}`, this.budget, async () => {
      const page = await this.client.customHostnames.list({
        zone_id: this.zoneId,
        hostname: { exact: hostname },
      });
      return page.result.map((h) => ({ id: h.id, status: h.status }));
    });
  }
}
