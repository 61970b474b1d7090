import { type AddressInfo, createServer, type Socket } from "node:net";
import pg from "pg";
import { afterEach, expect, it, vi } from "vitest";
import { ManifestListener } from "../../src/platform/selfhost/sites/manifest-listener.js";
import { MANIFEST_CHANNEL } from "../../src/platform/selfhost/state/platform-tables.js";
import { describePostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const SCHEMA = `listener_${process.pid}`;
let listener: ManifestListener | undefined;
let proxy: TcpProxy | undefined;
let admin: pg.Client | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await listener?.close();
  await proxy?.close();
  await admin?.end();
  [listener, proxy, admin] = [undefined, undefined, undefined];
});

/** A listener of SCHEMA counting its calls; through a proxy the test can cut when `viaProxy`. */
async function listen(
  options: {
    writer?: string;
    fallbackMs?: number | "default";
    heartbeatMs?: number;
    viaProxy?: boolean;
  } = {},
) {
  let url = TEST_DATABASE_URL;
  if (options.viaProxy) {
    const target = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const via = new URL(TEST_DATABASE_URL);
    via.port = String(proxy.port);
    url = via.toString();
  }
  const calls = { n: 0, projects: [] as (string | undefined)[] };
  listener = new ManifestListener({
    url,
    schema: SCHEMA,
    writer: options.writer,
    fallbackMs: options.fallbackMs === "default" ? undefined : (options.fallbackMs ?? 600_000),
    // Heartbeats only where a test asks for them: a busy machine's slow answer is not a silent network.
    heartbeatMs: options.heartbeatMs ?? 600_000,
    connectTimeoutMs: 2_000,
    onChange: (project) => (calls.n++, calls.projects.push(project)),
  });
  return calls;
}
/** Sends each notification, all in one transaction: they are delivered together, in order. */
async function notifyAll(notifications: [channel: string, payload?: string][]): Promise<void> {
  admin ??= new pg.Client({ connectionString: TEST_DATABASE_URL });
  if (!admin.listenerCount("end")) {
    await admin.connect();
    admin.on("end", () => undefined);
  }
  const statements = notifications.map(([channel, payload]) =>
    payload === undefined ? `NOTIFY ${channel};` : `NOTIFY ${channel}, '${payload}';`,
  );
  await admin.query(`BEGIN; ${statements.join(" ")} COMMIT;`);
}
const notify = (channel: string, payload?: string) => notifyAll([[channel, payload]]);
const listeners = async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  const { rows } = await client.query(`SELECT state FROM pg_stat_activity WHERE application_name = $1`, [
    `manifest listener ${SCHEMA}`,
  ]);
  await client.end();
  return rows.length;
};

await describePostgres("ManifestListener", () => {
  it("start: once listening, heard and told once; then told of each write of its schema by another writer, not of its own writer's, another schema's, another channel's or an empty one", async () => {
    const calls = await listen({ writer: "me" });
    expect(listener!.listening).toBe(false);
    listener!.start();
    await listener!.heard;
    expect(listener!.listening).toBe(true);
    expect(calls.n).toBe(1);
    expect(await listeners()).toBe(1);
    // One transaction: its notifications reach the listener together, in order, so once the last
    // (told) one is counted, a wrongly told earlier one would show in the count as well.
    await notifyAll([
      [MANIFEST_CHANNEL, `${SCHEMA} me`],
      [MANIFEST_CHANNEL, `other_${SCHEMA} them`],
      [MANIFEST_CHANNEL, `${SCHEMA}x them`],
      [MANIFEST_CHANNEL],
      ["another_channel", `${SCHEMA} them`],
      [MANIFEST_CHANNEL, `${SCHEMA} them`],
    ]);
    await expect.poll(() => calls.n).toBeGreaterThanOrEqual(2);
    expect(calls.n).toBe(2);
    await notify(MANIFEST_CHANNEL, `${SCHEMA} them`);
    await expect.poll(() => calls.n).toBe(3);
  });

  it("start: a write naming its project is told with it, its own writer's too; a malformed one, or one naming none, as a write of any", async () => {
    const calls = await listen({ writer: "me" });
    listener!.start();
    await listener!.heard;
    // One transaction: delivered together and in order.
    await notifyAll([
      [MANIFEST_CHANNEL, `${SCHEMA} them\nblue-fox-k3`],
      [MANIFEST_CHANNEL, `${SCHEMA} me\ngreen-owl-q7`],
      [MANIFEST_CHANNEL, `${SCHEMA} them\nNot A Slug`],
      [MANIFEST_CHANNEL, `other_${SCHEMA} them\nblue-fox-k3`],
      [MANIFEST_CHANNEL, `${SCHEMA} them`],
    ]);
    await expect.poll(() => calls.n).toBe(5);
    // The first call: told once when it started listening, of any project.
    expect(calls.projects).toEqual([undefined, "blue-fox-k3", "green-owl-q7", undefined, undefined]);
  });

  it("start: without a writer of its own, every write of its schema is told", async () => {
    const calls = await listen();
    listener!.start();
    await listener!.heard;
    await notify(MANIFEST_CHANNEL, `${SCHEMA} me`);
    await notify(MANIFEST_CHANNEL, `${SCHEMA} undefined`);
    await expect.poll(() => calls.n).toBe(3);
  });

  it("start: while the first connection hangs, told every fallbackMs", async () => {
    // A server that takes the connection and never answers: a network that hangs.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = new URL(TEST_DATABASE_URL);
    url.port = String((silent.address() as AddressInfo).port);
    const calls = { n: 0 };
    listener = new ManifestListener({
      url: url.toString(),
      schema: SCHEMA,
      fallbackMs: 50,
      connectTimeoutMs: 60_000,
      onChange: () => calls.n++,
    });
    listener.start();
    try {
      await expect.poll(() => calls.n, { timeout: 10_000 }).toBeGreaterThan(2);
      expect(listener.listening).toBe(false);
    } finally {
      await listener.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("close: the connection ends and it is not listening; heard resolves even when never heard", async () => {
    const calls = await listen();
    listener!.start();
    await listener!.heard;
    await listener!.close();
    expect(listener!.listening).toBe(false);
    await expect.poll(listeners).toBe(0);
    expect(calls.n).toBe(1);
    const never = await listen({ viaProxy: true });
    await proxy!.cut();
    listener!.start();
    await listener!.close();
    await listener!.heard;
    expect(never.n).toBe(0);
  });

  it("close: a connection that completes after close is ended at once, never listened on", async () => {
    const calls = await listen();
    listener!.start();
    await listener!.close();
    await listener!.heard;
    await expect.poll(listeners, { timeout: 5_000 }).toBe(0);
    expect(listener!.listening).toBe(false);
    expect(calls.n).toBe(0);
  });

  it("connection lost: told every fallbackMs and reconnecting until back, then told once more and listening again, until it is lost again", async () => {
    const calls = await listen({ viaProxy: true, fallbackMs: 50 });
    listener!.start();
    await listener!.heard;
    // Once on listening; and once more each 50 ms the connection took to open (a busy machine).
    expect(calls.n).toBeGreaterThanOrEqual(1);
    await proxy!.cut();
    await expect.poll(() => listener!.listening).toBe(false);
    await expect.poll(() => calls.n, { timeout: 10_000 }).toBeGreaterThan(4);
    await proxy!.restore();
    await expect.poll(() => listener!.listening, { timeout: 10_000 }).toBe(true);
    const back = calls.n;
    await notify(MANIFEST_CHANNEL, `${SCHEMA} them`);
    await expect.poll(() => calls.n).toBe(back + 1);
    await proxy!.cut();
    await expect.poll(() => listener!.listening).toBe(false);
  });

  it("connection silent: a connection that stops carrying anything (no close seen) is found by its heartbeat within 1.5 × fallbackMs, told at once, and replaced", async () => {
    const calls = await listen({ viaProxy: true, fallbackMs: 400, heartbeatMs: 100 });
    listener!.start();
    await listener!.heard;
    const before = calls.n;
    proxy!.freeze();
    const frozenAt = performance.now();
    await expect.poll(() => listener!.listening, { timeout: 5_000, interval: 10 }).toBe(false);
    const foundAfter = performance.now() - frozenAt;
    expect(calls.n).toBeGreaterThan(before);
    // A question every 100 ms, fallbackMs of patience: found within 1.5 × fallbackMs (and some
    // room for a busy machine's timers).
    expect(foundAfter).toBeLessThan(600 + 250);
    // The proxy carries new connections: listening again, and hearing writes.
    await expect.poll(() => listener!.listening, { timeout: 10_000 }).toBe(true);
    const back = calls.n;
    await notify(MANIFEST_CHANNEL, `${SCHEMA} them`);
    await expect.poll(() => calls.n).toBeGreaterThan(back);
  });

  it("connection lost: not listening from the moment the loss is seen, long before the next reconnection", async () => {
    await listen({ viaProxy: true, fallbackMs: 60_000 });
    listener!.start();
    await listener!.heard;
    await proxy!.cut();
    await expect.poll(() => listener!.listening).toBe(false);
  });

  it("start: a first connection that fails is told every fallbackMs until it connects; heard only then", async () => {
    const calls = await listen({ viaProxy: true, fallbackMs: 50 });
    await proxy!.cut();
    let heard = false;
    listener!.start();
    void listener!.heard.then(() => (heard = true));
    await expect.poll(() => calls.n, { timeout: 10_000 }).toBeGreaterThan(2);
    expect(heard).toBe(false);
    await proxy!.restore();
    await expect.poll(() => heard, { timeout: 10_000 }).toBe(true);
    expect(listener!.listening).toBe(true);
  });
  // The fallback is the listener's only interval: faking setInterval alone lets a test see how
  // often it fires, while the connection's own timers (setTimeout) stay real.
  const fakeIntervals = () => vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });

  it("fallbackMs: 1 s by default: a listener that cannot connect is told first after 1 s, then every second", async () => {
    const calls = await listen({ viaProxy: true, fallbackMs: "default" });
    await proxy!.cut();
    fakeIntervals();
    listener!.start();
    vi.advanceTimersByTime(999);
    expect(calls.n).toBe(0);
    vi.advanceTimersByTime(1);
    expect(calls.n).toBe(1);
    vi.advanceTimersByTime(2_000);
    expect(calls.n).toBe(3);
  });

  it("start: once listening, the fallback stops: told no more however long nothing is written", async () => {
    const calls = await listen({ fallbackMs: 50 });
    fakeIntervals();
    listener!.start();
    await listener!.heard;
    const heard = calls.n;
    vi.advanceTimersByTime(5_000);
    expect(calls.n).toBe(heard);
    // Only the heartbeat's interval is left.
    expect(vi.getTimerCount()).toBe(1);
  });

  it("close: the end of its own connection schedules no reconnection", async () => {
    await listen({ fallbackMs: 50 });
    listener!.start();
    await listener!.heard;
    // Faked only now: the connection is made on real timers; its end, during close, is what counts.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    await listener!.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("close: told nothing more afterwards, and no timer is left running", async () => {
    const calls = await listen({ fallbackMs: 50 });
    fakeIntervals();
    listener!.start();
    await listener!.heard;
    await listener!.close();
    const closed = calls.n;
    vi.advanceTimersByTime(5_000);
    expect(calls.n).toBe(closed);
    expect(vi.getTimerCount()).toBe(0);
  });
});
