import type Cloudflare from "cloudflare";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";

/** JSON values in the platform's Workers KV namespace, through the SDK. */
export class KvStore {
  constructor(
    private readonly client: Cloudflare,
    private readonly accountId: string,
    private readonly namespaceId: string,
    private readonly budget: RetryBudget,
  ) {}

  /** The value under `key`, parsed, or undefined when there is none. */
  async get<T>(key: string): Promise<T | undefined> {
    try {
      const response = await cloudflareCall(`reading KV ${key}`, this.budget, () =>
        this.client.kv.namespaces.values.get(this.namespaceId, encodeURIComponent(key), {
          account_id: this.accountId,
        }),
      );
      return JSON.parse(await response.text()) as T;
    } catch (error) {
      if (error instanceof CloudflareRefusal && error.status === 404) return undefined;
      throw error;
    }
  }

  async put(key: string, value: unknown): Promise<void> {
    await cloudflareCall(`writing KV ${key}`, this.budget, () =>
      this.client.kv.namespaces.values.update(this.namespaceId, encodeURIComponent(key), {
        account_id: this.accountId,
        value: JSON.stringify(value),
      }),
    );
  }

  async delete(key: string): Promise<void> {
    await cloudflareCall(`deleting KV ${key}`, this.budget, () =>
      this.client.kv.namespaces.values.delete(this.namespaceId, encodeURIComponent(key), {
        account_id: this.accountId,
      }),
    );
  }

  /** Every key that starts with `prefix`. */
  async keys(prefix: string): Promise<string[]> {
    return cloudflareCall(`listing KV ${prefix}*`, this.budget, async () => {
      const names: string[] = [];
      for await (const key of this.client.kv.namespaces.keys.list(this.namespaceId, {
        account_id: this.accountId,
        prefix,
      })) {
        names.push(key.name);
      }
      return names;
    });
  }
}
