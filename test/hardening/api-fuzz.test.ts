import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertClaimable } from "../../src/core/hostnames.js";
import { normalizeHostname } from "../../src/core/hostname-syntax.js";
import { createTestProject, deployFiles, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { rawMessage, rawRequest, type RawResponse } from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { jwtPayload, prepareFiles } from "../support/upload-flow.js";
import { expectApiClientError, expectNoInternals } from "./contract-errors.js";
import {
  badContentType,
  encodeTarget,
  FUZZ_RUNS,
  fuzzSettings,
  fuzzTimeout,
  hex64,
  hostileString,
  jsonText,
  nonString,
  notAnObject,
} from "./fuzz-arbitraries.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const SECRET = "hardening-fuzz-secret-0123456789abcdef";
const MAX_ASSETS = 20;
const MAX_ASSET_BYTES = 4096;
const MAX_BODY_BYTES = 512 * 1024;
const HEX64 = /^[0-9a-fA-F]{64}$/;

/** One fuzzed request and the contract's answers to it (codes, or routing strings). */
interface FuzzCase {
  label: string;
  method: string;
  path: string;
  headers: [string, string][];
  body?: Buffer;
  chunked?: boolean;
  expect: string[];
}

/** A JSON field of a route: its valid value and how to break it. */
interface Field {
  name: string;
  valid: unknown;
  /** Values that break it, with the codes the contract gives. */
  bad: fc.Arbitrary<{ value: unknown; expect: string[] }>;
  /** The codes when the field is missing. */
  missing: string[];
}

/** A JSON route under fuzz. */
interface Route {
  name: string;
  method: string;
  path: string;
  fields: Field[];
  /** Sends a bearer token (project routes); the token of project A unless fuzzed. */
  token?: string;
}

const counts: Record<string, number> = {};

describe("API fuzzing", () => {
  let server: TestServer;
  let a: TestProject;
  let b: TestProject;
  let pending: { deployId: string; uploadJwt: string; sessionId: string };
  let completed: { deployId: string; completionJwt: string };
  let other: { deployId: string; completionJwt: string; sessionId: string };
  let bCustom: string;
  const forged: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({
      maxAssets: MAX_ASSETS,
      maxAssetBytes: MAX_ASSET_BYTES,
      maxBodyBytes: MAX_BODY_BYTES,
      createLimitPerAddress: 0,
      createLimitPerFingerprint: 0,
      prepareLimitPerProject: 0,
      prepareLimitPerAddress: 0,
      domainLimitPerProject: 0,
      domainLimitPerAddress: 0,
      uploadJwtSecret: SECRET,
    });
    a = await createTestProject(server.urls.api, "fuzz-a");
    b = await createTestProject(server.urls.api, "fuzz-b");
    // A's published deploy (its completion token known), and a pending one still missing content.
    const first = await deployFiles(server.urls.api, a, { "/index.html": "<h1>A</h1>" });
    completed = { deployId: first.prepared.deployId, completionJwt: "" };
    const pendingFiles = await prepareFiles(server.urls.api, a, { "/missing.txt": "never uploaded" });
    expect(pendingFiles.prepared.buckets.flat()).toHaveLength(1);
    pending = {
      deployId: pendingFiles.prepared.deployId,
      uploadJwt: pendingFiles.prepared.uploadJwt,
      sessionId: String(jwtPayload(pendingFiles.prepared.uploadJwt).sub),
    };
    // B's second deploy needs no upload (its first sent the bytes: deduplication is per project),
    // so its upload token is its completion token.
    await deployFiles(server.urls.api, b, { "/index.html": "<h1>A</h1>" });
    const bFiles = await prepareFiles(server.urls.api, b, { "/index.html": "<h1>A</h1>" });
    expect(bFiles.prepared.buckets).toEqual([]);
    other = {
      deployId: bFiles.prepared.deployId,
      completionJwt: bFiles.prepared.uploadJwt,
      sessionId: String(jwtPayload(bFiles.prepared.uploadJwt).sub),
    };
    const bDeployed = await api(server.urls.api, "POST", `/projects/${b.slug}/deploy`, {
      token: b.token,
      body: { ...identity(b), deployId: other.deployId, completionJwt: other.completionJwt },
    });
    expect(bDeployed.status).toBe(200);
    // A's first deploy: find its completion token again by completing a no-upload redeploy.
    const again = await prepareFiles(server.urls.api, a, { "/index.html": "<h1>A</h1>" });
    const done = await api(server.urls.api, "POST", `/projects/${a.slug}/deploy`, {
      token: a.token,
      body: { ...identity(a), deployId: again.prepared.deployId, completionJwt: again.prepared.uploadJwt },
    });
    expect(done.status).toBe(200);
    completed = { deployId: again.prepared.deployId, completionJwt: again.prepared.uploadJwt };
    await forgeTokens();
    bCustom = "www.fuzz-b-owned.example";
    const claimed = await api(server.urls.api, "POST", `/projects/${b.slug}/domains`, {
      token: b.token,
      body: { ...identity(b), domain: bCustom },
    });
    expect(claimed.status).toBe(200);
    // A's refused claim marks B's pending claim contested (contract §8), once: the cases below,
    // which compare every row before and after, then see nothing a refusal changes.
    const contested = await api(server.urls.api, "POST", `/projects/${a.slug}/domains`, {
      token: a.token,
      body: { ...identity(a), domain: bCustom },
    });
    expect(contested.status).toBe(409);
  });

  /**
   * Completion tokens that must not complete A's pending deploy: signed with another key, expired,
   * of another session, of the upload purpose, of another issuer, unsigned, tampered, B's replayed,
   * A's own upload token, and a genuine one while assets are still missing.
   */
  async function forgeTokens(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: { aud?: string[]; sub?: string; exp?: number; key?: string; iss?: string }) =>
      new SignJWT({ acc: "0".repeat(32) })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setIssuer(claims.iss ?? "static-deploy-upload")
        .setAudience(claims.aud ?? ["completion"])
        .setSubject(claims.sub ?? pending.sessionId)
        .setIssuedAt()
        .setExpirationTime(claims.exp ?? now + 600)
        .sign(new TextEncoder().encode(claims.key ?? SECRET));
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const claims = {
      iss: "static-deploy-upload",
      aud: ["completion"],
      sub: pending.sessionId,
      exp: now + 600,
    };
    forged.otherKey = await sign({ key: "another-secret-another-secret-0123" });
    forged.expired = await sign({ exp: now - 60 });
    forged.otherSession = await sign({ sub: other.sessionId });
    forged.uploadPurpose = await sign({ aud: ["upload"] });
    forged.otherIssuer = await sign({ iss: "someone-else" });
    forged.algNone = `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
    const [head, , signature] = (await sign({ sub: other.sessionId })).split(".");
    forged.tampered = `${head}.${part(claims)}.${signature}`;
    forged.replayedFromB = other.completionJwt;
    forged.pendingUploadJwt = pending.uploadJwt;
    forged.missingAssets = await sign({});
  }

  afterAll(async () => {
    console.log(`API fuzz cases per route: ${JSON.stringify(counts)}`);
    await server?.stop();
  });

  /** Sends a case exactly as built, over its own connection. */
  function send(c: FuzzCase): Promise<RawResponse> {
    const host = new URL(server.urls.api).host;
    const headers: [string, string][] = [["Host", host], ["Connection", "close"], ...c.headers];
    let body = c.body ?? Buffer.alloc(0);
    if (c.chunked) {
      headers.push(["Transfer-Encoding", "chunked"]);
      const chunks: Buffer[] = [];
      for (let at = 0; at < body.length; at += 16_384) {
        const piece = body.subarray(at, at + 16_384);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
      }
      chunks.push(Buffer.from("0\r\n\r\n"));
      body = Buffer.concat(chunks);
    } else if (c.body !== undefined || c.method !== "GET") {
      headers.push(["Content-Length", String(body.length)]);
    }
    return rawRequest(server.urls.api, rawMessage(c.method, c.path, headers, body), 10_000);
  }

  /** The property every case must hold: a 4xx contract error, nothing changed, still healthy. */
  async function check(route: string, c: FuzzCase): Promise<void> {
    counts[route] = (counts[route] ?? 0) + 1;
    const context = `${route} / ${c.label}`;
    const before = snapshotStore(server.dataDir);
    const prototype = Object.getOwnPropertyNames(Object.prototype).sort().join();
    const response = await send(c);
    const code = expectApiClientError(response, context, [server.dataDir]);
    expect(c.expect, `${context}: answered ${response.status} ${code}`).toContain(code);
    expect(snapshotStore(server.dataDir), `${context}: a failed request changed the store`).toEqual(before);
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join(), `${context}: prototype polluted`).toBe(
      prototype,
    );
    expect(({} as any).polluted, context).toBeUndefined();
    const health = await fetch(`${server.urls.api}/healthz`);
    expect(health.status, `${context}: /healthz after the case`).toBe(200);
  }

  // projectHash and anonFingerprint obey the same rules, each with its own malformed code.
  const identityField = (
    p: () => TestProject,
    name: "projectHash" | "anonFingerprint",
    malformed: string,
    create: boolean,
  ): Field => ({
    name,
    get valid() {
      return p()[name];
    },
    bad: fc.oneof(
      fc
        .oneof(
          nonString,
          hostileString.filter((s) => !HEX64.test(s)),
        )
        .map((value) => ({ value, expect: [malformed] })),
      // Well formed but not this project's: the body is fine, ownership is not.
      ...(create
        ? []
        : [
            hex64
              .filter((h) => h.toLowerCase() !== p()[name])
              .map((value) => ({ value, expect: ["OWNERSHIP_MISMATCH"] })),
          ]),
    ),
    // Missing is not malformed: INVALID_REQUEST naming the field, like any other missing field.
    missing: ["INVALID_REQUEST"],
  });

  const identityFields = (p: () => TestProject, create = false): Field[] => [
    identityField(p, "projectHash", "INVALID_PROJECT_HASH", create),
    identityField(p, "anonFingerprint", "INVALID_FINGERPRINT", create),
  ];

  /** Manifests that must be refused: wrong shapes, keys that try to leave the project, limits. */
  const badManifest = (): fc.Arbitrary<{ value: unknown; expect: string[] }> => {
    const good = () => ({ hash: "0123456789abcdef0123456789abcdef", size: 10 });
    const forbidden = fc.constantFrom(
      "..",
      ".",
      "",
      "a\\b",
      "\\",
      "a\u0000b",
      "\u0001",
      "x\u001f",
      "\u007f",
      "a\nb",
    );
    const benign = fc.oneof(
      fc.constantFrom("index.html", "a", "%2e%2e", "%2E", "...", "ｘ", "a b", "__proto__", "é"),
      fc
        .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 8 })
        .filter((s) => !/[\\/\p{Cc}]/u.test(s) && s !== "." && s !== ".."),
    );
    const prefixes = () => [
      `/${a.slug}/`,
      `/${b.slug}/`,
      `/${a.slug}`,
      `${a.slug}/`,
      `/${a.slug.toUpperCase()}/`,
      `//${a.slug}/`,
      `/./${a.slug}/`,
      `/../${a.slug}/`,
      `/${a.slug}x/`,
      `/${a.slug.slice(0, -1)}/`,
      `\\${a.slug}\\`,
      `/%2e%2e/${a.slug}/`,
      "",
      "/",
      "__proto__",
    ];
    const escapingKey = fc
      .record({
        prefix: fc.constantFrom(...prefixes()),
        segments: fc.array(benign, { minLength: 1, maxLength: 4 }),
        bad: forbidden,
        at: fc.nat(),
      })
      .map(({ prefix, segments, bad, at }) => {
        if (prefix === `/${a.slug}/`) segments.splice(at % (segments.length + 1), 0, bad);
        return prefix + segments.join("/");
      });
    const badValue = fc.oneof(
      nonString,
      hostileString,
      fc.record({ hash: fc.oneof(nonString, hostileString), size: fc.constant(1) }),
      fc.record({
        hash: fc.constant("0123456789abcdef0123456789abcdef"),
        size: fc.oneof(
          fc.constantFrom(-1, 1.5, MAX_ASSET_BYTES + 1, 1e308, 2 ** 53 + 2, -0.5, "1", null, true, [1], {
            n: 1,
          }),
          fc.double().filter((d) => !Number.isInteger(d) || d < 0 || d > MAX_ASSET_BYTES),
        ),
      }),
      fc.record({ hash: fc.constant("0123456789ABCDEF0123456789ABCDEF"), size: fc.constant(1) }),
    );
    return fc.oneof(
      fc
        .oneof(fc.constantFrom<unknown>(null, "manifest", 1, true, [], [good()]), hostileString)
        .map((value) => ({ value, expect: ["INVALID_MANIFEST"] })),
      fc.array(escapingKey, { minLength: 1, maxLength: 3 }).map((keys) => ({
        value: Object.fromEntries([[`/${a.slug}/ok.html`, good()], ...keys.map((k) => [k, good()])]),
        expect: ["INVALID_MANIFEST"],
      })),
      badValue.map((value) => ({
        value: { [`/${a.slug}/ok.html`]: good(), [`/${a.slug}/bad.html`]: value },
        expect: ["INVALID_MANIFEST"],
      })),
      fc.integer({ min: MAX_ASSETS + 1, max: MAX_ASSETS * 50 }).map((n) => ({
        value: Object.fromEntries(Array.from({ length: n }, (_, i) => [`/${a.slug}/f${i}.txt`, good()])),
        expect: ["INVALID_MANIFEST"],
      })),
    );
  };

  const domainAcceptable = (domain: string) => {
    try {
      const hostname = normalizeHostname(domain);
      assertClaimable(hostname, { sitesDomain: "localhost", cnameTarget: "edge.localhost" });
      return true;
    } catch {
      return false;
    }
  };

  /** Hostnames that must be refused: malformed, reserved, or held by B. */
  const badDomain = (): fc.Arbitrary<{ value: unknown; expect: string[] }> =>
    fc.oneof(
      nonString.map((value) => ({ value, expect: ["INVALID_REQUEST"] })),
      fc
        .oneof(
          hostileString,
          fc.constantFrom(
            "localhost",
            "edge.localhost",
            `${b.slug}.localhost`,
            `${b.slug.toUpperCase()}.LOCALHOST`,
            "abcdefghij--x.localhost",
            `abc1234567--${a.slug}.localhost`,
            "a.b.localhost",
            "127.0.0.1",
            "[::1]",
            "::1",
            "example.com.",
            "exa mple.com",
            "exa_mple.com",
            "-bad.example.com",
            "bad-.example.com",
            "example",
            "example.123",
            `${"a".repeat(64)}.com`,
            `${"a.".repeat(127)}com`,
            "xn--.com",
            "ex\u0000ample.com",
            "例え.テスト\u0000",
          ),
          fc.domain().map((d) => `${d}.`),
        )
        .filter((d) => !domainAcceptable(d))
        .map((value) => ({ value, expect: ["INVALID_DOMAIN", "INVALID_REQUEST"] })),
      fc
        .constantFrom(bCustom, bCustom.toUpperCase(), `${bCustom}`)
        .map((value) => ({ value, expect: ["DOMAIN_TAKEN"] })),
    );

  /** Completion tokens that must not complete A's pending deploy. */
  const badCompletion = (): fc.Arbitrary<{ value: unknown; expect: string[] }> =>
    fc.oneof(
      fc
        .oneof(nonString, fc.constantFrom("", "x".repeat(8193)))
        .map((value) => ({ value, expect: ["INVALID_REQUEST"] })),
      hostileString
        .filter((s) => s.length > 0 && s.length <= 8192)
        .map((value) => ({ value, expect: ["INVALID_COMPLETION"] })),
      fc.constantFrom(...Object.values(forged)).map((value) => ({ value, expect: ["INVALID_COMPLETION"] })),
    );

  const routes = (): Route[] => [
    { name: "POST /projects", method: "POST", path: "/projects", fields: identityFields(() => a, true) },
    {
      name: "POST prepare",
      method: "POST",
      path: `/projects/${a.slug}/prepare`,
      token: a.token,
      fields: [
        ...identityFields(() => a),
        { name: "manifest", valid: {}, bad: badManifest(), missing: ["INVALID_MANIFEST"] },
      ],
    },
    {
      name: "POST deploy",
      method: "POST",
      path: `/projects/${a.slug}/deploy`,
      token: a.token,
      fields: [
        ...identityFields(() => a),
        {
          name: "deployId",
          valid: pending.deployId,
          bad: fc.oneof(
            fc
              .oneof(nonString, fc.constantFrom("", "d".repeat(201)))
              .map((value) => ({ value, expect: ["INVALID_REQUEST"] })),
            fc
              .oneof(hostileString, fc.constant(other.deployId), fc.constant(pending.deployId.toUpperCase()))
              .filter(
                (s) => s.length > 0 && s.length <= 200 && s !== pending.deployId && s !== completed.deployId,
              )
              .map((value) => ({ value, expect: ["DEPLOY_NOT_FOUND"] })),
            // Completed with another token: replaying it with this one is a conflict.
            fc.constant<{ value: unknown; expect: string[] }>({
              value: completed.deployId,
              expect: ["DEPLOY_ALREADY_COMPLETED"],
            }),
          ),
          missing: ["INVALID_REQUEST"],
        },
        // No case carries a good completion token: the "valid" one is signed with another key.
        { name: "completionJwt", valid: forged.otherKey, bad: badCompletion(), missing: ["INVALID_REQUEST"] },
      ],
    },
    {
      name: "POST domains",
      method: "POST",
      path: `/projects/${a.slug}/domains`,
      token: a.token,
      fields: [
        ...identityFields(() => a),
        { name: "domain", valid: bCustom, bad: badDomain(), missing: ["INVALID_REQUEST"] },
      ],
    },
    {
      name: "DELETE domains",
      method: "DELETE",
      path: `/projects/${a.slug}/domains`,
      token: a.token,
      fields: identityFields(() => a),
    },
    {
      name: "DELETE project",
      method: "DELETE",
      path: `/projects/${a.slug}`,
      token: a.token,
      fields: identityFields(() => a),
    },
  ];

  /**
   * Cases for a route: exactly one thing is wrong in each (a field, the body, a header, the path),
   * so the contract says which error it is. A "valid" body here is one that the route would refuse
   * for its one broken part only; the deploy route's completion token is always one of the bad ones
   * or pairs with a deploy that cannot complete.
   */
  function casesOf(route: Route): fc.Arbitrary<FuzzCase> {
    const base = (fields: [string, unknown][]) => jsonText(fields);
    const validEntries = (): [string, unknown][] => route.fields.map((f) => [f.name, f.valid]);
    const headers = (contentType: string | undefined, token: string | undefined): [string, string][] => {
      const list: [string, string][] = [];
      if (contentType !== undefined) list.push(["Content-Type", contentType]);
      if (token !== undefined) list.push(["Authorization", `Bearer ${token}`]);
      return list;
    };
    const caseOf = (
      label: string,
      body: string | Buffer,
      expectCodes: string[],
      extra: Partial<FuzzCase> = {},
    ): FuzzCase => ({
      label,
      method: route.method,
      path: route.path,
      headers: headers("application/json", route.token),
      body: Buffer.isBuffer(body) ? body : Buffer.from(body),
      expect: expectCodes,
      ...extra,
    });

    const arbitraries: fc.Arbitrary<FuzzCase>[] = [];
    for (const [index, field] of route.fields.entries()) {
      const replaced = field.bad.map((bad) => ({ field, index, bad }));
      arbitraries.push(
        replaced.map(({ bad }) => {
          const entries = validEntries();
          entries[index] = [field.name, bad.value];
          return caseOf(
            `${field.name} = ${JSON.stringify(bad.value)?.slice(0, 60)}`,
            base(entries),
            bad.expect,
          );
        }),
        // Duplicate keys: the valid value first, the bad one last (JSON.parse keeps the last).
        replaced.map(({ bad }) => {
          const entries = validEntries();
          entries.push([field.name, bad.value]);
          return caseOf(`duplicate ${field.name}`, base(entries), bad.expect);
        }),
        fc.constant(null).map(() => {
          const entries = validEntries().filter(([name]) => name !== field.name);
          return caseOf(`missing ${field.name}`, base(entries), field.missing);
        }),
        // Prototype keys: the field only reachable through __proto__ or constructor.prototype.
        fc.constantFrom("__proto__", "constructor", "prototype").map((key) => {
          const entries = validEntries().filter(([name]) => name !== field.name);
          const smuggled =
            key === "constructor"
              ? { prototype: { [field.name]: field.valid, polluted: 1 } }
              : { [field.name]: field.valid, polluted: 1 };
          return caseOf(`${field.name} through ${key}`, base([[key, smuggled], ...entries]), field.missing);
        }),
      );
    }
    // With every field missing, the route reports one of them (prepare: the manifest first).
    const allMissing = [...new Set(route.fields.flatMap((f) => f.missing))];
    arbitraries.push(
      notAnObject(base(validEntries())).map((body) => caseOf("not a JSON object", body, ["INVALID_JSON"])),
      fc
        .constant(null)
        .map(() =>
          caseOf(
            "everything under __proto__",
            base([["__proto__", Object.fromEntries(validEntries())]]),
            allMissing,
          ),
        ),
      fc
        .nat({ max: 80_000 })
        .map((depth) =>
          caseOf(`nested ${depth}`, `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`, [
            "INVALID_JSON",
            ...allMissing,
          ]),
        ),
      badContentType.map((contentType) => ({
        ...caseOf(`Content-Type ${JSON.stringify(contentType)}`, base(validEntries()), [
          "UNSUPPORTED_MEDIA_TYPE",
        ]),
        headers: headers(contentType, route.token),
      })),
      fc
        .record({ extra: fc.integer({ min: 1, max: 64 * 1024 }), chunked: fc.boolean() })
        .map(({ extra, chunked }) => {
          const entries = validEntries();
          entries.push(["padding", "p".repeat(MAX_BODY_BYTES + extra)]);
          return caseOf(
            `body over the limit (${chunked ? "chunked" : "sized"})`,
            base(entries),
            ["PAYLOAD_TOO_LARGE"],
            { chunked },
          );
        }),
    );
    if (route.token !== undefined) {
      arbitraries.push(
        fc
          .oneof(
            fc.constantFrom<[string | undefined, string[]]>(
              [undefined, ["UNAUTHORIZED"]],
              ["Bearer", ["UNAUTHORIZED"]],
              ["Bearer ", ["UNAUTHORIZED"]],
              [`Basic ${Buffer.from("user:pass").toString("base64")}`, ["UNAUTHORIZED"]],
              // The scheme is case-insensitive (RFC 9110), so `bearer <token>` is accepted; a missing space is not.
              [`Bearer${route.token}`, ["UNAUTHORIZED"]],
              [`Bearer  ${route.token}`, ["UNAUTHORIZED"]],
              [`Bearer ${route.token}x`, ["UNAUTHORIZED"]],
              [`Bearer ${route.token.slice(0, -1)}`, ["UNAUTHORIZED"]],
              [`Bearer ${route.token} ${route.token}`, ["UNAUTHORIZED"]],
              [`Bearer ${"t".repeat(513)}`, ["UNAUTHORIZED"]],
              [`Bearer ${b.token}`, ["OWNERSHIP_MISMATCH"]],
              [`Bearer ${a.projectHash}`, ["UNAUTHORIZED"]],
            ),
            fc
              .string({ unit: "binary", maxLength: 60 })
              .map((s) =>
                Buffer.from(s, "utf8")
                  .toString("latin1")
                  // A field value holds no control character (RFC 9110 §5.5): those are
                  // HTTP-level errors, tested on their own.
                  .replace(/(?!\t)\p{Cc}/gu, ""),
              )
              .map((s): [string, string[]] => [`Bearer ${s}`, ["UNAUTHORIZED"]]),
          )
          .map(([authorization, codes]) => {
            const list = headers("application/json", undefined);
            if (authorization !== undefined) list.push(["Authorization", authorization]);
            return {
              ...caseOf(
                `Authorization ${JSON.stringify(authorization)?.slice(0, 40)}`,
                base(validEntries()),
                codes,
              ),
              headers: list,
            };
          }),
        // The slug in the path: malformed, unknown, another project's, or odd encodings of A's.
        fc
          .oneof(
            hostileString.filter((s) => s.length < 300),
            fc.constantFrom(
              b.slug,
              a.slug.toUpperCase(),
              `${a.slug}-`,
              `${a.slug}%00`,
              `${a.slug}%2F`,
              "%2e%2e",
              "..%2f",
              "no-such-project",
              `${a.slug}/extra`,
            ),
          )
          .map((slug) => encodeTarget(slug))
          .filter((segment) => {
            const path = route.path.replace(a.slug, segment);
            // Percent-decoding and dot-segment removal of the URL parser may lead back to A's route.
            const normalized = normalizedPath(path);
            let decoded = normalized;
            try {
              decoded = decodeURIComponent(normalized);
            } catch {
              // Stays encoded.
            }
            return normalized !== route.path && decoded !== route.path && segment.length > 0;
          })
          .map((segment) => ({
            ...caseOf(`slug ${segment.slice(0, 60)}`, base(validEntries()), [
              "INVALID_REQUEST",
              "PROJECT_NOT_FOUND",
              "OWNERSHIP_MISMATCH",
              "method not allowed",
              "not found",
            ]),
            path: route.path.replace(a.slug, segment),
          })),
      );
    }
    return fc.oneof(...arbitraries);
  }

  it(
    "every route: malformed, hostile and forged requests get a 4xx contract error and change nothing",
    async () => {
      for (const route of routes()) {
        await fc.assert(
          fc.asyncProperty(casesOf(route), (c) => check(route.name, c)),
          fuzzSettings(),
        );
      }
    },
    fuzzTimeout(FUZZ_RUNS * 6, 20),
  );

  it(
    "unknown routes and methods: the string errors 404 and 405, nothing changed",
    async () => {
      const known = new Set(["/health", "/healthz", "/openapi.json"]);
      const segment = fc.oneof(
        fc.constantFrom(
          "projects",
          a.slug,
          "prepare",
          "deploy",
          "domains",
          "health",
          "..",
          ".",
          "%2e%2e",
          "",
          "%00",
          "admin",
        ),
        hostileString.filter((x) => x.length < 60),
      );
      const arbitrary = fc.record({
        // Methods Node's parser knows; any other is refused at the HTTP layer (the garbage test).
        method: fc.constantFrom(
          "GET",
          "POST",
          "PUT",
          "PATCH",
          "DELETE",
          "TRACE",
          "PROPFIND",
          "COPY",
          "LOCK",
          "MKCOL",
          "MOVE",
          "PURGE",
          "SEARCH",
          "UNLOCK",
          "REPORT",
        ),
        segments: fc.array(segment, { minLength: 1, maxLength: 5 }),
        underProjects: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ method, segments, underProjects }) => {
          const path = `/${underProjects ? "projects/" : ""}${segments.map(encodeTarget).join("/")}`;
          const normalized = normalizedPath(path);
          // The real routes answer 2xx or their own errors: only what is no route is under test here.
          fc.pre(!(method === "GET" && known.has(normalized)));
          const routed = /^\/projects(\/[^/]+(\/(prepare|deploy|domains))?)?\/?$/.test(normalized);
          fc.pre(!routed);
          await check("unknown routes", {
            label: `${method} ${path.slice(0, 80)}`,
            method,
            path,
            headers: [],
            expect: ["not found", "method not allowed"],
          });
        }),
        fuzzSettings(),
      );
    },
    fuzzTimeout(FUZZ_RUNS, 20),
  );

  it(
    "HTTP-level garbage: the listener refuses it at the HTTP layer and stays healthy, nothing changed",
    async () => {
      const host = new URL(server.urls.api).host;
      const valid = rawMessage(
        "POST",
        `/projects/${a.slug}/prepare`,
        [
          ["Host", host],
          ["Authorization", `Bearer ${a.token}`],
          ["Content-Type", "application/json"],
          ["Content-Length", "2"],
          ["Connection", "close"],
        ],
        "{}",
      );
      const garbage = fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
        fc
          .record({
            at: fc.nat({ max: valid.length - 4 }),
            byte: fc.constantFrom(0, 1, 10, 13, 0x7f, 0xff, 0x20, 0x3a),
          })
          .map(({ at, byte }) => {
            const copy = Buffer.from(valid);
            copy[at] = byte;
            return copy;
          }),
        fc
          .stringMatching(/^[A-Z]{3,10}$/)
          .map((method) => Buffer.from(`${method} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)),
        fc
          .constantFrom(
            "GET / HTTP/1.1\r\n\r\n",
            "GET /health HTTP/9.9\r\nHost: x\r\n\r\n",
            `GET /health HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n`,
            `POST /projects HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}`,
            `POST /projects HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nzz\r\n`,
            `POST /projects HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n`,
            `GET /health HTTP/1.1\r\nHost: x\r\nX: ${"a".repeat(20_000)}\r\n\r\n`,
            `GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
            "\r\n\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
          )
          .map((text) => Buffer.from(text, "latin1")),
      );
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(garbage, async (bytes) => {
          cases++;
          counts["HTTP garbage"] = (counts["HTTP garbage"] ?? 0) + 1;
          const before = snapshotStore(server.dataDir);
          const response = await rawRequest(server.urls.api, bytes, 10_000, { halfClose: true }).catch(
            (error: Error) => {
              // A connection closed without an answer is a refusal too; a hang is not.
              if (/incomplete response|ECONNRESET|EPIPE/.test(error.message)) return undefined;
              throw error;
            },
          );
          if (response && response.status !== 0) {
            expect(response.status, bytes.toString("latin1").slice(0, 80)).toBeLessThan(500);
            expectNoInternalsOf(response);
          }
          expect(snapshotStore(server.dataDir)).toEqual(before);
          expect((await fetch(`${server.urls.api}/healthz`)).status).toBe(200);
        }),
        fuzzSettings(),
      );
      expect(cases).toBeGreaterThan(0);
    },
    fuzzTimeout(FUZZ_RUNS, 20),
  );

  function expectNoInternalsOf(response: RawResponse): void {
    expectNoInternals(response.body.toString("utf8"), `HTTP ${response.status}`, [server.dataDir]);
  }

  it("extreme sizes at the default limits: 100,001 assets and a body over 32 MiB are refused, nothing changed", async () => {
    const big = await startTestServer();
    try {
      const p = await createTestProject(big.urls.api, "extreme");
      const before = snapshotStore(big.dataDir);
      const manifest: Record<string, { hash: string; size: number }> = {};
      for (let i = 0; i <= 100_000; i++)
        manifest[`/${p.slug}/f/${i}.txt`] = { hash: "0123456789abcdef0123456789abcdef", size: 1 };
      const tooMany = await api(big.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error.code).toBe("INVALID_MANIFEST");
      expect(tooMany.body.error.message).toMatch(/100001 assets/);
      const huge = await api(big.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest: {}, padding: "x".repeat(32 * 1024 * 1024) },
      });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe("PAYLOAD_TOO_LARGE");
      const oversized = await api(big.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: {
          ...identity(p),
          manifest: {
            [`/${p.slug}/a.bin`]: { hash: "0123456789abcdef0123456789abcdef", size: 25 * 1024 * 1024 + 1 },
          },
        },
      });
      expect(oversized.status).toBe(400);
      expect(oversized.body.error.code).toBe("INVALID_MANIFEST");
      expect(snapshotStore(big.dataDir)).toEqual(before);
    } finally {
      await big.stop();
    }
  }, 60_000);

  it("create: past the limit every attempt is 429 RATE_LIMITED with Retry-After, malformed or not, nothing stored", async () => {
    const limited = await startTestServer({ createLimitPerAddress: 3, createLimitWindowSeconds: 60 });
    try {
      for (let i = 0; i < 3; i++) await createTestProject(limited.urls.api, `limited-${i}`);
      const before = snapshotStore(limited.dataDir);
      const attempts = [
        await api(limited.urls.api, "POST", "/projects", {
          body: { projectHash: "c".repeat(64), anonFingerprint: "d".repeat(64) },
        }),
        await api(limited.urls.api, "POST", "/projects", {
          raw: "not json",
          headers: { "content-type": "application/json" },
        }),
        await api(limited.urls.api, "POST", "/projects", {
          raw: "{}",
          headers: { "content-type": "text/plain" },
        }),
      ];
      for (const response of attempts) {
        expect(response.status).toBe(429);
        expect(response.body.error.code).toBe("RATE_LIMITED");
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(snapshotStore(limited.dataDir)).toEqual(before);
    } finally {
      await limited.stop();
    }
  });
});

/** The path as a URL parser normalises it (dot segments removed), or as given when it takes none. */
function normalizedPath(path: string): string {
  try {
    return new URL(`http://h${path}`).pathname;
  } catch {
    return path;
  }
}
