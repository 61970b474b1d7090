import pg from "pg";
import { PROJECT_SLUG } from "../../../core/formats.js";
import { MANIFEST_CHANNEL } from "../state/platform-tables.js";

export interface ManifestListenerOptions {
  url: string;
  /** The schema whose writes count (others share the channel). */
  schema: string;
  /** This process's writers' application_name: their writes naming no project are not news here. */
  writer?: string;
  /**
   * Told of every write of the manifest with the project it touched, and with none (undefined)
   * when the write named none or one may have been missed: everything may have moved then.
   */
  onChange: (projectSlug?: string) => void;
  /** While not listening: how often `onChange` is called anyway, and a reconnection tried. */
  fallbackMs?: number;
  connectTimeoutMs?: number;
}

/**
 * Hears, on a connection of its own, PostgreSQL's notifications of writes of the published
 * manifest by any process (LISTEN), so an edge's caches drop what another process's publish,
 * domain change or deletion made stale, within milliseconds. While that connection is down (a
 * restart, a network cut) it calls `onChange` every `fallbackMs` (the caches then live at most that
 * long) and tries to connect again; once back, it calls it once more for what it may have missed.
 */
export class ManifestListener {
  private client: pg.Client | undefined;
  private fallback: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly fallbackMs: number;
  private markHeard: () => void = () => undefined;
  /** Resolves once the notifications are first heard (or the listener is closed). */
  readonly heard = new Promise<void>((resolve) => (this.markHeard = resolve));

  constructor(private readonly options: ManifestListenerOptions) {
    this.fallbackMs = options.fallbackMs ?? 1_000;
  }

  /** True while the notifications are heard. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Starts listening (in the background: until then the fallback runs). */
  start(): void {
    this.startFallback();
    void this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.markHeard();
    clearInterval(this.fallback);
    clearTimeout(this.reconnect);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { url, schema, writer, onChange, connectTimeoutMs = 5_000 } = this.options;
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      application_name: `manifest listener ${schema}`,
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      this.lost(client);
    };
    client.on("error", onLost);
    client.on("end", onLost);
    client.on("notification", (message) => {
      const payload = message.payload ?? "";
      if (message.channel !== MANIFEST_CHANNEL || !payload.startsWith(`${schema} `)) return;
      // `<schema> <application_name>`, then a newline and the project's slug when it names one.
      // This process's own writes told its readers already (manifestWritten), of the project it
      // wrote; a write may touch another one too (a hostname taken over), so named ones still count.
      const newline = payload.indexOf("\n");
      if (newline === -1) {
        if (writer === undefined || payload !== `${schema} ${writer}`) onChange();
        return;
      }
      const slug = payload.slice(newline + 1);
      onChange(PROJECT_SLUG.test(slug) ? slug : undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${MANIFEST_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    clearInterval(this.fallback);
    this.fallback = undefined;
    onChange();
    this.markHeard();
  }

  private lost(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.startFallback();
    clearTimeout(this.reconnect);
    this.reconnect = setTimeout(() => void this.connect(), this.fallbackMs);
    this.reconnect.unref();
  }

  private startFallback(): void {
    if (this.fallback !== undefined || this.closed) return;
    this.fallback = setInterval(() => this.options.onChange(), this.fallbackMs);
    this.fallback.unref();
  }
}
