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
  /**
   * How often the listening connection is asked a trivial query (default a quarter of
   * `fallbackMs`): one left unanswered for `fallbackMs` means the connection went silent (a cut
   * the socket never saw), and it is treated as lost.
   */
  heartbeatMs?: number;
  connectTimeoutMs?: number;
}

/**
 * Hears, on a connection of its own, PostgreSQL's notifications of writes of the published
 * manifest by any process (LISTEN), so an edge's caches drop what another process's publish,
 * domain change or deletion made stale, within milliseconds. A connection that goes silent is
 * found by its heartbeat within 1.5 × `fallbackMs`. While that connection is down (a restart, a network
 * cut) it calls `onChange` at once and then every `fallbackMs` (the caches then live at most that
 * long) and tries to connect again; once back, it calls it once more for what it may have missed.
 * So what an edge keeps outlives a write it did not hear by at most about 1.5 × `fallbackMs`.
 */
export class ManifestListener {
  private client: pg.Client | undefined;
  private fallback: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
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
    clearInterval(this.heartbeat);
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
    this.startHeartbeat(client);
    onChange();
    this.markHeard();
  }

  /** Asks the connection a trivial query now and then; one unanswered too long ends the connection. */
  private startHeartbeat(client: pg.Client): void {
    const every = this.options.heartbeatMs ?? this.fallbackMs / 4;
    const patience = this.fallbackMs;
    let askedAt: number | undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      if (askedAt === undefined) {
        askedAt = performance.now();
        client.query("SELECT 1").then(
          () => (askedAt = undefined),
          () => undefined, // a failed connection also says so with "error" or "end": lost there
        );
      } else if (performance.now() - askedAt >= patience) {
        // Silent: nothing says the socket is gone, so end it; its "end" or "error" makes it lost.
        client.connection.stream.destroy();
      }
    }, every);
    this.heartbeat.unref();
  }

  private lost(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    clearInterval(this.heartbeat);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    // Writes may have gone unheard since the connection was last known alive.
    this.options.onChange();
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
