import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { rawMessage, rawRequest, type RawResponse } from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";
import { storedBlobs } from "../support/upload-flow.js";
import { fuzzSettings, FUZZ_RUNS, fuzzTimeout } from "./fuzz-arbitraries.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** Markers that must never leave their own project. */
const B_SECRET = `B-secret-${randomBytes(8).toString("hex")}`;
const C_SECRET = `C-secret-${randomBytes(8).toString("hex")}`;
const D_SECRET = `D-secret-${randomBytes(8).toString("hex")}`;

describe("edge under attack", () => {
  let server: TestServer;
  let a: TestProject;
  let b: TestProject;
  let revA: string;
  let revB: string;
  let revC: string;
  let revD: string;
  let c: TestProject;
  let d: TestProject;
  const big = randomBytes(2 * 1024 * 1024 + 3); // streamed from disk: over the 1 MiB cache entry
  const aFiles: Record<string, string | Buffer> = {
    "/index.html": "<h1>A home</h1>",
    "/secret.txt": "A's own text",
    "/docs/index.html": "<h1>A docs</h1>",
    "/404.html": "<h1>A not found</h1>",
    "/big.bin": big,
    "/%2e%2e/x.html": "A literal percent-dot name",
    "/__proto__": "A proto file",
    "/ünï code.html": "A unicode name",
  };

  beforeAll(async () => {
    server = await startTestServer({ createLimitPerAddress: 0, createLimitPerFingerprint: 0 });
    a = await createTestProject(server.urls.api, "edge-a");
    b = await createTestProject(server.urls.api, "edge-b");
    c = await createTestProject(server.urls.api, "edge-c");
    d = await createTestProject(server.urls.api, "edge-d");
    revA = (await deployFiles(server.urls.api, a, aFiles)).deployed.revisionId;
    revB = (
      await deployFiles(server.urls.api, b, { "/index.html": "<h1>B home</h1>", "/b-secret.txt": B_SECRET })
    ).deployed.revisionId;
    revC = (await deployFiles(server.urls.api, c, { "/index.html": C_SECRET })).deployed.revisionId;
    // D lives a minute: the contract's expiry, shortened; the clock then moves past it.
    const ttl = server.services.config.projectTtlSeconds;
    server.services.config.projectTtlSeconds = 60;
    try {
      revD = (await deployFiles(server.urls.api, d, { "/index.html": D_SECRET })).deployed.revisionId;
    } finally {
      server.services.config.projectTtlSeconds = ttl;
    }
    const deleted = await api(server.urls.api, "DELETE", `/projects/${c.slug}`, {
      token: c.token,
      body: identity(c),
    });
    expect(deleted.status).toBe(200);
    server.clock.advance(61);
  });
  afterAll(async () => server?.stop());

  /** GET (or another method) on the edge with the request-target and Host exactly as given. */
  function edge(
    target: string,
    host: string | undefined,
    headers: [string, string][] = [],
    method = "GET",
  ): Promise<RawResponse> {
    const list: [string, string][] = [["Connection", "close"], ...headers];
    if (host !== undefined) list.unshift(["Host", host]);
    return rawRequest(server.urls.edge, rawMessage(method, target, list));
  }

  const port = () => new URL(server.urls.edge).port;
  const hostOf = (p: TestProject) => `${p.slug}.localhost`;
  const aBodies = () => new Set(Object.values(aFiles).map((v) => Buffer.from(v).toString("latin1")));

  /** Nothing of B, C, D or the machine leaks into an answer on A's hosts. */
  function expectNoLeak(response: RawResponse, context: string): void {
    const text = response.body.toString("latin1");
    for (const secret of [B_SECRET, C_SECRET, D_SECRET, "root:x:0:0", "<h1>B home</h1>"]) {
      expect(text.includes(secret), `${context}: leaked ${secret}`).toBe(false);
    }
    expect(response.status, context).toBeLessThan(500);
    expect(response.headers["x-content-type-options"], context).toBe("nosniff");
  }

  it("edge traversal: encoded, double-encoded and overlong paths never leave the project", async () => {
    const targets: [string, number[]][] = [
      ["/../b-secret.txt", [404]],
      ["/..%2fb-secret.txt", [404]],
      ["/..%2Fb-secret.txt", [404]],
      ["/%2e%2e/b-secret.txt", [404]],
      ["/%2E%2E/%2E%2E/etc/passwd", [404]],
      ["/%2e%2e%2f%2e%2e%2fetc%2fpasswd", [404]],
      ["/..%5cb-secret.txt", [404]],
      ["/%5c..%5c..%5cetc%5cpasswd", [404]],
      ["/..\\b-secret.txt", [404, 400]],
      ["/%c0%ae%c0%ae/b-secret.txt", [400]],
      ["/%c0%af..%c0%afb-secret.txt", [400]],
      ["/%e0%80%ae%e0%80%ae/etc/passwd", [400]],
      ["/%f0%80%80%ae", [400]],
      ["/%c1%9c", [400]],
      ["/index.html%00", [404]],
      ["/index.html%00.txt", [404]],
      ["/%00/../b-secret.txt", [404]],
      ["//b-secret.txt", [404]],
      ["/./index.html", [404]],
      ["/docs/../secret.txt", [404]],
      [`/${b.slug}/b-secret.txt`, [404]],
      [`/../${b.slug}/b-secret.txt`, [404]],
      ["/%zz", [400]],
      ["/%", [400]],
      ["/%2", [400]],
      ["/%252e%252e/b-secret.txt", [404]],
      ["/....//b-secret.txt", [404]],
      ["/;/b-secret.txt", [404]],
      ["/etc/passwd", [404]],
      ["/proc/self/environ", [404]],
    ];
    for (const [target, statuses] of targets) {
      const response = await edge(target, hostOf(a));
      expectNoLeak(response, target);
      expect(statuses, `${target}: ${response.status}`).toContain(response.status);
      // A's own 404 page stands in for every path that cannot be a file of A.
      if (response.status === 404) expect(response.body.toString(), target).toBe("<h1>A not found</h1>");
    }
  });

  it("edge traversal: a literal `%2e%2e` name is a file of its own project, reached only encoded twice", async () => {
    const canonical = await edge("/%252e%252e/x.html", hostOf(a));
    expect([canonical.status, canonical.headers.location]).toEqual([308, "/%252e%252e/x"]);
    const twice = await edge("/%252e%252e/x", hostOf(a));
    expect(twice.status).toBe(200);
    expect(twice.body.toString()).toBe("A literal percent-dot name");
    const once = await edge("/%2e%2e/x.html", hostOf(a));
    expect(once.status).toBe(404);
    const proto = await edge("/__proto__", hostOf(a));
    expect(proto.body.toString()).toBe("A proto file");
    const unicode = await edge(`/${encodeURIComponent("ünï code")}`, hostOf(a));
    expect(unicode.body.toString()).toBe("A unicode name");
  });

  it(
    "edge traversal: random paths of dots, encodings and other slugs serve A's files or A's 404 only",
    async () => {
      const segment = fc.oneof(
        fc.constantFrom(
          "..",
          ".",
          "",
          "%2e",
          "%2e%2e",
          "%2E.",
          "%252e%252e",
          "%25",
          "%2f",
          "%5c",
          "\\",
          "%00",
          "%c0%ae",
          "%e0%80%af",
          "%ef%bc%8f",
          "b-secret.txt",
          "index.html",
          "docs",
          "secret",
          "etc",
          "passwd",
          "big.bin",
          "404",
          "%C3%BCn%C3%AF%20code",
          b.slug,
          `${revB}--${b.slug}`,
        ),
        fc.string({ unit: "grapheme-ascii", maxLength: 6 }).map((s) => encodeURIComponent(s)),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 1, maxLength: 6 }),
          fc.boolean(),
          async (segments, revision) => {
            const target = `/${segments.join("/")}`;
            const host = revision ? `${revA}--${a.slug}.localhost` : hostOf(a);
            const response = await edge(target, host);
            expectNoLeak(response, target);
            expect([200, 308, 400, 404], target).toContain(response.status);
            // A canonical-URL redirect stays on the site: a path, never `//host` or `/\host`.
            if (response.status === 308)
              expect(String(response.headers.location), target).toMatch(/^\/(?![/\\])/);
            if (response.status === 200)
              expect(aBodies().has(response.body.toString("latin1")), target).toBe(true);
            if (response.status === 404)
              expect(response.body.toString(), target).toBe("<h1>A not found</h1>");
          },
        ),
        fuzzSettings(FUZZ_RUNS * 2),
      );
    },
    fuzzTimeout(FUZZ_RUNS * 2, 20),
  );

  it("edge host: case, trailing dot and port name the same site; a missing or odd Host serves nothing", async () => {
    const variants = [
      hostOf(a).toUpperCase(),
      `${hostOf(a)}.`,
      `${hostOf(a)}:${port()}`,
      `${hostOf(a)}.:${port()}`,
      `${hostOf(a).toUpperCase()}.:1`,
      ` ${hostOf(a)}`,
    ];
    for (const host of variants) {
      const response = await edge("/", host);
      expect(response.status, host).toBe(200);
      expect(response.body.toString(), host).toBe("<h1>A home</h1>");
    }
    const nothing: (string | undefined)[] = [
      undefined,
      "",
      "localhost",
      "edge.localhost",
      `${hostOf(a)}..`,
      `x.${hostOf(a)}`,
      `${a.slug}`,
      `${a.slug}.localhost.evil.example`,
      `${hostOf(a)}@${hostOf(b)}`,
      `${hostOf(b)}@${hostOf(a)}`,
      `${hostOf(a)}, ${hostOf(b)}`,
      `${hostOf(a)}%00`,
      "[::1]",
      `[::1]:${port()}`,
      "127.0.0.1",
      `${revB}--${a.slug}.localhost`,
      `${revA}--${b.slug}.localhost`,
      `${revA.toUpperCase()}--${a.slug}.localhost.evil`,
      `--${a.slug}.localhost`,
      `${revA}-${a.slug}.localhost`,
      `${revA}---${a.slug}.localhost`,
      "xn--80ak6aa92e.localhost",
      "\u00e9.localhost",
    ];
    for (const host of nothing) {
      const response = await edge("/", host);
      expectNoLeak(response, `Host ${JSON.stringify(host)}`);
      expect([400, 404], `Host ${JSON.stringify(host)}`).toContain(response.status);
      expect(response.body.toString(), `Host ${JSON.stringify(host)}`).not.toContain("A home");
    }
    // HTTP/1.0 without any Host.
    const old = await rawRequest(server.urls.edge, "GET / HTTP/1.0\r\n\r\n");
    expect(old.status).toBe(404);
  });

  it("edge host: another project's name as a path serves the host's project, never the named one", async () => {
    const response = await edge(`/${b.slug}/index.html`, hostOf(a));
    expect(response.status).toBe(404);
    expect(response.body.toString()).toBe("<h1>A not found</h1>");
    const onB = await edge(`/${a.slug}/secret.txt`, hostOf(b));
    expect(onB.status).toBe(404);
    expect(onB.body.toString()).not.toContain("A's own text");
    // An absolute-form target names its own host (RFC 9112 §3.2.2): it is a request for that site.
    const absolute = await edge(`http://${hostOf(b)}/b-secret.txt`, hostOf(a));
    expect(absolute.status).toBe(200);
    expect(absolute.body.toString()).toBe(B_SECRET);
    const absoluteA = await edge(`http://${hostOf(a)}/b-secret.txt`, hostOf(b));
    expect(absoluteA.status).toBe(404);
    expectNoLeak(absoluteA, "absolute-form for A");
  });

  it("edge revisions: a revision host serves only its own project's revision", async () => {
    const own = await edge("/", `${revA}--${a.slug}.localhost`);
    expect(own.body.toString()).toBe("<h1>A home</h1>");
    expect(own.headers["cache-control"]).toContain("immutable");
    for (const host of [`${revB}--${a.slug}.localhost`, `${revA}--${b.slug}.localhost`]) {
      const response = await edge("/b-secret.txt", host);
      expect(response.status, host).toBe(404);
      expectNoLeak(response, host);
    }
  });

  it("edge deleted project: its production and revision hosts answer 404 and its content is gone", async () => {
    for (const host of [hostOf(c), `${revC}--${c.slug}.localhost`]) {
      const response = await edge("/", host);
      expect(response.status, host).toBe(404);
      expect(response.body.toString()).not.toContain(C_SECRET);
    }
    // Its content was its own: reclaimed from disk.
    const { manifest } = await manifestOf(c.slug, { "/index.html": C_SECRET });
    const hash = Object.values(manifest)[0]!.hash;
    expect(storedBlobs(server.dataDir).has(hash)).toBe(false);
  });

  it("edge expired project: its hosts answer 404 and its routes 410, until deleted", async () => {
    for (const host of [hostOf(d), `${revD}--${d.slug}.localhost`]) {
      const response = await edge("/", host);
      expect(response.status, host).toBe(404);
      expect(response.body.toString()).not.toContain(D_SECRET);
    }
    const prepare = await api(server.urls.api, "POST", `/projects/${d.slug}/prepare`, {
      token: d.token,
      body: { ...identity(d), manifest: {} },
    });
    expect(prepare.status).toBe(410);
    expect(prepare.body).toEqual({ error: { code: "PROJECT_EXPIRED", message: "project expired" } });
    // Its owner may still delete it; then its token is unknown.
    const deleted = await api(server.urls.api, "DELETE", `/projects/${d.slug}`, {
      token: d.token,
      body: identity(d),
    });
    expect(deleted.status).toBe(200);
    const after = await api(server.urls.api, "POST", `/projects/${d.slug}/prepare`, {
      token: d.token,
      body: { ...identity(d), manifest: {} },
    });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("UNAUTHORIZED");
    expect((await edge("/", hostOf(d))).status).toBe(404);
  });

  it(
    "edge ranges: malformed, multiple, huge and inverted ranges give 200, 206 or 416, never a wrong byte",
    async () => {
      const files: [string, Buffer][] = [
        ["/big.bin", big],
        ["/secret.txt", Buffer.from("A's own text")],
      ];
      const ranges = [
        "bytes=0-0",
        "bytes=-1",
        "bytes=-0",
        "bytes=5-2",
        "bytes=abc",
        "bytes=0-1,3-4",
        "bytes=0-1, 0-1",
        "bytes=99999999999999999999-",
        "bytes=0-99999999999999999999",
        "bytes=-99999999999999999999",
        "bytes= 1 - 2 ",
        "items=0-1",
        "bytes=0--1",
        "bytes=--1",
        "bytes=1-2-3",
        "",
        "bytes=",
        "bytes=-",
        "bytes=18446744073709551616-18446744073709551617",
        "bytes=1e3-2e3",
        "bytes=0x10-0x20",
        "bytes=+1-+2",
        "BYTES=0-3",
        "bytes=0-3;q=1",
        `bytes=${"9".repeat(400)}-`,
        `bytes=0-${"1,".repeat(2000)}1`,
      ];
      const arbitrary = fc.oneof(
        fc.constantFrom(...ranges),
        fc
          .tuple(
            fc.option(fc.bigInt({ min: -10n, max: 2n ** 70n })),
            fc.option(fc.bigInt({ min: -10n, max: 2n ** 70n })),
          )
          .map(([first, last]) => `bytes=${first ?? ""}-${last ?? ""}`),
        fc.string({ unit: "grapheme-ascii", maxLength: 30 }).map((s) => `bytes=${s}`),
      );
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(
          arbitrary,
          fc.constantFrom(...files),
          fc.constantFrom("GET", "HEAD"),
          async (range, [path, bytes], method) => {
            cases++;
            const response = await edge(path, hostOf(a), [["Range", range]], method);
            const context = `${method} ${path} Range: ${range.slice(0, 60)}`;
            expect([200, 206, 416], `${context}: ${response.status}`).toContain(response.status);
            expect(response.headers["x-content-type-options"], context).toBe("nosniff");
            if (method === "HEAD") {
              expect(response.body.length, context).toBe(0);
              return;
            }
            if (response.status === 200) expect(response.body.equals(bytes), context).toBe(true);
            if (response.status === 416)
              expect(response.headers["content-range"], context).toBe(`bytes */${bytes.length}`);
            if (response.status === 206) {
              const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers["content-range"] ?? "");
              expect(match, context).not.toBeNull();
              const [start, end, size] = [Number(match![1]), Number(match![2]), Number(match![3])];
              expect(size, context).toBe(bytes.length);
              expect(end, context).toBeLessThan(bytes.length);
              expect(response.body.equals(bytes.subarray(start, end + 1)), context).toBe(true);
            }
          },
        ),
        fuzzSettings(FUZZ_RUNS * 2),
      );
      expect(cases).toBeGreaterThan(0);
    },
    fuzzTimeout(FUZZ_RUNS * 2, 30),
  );

  it("edge headers: every answer carries nosniff, and writes are refused with 405", async () => {
    const etag = (await edge("/", hostOf(a))).headers.etag!;
    const answers = [
      await edge("/", hostOf(a)),
      await edge("/", hostOf(a), [["If-None-Match", etag]]),
      await edge("/secret.txt", hostOf(a), [["Range", "bytes=0-1"]]),
      await edge("/secret.txt", hostOf(a), [["Range", "bytes=99-"]]),
      await edge("/missing", hostOf(a)),
      await edge("/", "nobody.localhost"),
      await edge("/%zz", hostOf(a)),
      await edge("/", hostOf(a), [], "HEAD"),
      await edge("/big.bin", hostOf(a), [["Accept-Encoding", "gzip"]]),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 304, 206, 416, 404, 404, 400, 200, 200]);
    for (const response of answers) expect(response.headers["x-content-type-options"]).toBe("nosniff");
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]) {
      const response = await edge("/", hostOf(a), [["Content-Length", "0"]], method);
      expect(response.status, method).toBe(405);
      expect(response.headers.allow, method).toBe("GET, HEAD");
      expect(response.headers["x-content-type-options"], method).toBe("nosniff");
    }
  });
});
