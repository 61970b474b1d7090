import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { createTestProject, identity, manifestOf, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { rawMessage, rawRequest, type RawResponse } from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";
import {
  addedBlobs,
  blobStoreState,
  readBlob,
  removedBlobs,
  snapshotStore,
  type StoreSnapshot,
  withoutBlobs,
} from "../support/store-snapshot.js";
import { jwtPayload } from "../support/upload-flow.js";
import { expectUploadClientError } from "./contract-errors.js";
import { encodeTarget, FUZZ_RUNS, fuzzSettings, fuzzTimeout, hostileString } from "./fuzz-arbitraries.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** Each case prepares a fresh session; twice the per-route count still runs in seconds. */
const UPLOAD_RUNS = FUZZ_RUNS * 2;
const SECRET = "hardening-upload-secret-0123456789abcdef";
const MAX_ASSET_BYTES = 4096;
const BUCKET_MAX_BYTES = 64 * 1024;
const BUCKET_MAX_FILES = 10;
// As src/server/selfhost-wiring.ts sizes an upload request: the bucket, part overheads and a margin.
const MAX_REQUEST_BYTES = BUCKET_MAX_BYTES + BUCKET_MAX_FILES * 512 + 1024 * 1024;

/** Cloudflare-style numeric codes of the built-in upload service (README). */
const CODE = {
  unauthorized: 10001,
  accountNotFound: 10002,
  badRequest: 10003,
  hashMismatch: 10004,
  hashNotInSession: 10005,
  tooLarge: 10006,
  notFound: 10007,
};

/** One asset of a fresh upload session. */
interface Asset {
  path: string;
  hash: string;
  bytes: Buffer;
  /** The part's Content-Type, or none (Cloudflare's SDK sends none). */
  declared: string | undefined;
}

/** A fresh prepared deploy of A: its session, token and the assets it lacks. */
interface Session {
  deployId: string;
  uploadJwt: string;
  sessionId: string;
  uploadUrl: string;
  assets: Asset[];
}

/** One part of a bucket body as the test writes it (payload not encoded for you). */
interface RawPart {
  headerLines: string[];
  payload: string;
}

/** A mutated upload request and what the contract lets it answer. */
interface UploadCase {
  label: string;
  method: string;
  target: string;
  headers: [string, string][];
  body: Buffer;
  /** Acceptable `[status, code]` pairs of an error answer. */
  errors: [number, number][];
  /** True when the mutation may leave the request valid (a 201 or 202 is then fine). */
  mayPass?: boolean;
}

const counts: Record<string, number> = {};
/** What refused buckets legitimately kept: verified blobs and their declared media types. */
const kept = { blobs: 0, mediaTypes: 0 };

describe("upload service fuzzing", () => {
  let server: TestServer;
  let a: TestProject;
  let b: TestProject;
  let bSession: Session;
  let goneSession: Session;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer({
      maxAssetBytes: MAX_ASSET_BYTES,
      bucketMaxBytes: BUCKET_MAX_BYTES,
      bucketMaxFiles: BUCKET_MAX_FILES,
      createLimitPerAddress: 0,
      createLimitPerFingerprint: 0,
      prepareLimitPerProject: 0,
      prepareLimitPerAddress: 0,
      uploadJwtSecret: SECRET,
    });
    a = await createTestProject(server.urls.api, "upload-fuzz-a");
    b = await createTestProject(server.urls.api, "upload-fuzz-b");
    bSession = await freshSession(b, 2);
    // A session whose project was deleted: its token still verifies, the session is gone.
    const doomed = await createTestProject(server.urls.api, "upload-fuzz-doomed");
    goneSession = await freshSession(doomed, 1);
    const deleted = await api(server.urls.api, "DELETE", `/projects/${doomed.slug}`, {
      token: doomed.token,
      body: identity(doomed),
    });
    expect(deleted.status).toBe(200);
  });

  afterAll(async () => {
    console.log(
      `upload fuzz cases: ${JSON.stringify(counts)}; kept by refused buckets: ${JSON.stringify(kept)}`,
    );
    await server?.stop();
  });

  /** Prepares a deploy of `count` never-seen assets for `p`. */
  async function freshSession(p: TestProject, count: number): Promise<Session> {
    const extensions = ["html", "css", "js", "png", "txt", "", "json", "svg"];
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < count; i++) {
      const extension = extensions[(counter + i) % extensions.length]!;
      const size = (counter * 7919 + i * 104_729) % (MAX_ASSET_BYTES - 64);
      const bytes = Buffer.concat([Buffer.from(`asset ${counter}/${i} `), randomBytes(size)]);
      files[`/dir${i}/file-${counter}${extension ? `.${extension}` : ""}`] = bytes;
    }
    counter++;
    const { manifest } = await manifestOf(p.slug, files);
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    expect(prepared.status).toBe(200);
    expect(prepared.body.buckets.flat()).toHaveLength(count);
    const declared = [undefined, "text/plain; charset=utf-8", "application/x-hardening"];
    const assets = Object.entries(files).map(([path, bytes], i) => ({
      path,
      bytes,
      hash: manifest[`/${p.slug}${path}`]!.hash,
      declared: declared[(counter + i) % declared.length],
    }));
    return {
      deployId: prepared.body.deployId,
      uploadJwt: prepared.body.uploadJwt,
      sessionId: String(jwtPayload(prepared.body.uploadJwt).sub),
      uploadUrl: prepared.body.urls.upload,
      assets,
    };
  }

  const sign = (claims: { aud?: string[]; sub: string; exp?: number; key?: string }) =>
    new SignJWT({ acc: "0".repeat(32) })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("static-deploy-upload")
      .setAudience(claims.aud ?? ["upload"])
      .setSubject(claims.sub)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(claims.key ?? SECRET));

  const validParts = (s: Session): RawPart[] =>
    s.assets.map((asset) => ({
      headerLines: [
        `Content-Disposition: form-data; name="${asset.hash}"; filename="${asset.hash}"`,
        ...(asset.declared === undefined ? [] : [`Content-Type: ${asset.declared}`]),
      ],
      payload: asset.bytes.toString("base64"),
    }));

  function bodyOf(parts: RawPart[], boundary: string, close = true, eol = "\r\n"): Buffer {
    let text = "";
    for (const part of parts) {
      text += `--${boundary}${eol}${part.headerLines.join(eol)}${eol}${eol}${part.payload}${eol}`;
    }
    if (close) text += `--${boundary}--${eol}`;
    return Buffer.from(text, "latin1");
  }

  /** The mutations, each a function of a fresh session to a case. */
  type Mutation = (s: Session) => Promise<UploadCase> | UploadCase;

  function mutations(): fc.Arbitrary<{ kind: string; mutate: Mutation }> {
    const boundary = "----hardening0123456789";
    const base = (
      s: Session,
      label: string,
      errors: [number, number][],
      over: Partial<UploadCase> = {},
    ): UploadCase => {
      const url = new URL(s.uploadUrl);
      return {
        label,
        method: "POST",
        target: url.pathname + url.search,
        headers: [
          ["Authorization", `Bearer ${s.uploadJwt}`],
          ["Content-Type", `multipart/form-data; boundary=${boundary}`],
        ],
        body: bodyOf(validParts(s), boundary),
        errors,
        ...over,
      };
    };
    const withToken = (c: UploadCase, token: string | undefined): UploadCase => ({
      ...c,
      headers: [
        ...c.headers.filter(([name]) => name !== "Authorization"),
        ...(token === undefined ? [] : ([["Authorization", token]] as [string, string][])),
      ],
    });
    const entry = (kind: string, arb: fc.Arbitrary<Mutation>) => arb.map((mutate) => ({ kind, mutate }));
    const unauthorized: [number, number][] = [[401, CODE.unauthorized]];
    const badRequest: [number, number][] = [[400, CODE.badRequest]];

    return fc.oneof(
      entry(
        "token",
        fc
          .constantFrom(
            "missing",
            "scheme only",
            "basic",
            "garbage",
            "other key",
            "expired",
            "completion purpose",
            "alg none",
            "tampered",
            "deleted project's session",
            "no space after the scheme",
          )
          .map((kind): Mutation => async (s) => {
            const c = base(s, `token: ${kind}`, unauthorized);
            const now = Math.floor(Date.now() / 1000);
            const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
            switch (kind) {
              case "missing":
                return withToken(c, undefined);
              case "scheme only":
                return withToken(c, "Bearer");
              case "basic":
                return withToken(c, `Basic ${Buffer.from("a:b").toString("base64")}`);
              case "garbage":
                return withToken(c, `Bearer ${randomBytes(24).toString("base64url")}`);
              case "other key":
                return withToken(c, `Bearer ${await sign({ sub: s.sessionId, key: "x".repeat(40) })}`);
              case "expired":
                return withToken(c, `Bearer ${await sign({ sub: s.sessionId, exp: now - 5 })}`);
              case "completion purpose":
                return withToken(c, `Bearer ${await sign({ sub: s.sessionId, aud: ["completion"] })}`);
              case "alg none":
                return withToken(
                  c,
                  `Bearer ${part({ alg: "none" })}.${part({ iss: "static-deploy-upload", aud: ["upload"], sub: s.sessionId, exp: now + 60 })}.`,
                );
              case "tampered": {
                const [head, , signature] = bSession.uploadJwt.split(".");
                const payload = part({ ...jwtPayload(bSession.uploadJwt), sub: s.sessionId });
                return withToken(c, `Bearer ${head}.${payload}.${signature}`);
              }
              case "deleted project's session":
                return withToken(c, `Bearer ${goneSession.uploadJwt}`);
              default:
                // The scheme is case-insensitive (RFC 9110), so `bearer x` is accepted; this is not.
                return withToken(c, `Bearer${s.uploadJwt}`);
            }
          }),
      ),
      // Another session's genuine token: A's parts are not in B's session.
      entry(
        "cross-session token",
        fc.constant<Mutation>((s) =>
          withToken(
            base(s, "B's token with A's parts", [[400, CODE.hashNotInSession]]),
            `Bearer ${bSession.uploadJwt}`,
          ),
        ),
      ),
      entry(
        "account",
        fc
          .oneof(
            hostileString.filter((x) => x.length > 0 && x.length < 200),
            fc.constant("0".repeat(32)),
          )
          .map((account): Mutation => (s) => {
            const c = base(s, `account ${account.slice(0, 40)}`, [
              [404, CODE.accountNotFound],
              [404, CODE.notFound],
            ]);
            const accountId = new URL(s.uploadUrl).pathname.split("/")[2]!;
            const segment = encodeTarget(account);
            return { ...c, target: c.target.replace(accountId, segment) };
          }),
      ),
      entry(
        "query",
        fc
          .constantFrom("", "?base64=false", "?base64=TRUE", "?base64=1", "?base64", "?b64=true")
          .map((query): Mutation => (s) => {
            const c = base(s, `query ${query}`, badRequest);
            return { ...c, target: c.target.replace(/\?.*$/, query) };
          }),
      ),
      entry(
        "route",
        fc
          .record({
            method: fc.constantFrom("GET", "PUT", "PATCH", "DELETE", "POST"),
            path: fc.oneof(
              fc.constantFrom(
                "/",
                "/accounts",
                "/accounts/x/workers/assets",
                "/client/v4/accounts/x/workers/assets/upload",
                "/accounts/x/workers/assets/upload/extra",
                "/../accounts",
              ),
              fc
                .array(
                  hostileString.filter((x) => x.length < 50),
                  { maxLength: 4 },
                )
                .map((parts) => `/${parts.map(encodeTarget).join("/")}`),
            ),
          })
          .map(({ method, path }): Mutation => (s) => {
            const upload = new URL(s.uploadUrl).pathname;
            const target = method === "POST" && path === upload ? `${path}x` : path;
            return { ...base(s, `${method} ${target.slice(0, 60)}`, [[404, CODE.notFound]]), method, target };
          }),
      ),
      entry(
        "method",
        fc.constantFrom("GET", "PUT", "PATCH", "DELETE").map((method): Mutation => (s) => ({
          ...base(s, `${method} on the upload route`, [[404, CODE.notFound]]),
          method,
        })),
      ),
      entry(
        "content type",
        fc
          .constantFrom(
            undefined,
            "",
            "text/plain",
            "application/json",
            "multipart/form-data",
            "multipart/form-data;",
            "multipart/mixed; boundary=x",
            `multipart/form-data; boundary=${"b".repeat(71)}`,
            "multipart/form-data; boundary=",
            'multipart/form-data; boundary=""',
          )
          .map((contentType): Mutation => (s) => {
            // A boundary the parser reads differently from the body's (`""` taken literally, a
            // 71-character one cut to 70) is refused as a body that never closes: 400, not 415.
            const c = base(s, `Content-Type ${JSON.stringify(contentType)}`, [
              [415, CODE.badRequest],
              ...(/boundary=.+/.test(contentType ?? "")
                ? ([[400, CODE.badRequest]] as [number, number][])
                : []),
            ]);
            return {
              ...c,
              headers: [
                ...c.headers.filter(([name]) => name !== "Content-Type"),
                ...(contentType === undefined ? [] : ([["Content-Type", contentType]] as [string, string][])),
              ],
            };
          }),
      ),
      entry(
        "truncated",
        fc.double({ min: 0, max: 1, noNaN: true }).map((fraction): Mutation => (s) => {
          const c = base(s, "", badRequest);
          const closing = c.body.lastIndexOf(`\r\n--${boundary}--`);
          const at = Math.floor(fraction * closing);
          return { ...c, label: `truncated at ${at}/${c.body.length}`, body: c.body.subarray(0, at) };
        }),
      ),
      entry(
        "boundary mismatch",
        fc.constantFrom("other", `${boundary}x`, boundary.slice(1)).map((declared): Mutation => (s) => {
          const c = base(s, `declared boundary ${declared}`, badRequest);
          return {
            ...c,
            headers: [c.headers[0]!, ["Content-Type", `multipart/form-data; boundary=${declared}`]],
          };
        }),
      ),
      entry(
        "LF line endings",
        fc.constant<Mutation>((s) => ({
          ...base(s, "LF only", badRequest),
          body: bodyOf(validParts(s), boundary, true, "\n"),
        })),
      ),
      entry(
        "payload",
        fc
          .record({
            index: fc.nat(),
            kind: fc.constantFrom(
              "not base64",
              "other content",
              "padding in the middle",
              "whitespace",
              "over the asset limit",
              "truncated base64",
              "url-safe alphabet",
            ),
            junk: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
          })
          .map(({ index, kind, junk }): Mutation => (s) => {
            const parts = validParts(s);
            const at = index % parts.length;
            const asset = s.assets[at]!;
            const errors: [number, number][] = [...badRequest, [400, CODE.hashMismatch]];
            let payload = parts[at]!.payload;
            switch (kind) {
              case "not base64":
                payload = `${payload.slice(0, 4)}${junk.replace(/[A-Za-z0-9+/=]/g, "") || "*"}${payload.slice(4)}`;
                break;
              case "other content":
                payload = Buffer.concat([asset.bytes, Buffer.from("!")]).toString("base64");
                break;
              case "padding in the middle":
                payload = `QQ==${payload}`;
                break;
              case "whitespace":
                payload = (payload || "QUJD").replace(/(.{4})/g, "$1\r\n ").trimEnd();
                break;
              case "over the asset limit":
                payload = randomBytes(MAX_ASSET_BYTES + 3).toString("base64");
                break;
              case "truncated base64":
                payload = (payload || "QUJD").slice(0, -1);
                break;
              default:
                payload = (payload || "++//").replace(/\+/g, "-").replace(/\//g, "_");
                if (!/[-_]/.test(payload)) payload = `-_${payload}`;
            }
            parts[at] = { ...parts[at]!, payload };
            return { ...base(s, `payload ${kind} in part ${at}`, errors), body: bodyOf(parts, boundary) };
          }),
      ),
      entry(
        "part name",
        fc
          .record({
            index: fc.nat(),
            name: fc.oneof(
              hostileString.filter((x) => x.length < 200 && !/^[0-9a-f]{32}$/.test(x)),
              fc.constantFrom("UPPER", "OTHER_SESSION", "NOT_IN_SESSION", "MISSING"),
            ),
          })
          .map(({ index, name }): Mutation => (s) => {
            const parts = validParts(s);
            const at = index % parts.length;
            const hash = s.assets[at]!.hash;
            let header: string;
            let errors: [number, number][] = badRequest;
            if (name === "UPPER") header = `name="${hash.toUpperCase()}"; filename="${hash.toUpperCase()}"`;
            else if (name === "OTHER_SESSION" || name === "NOT_IN_SESSION") {
              const other = name === "OTHER_SESSION" ? bSession.assets[0]!.hash : "f".repeat(32);
              header = `name="${other}"; filename="${other}"`;
              errors = [[400, CODE.hashNotInSession]];
            } else if (name === "MISSING") header = "";
            else {
              const quoted = Buffer.from(name.replace(/[\r\n]/g, ""), "utf8")
                .toString("latin1")
                .replace(/"/g, '\\"');
              header = `name="${quoted}"; filename="${quoted}"`;
            }
            parts[at] = {
              ...parts[at]!,
              headerLines: [`Content-Disposition: form-data${header ? `; ${header}` : ""}`],
            };
            return {
              ...base(s, `part ${at} named ${name.slice(0, 40)}`, errors),
              body: bodyOf(parts, boundary),
            };
          }),
      ),
      entry(
        "part headers",
        fc
          .record({
            index: fc.nat(),
            kind: fc.constantFrom(
              "no disposition",
              "attachment",
              "line without colon",
              "huge header",
              "bad content type",
              "control in content type",
              "empty content type",
            ),
          })
          .map(({ index, kind }): Mutation => (s) => {
            const parts = validParts(s);
            const at = index % parts.length;
            const disposition = parts[at]!.headerLines[0]!;
            const lines: Record<string, string[]> = {
              "no disposition": ["Content-Type: text/html"],
              attachment: [disposition.replace("form-data", "attachment")],
              "line without colon": [disposition, "no colon here"],
              "huge header": [disposition, `X-Pad: ${"p".repeat(17 * 1024)}`],
              "bad content type": [disposition, "Content-Type: not a media type"],
              "control in content type": [disposition, "Content-Type: text/html\u0001"],
              "empty content type": [disposition, "Content-Type:"],
            };
            parts[at] = { ...parts[at]!, headerLines: lines[kind]! };
            return { ...base(s, `part ${at} headers: ${kind}`, badRequest), body: bodyOf(parts, boundary) };
          }),
      ),
      entry(
        "empty or junk body",
        fc
          .oneof(
            fc.constant(Buffer.alloc(0)),
            fc.uint8Array({ maxLength: 300 }).map((u) => Buffer.from(u)),
          )
          .map((body): Mutation => (s) => ({
            ...base(s, `junk body of ${body.length} bytes`, badRequest),
            body,
          })),
      ),
      entry(
        "request too large",
        fc.constant<Mutation>((s) => {
          const parts = validParts(s);
          const filler = { headerLines: ["X-Filler: yes"], payload: "A".repeat(MAX_REQUEST_BYTES + 1024) };
          // The filler comes first with a well-formed but never-closing preamble, so only the size stops it.
          return {
            ...base(s, "body over the request limit", [[413, CODE.tooLarge], ...badRequest]),
            body: Buffer.concat([Buffer.from(filler.payload), bodyOf(parts, boundary)]),
          };
        }),
      ),
      entry(
        "non-canonical base64",
        fc.nat().map((index): Mutation => (s) => {
          // The last character of a padded quad carries unused bits: changing them keeps the
          // bytes. The sink hashes canonical base64, so this either passes with the right bytes
          // or is refused; never stored wrong.
          const parts = validParts(s);
          const at = index % parts.length;
          const payload = parts[at]!.payload.replace(/([A-Za-z0-9+/])(=+)$/, (_m, c: string, pad: string) => {
            const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            return alphabet[(alphabet.indexOf(c) ^ 1) % 64]! + pad;
          });
          parts[at] = { ...parts[at]!, payload };
          return {
            ...base(s, `non-canonical base64 in part ${at}`, [...badRequest, [400, CODE.hashMismatch]]),
            body: bodyOf(parts, boundary),
            mayPass: true,
          };
        }),
      ),
    );
  }

  function send(s: Session, c: UploadCase): Promise<RawResponse> {
    const host = new URL(s.uploadUrl).host;
    const headers: [string, string][] = [
      ["Host", host],
      ["Connection", "close"],
      ...c.headers,
      ["Content-Length", String(c.body.length)],
    ];
    return rawRequest(s.uploadUrl, rawMessage(c.method, c.target, headers, c.body), 10_000);
  }

  it(
    "upload: malformed, truncated, forged and oversized buckets are refused and store nothing wrong",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          mutations(),
          fc.integer({ min: 1, max: 3 }),
          async ({ kind, mutate }, assetCount) => {
            counts[kind] = (counts[kind] ?? 0) + 1;
            const s = await freshSession(a, assetCount);
            const c = await mutate(s);
            const context = `${kind}: ${c.label}`;
            const before = snapshotStore(server.dataDir);
            const response = await send(s, c);
            if (response.status >= 400 || !c.mayPass) {
              const code = expectUploadClientError(response, context, [server.dataDir]);
              expect(
                c.errors.some(([status, expected]) => status === response.status && expected === code),
                `${context}: answered ${response.status} ${code}, expected one of ${JSON.stringify(c.errors)}`,
              ).toBe(true);
            } else {
              expect([201, 202], context).toContain(response.status);
            }
            const after = snapshotStore(server.dataDir);
            // Nothing but the blobs table may change, and a blob only by being added: a verified
            // part of a bucket refused later is kept (content-addressed, so correct whoever sent it).
            // The media types its parts declared are kept with them, for this session's paths only,
            // and so is the record that this session has that content (session_blobs).
            expect(
              withoutSessionBlobsOf(withoutMediaTypesOf(withoutBlobs(after), s), s),
              `${context}: a refused upload changed the store`,
            ).toEqual(withoutSessionBlobsOf(withoutMediaTypesOf(withoutBlobs(before), s), s));
            const had = new Set(before.platform.session_blobs ?? []);
            for (const line of (after.platform.session_blobs ?? []).filter((row) => !had.has(row))) {
              const row = JSON.parse(line);
              const asset = s.assets.find((x) => x.hash === row.hash);
              expect(row.session_id, `${context}: another session was credited`).toBe(s.sessionId);
              expect(asset, `${context}: a hash outside the session was credited`).toBeDefined();
              expect(readBlob(server.dataDir, row.hash).equals(asset!.bytes), context).toBe(true);
            }
            expect(
              (before.platform.session_blobs ?? []).filter(
                (row) => !(after.platform.session_blobs ?? []).includes(row),
              ),
              `${context}: a session lost content it had`,
            ).toEqual([]);
            if (response.status >= 400) {
              kept.mediaTypes += changedAssets(before, after).length;
              kept.blobs += addedBlobs(before, after).length;
            }
            for (const row of changedAssets(before, after)) {
              const asset = s.assets.find((x) => x.hash === row.hash);
              expect(row.session_id, `${context}: another session's media type changed`).toBe(s.sessionId);
              expect(row.content_type, `${context}: a media type no part declared`).toBe(asset?.declared);
            }
            expect(removedBlobs(before, after), context).toEqual([]);
            for (const blob of addedBlobs(before, after)) {
              const asset = s.assets.find((x) => x.hash === blob.hash);
              expect(asset, `${context}: a blob outside the session was stored`).toBeDefined();
              expect(
                readBlob(server.dataDir, blob.hash).equals(asset!.bytes),
                `${context}: stored bytes differ`,
              ).toBe(true);
              expect(await hashAsset(readBlob(server.dataDir, blob.hash), asset!.path)).toBe(blob.hash);
              expect(blob.size).toBe(asset!.bytes.length);
            }
            const disk = blobStoreState(server.dataDir);
            expect(disk.temporaryFiles, `${context}: temporary files left behind`).toEqual([]);
            expect(disk.missingFiles, context).toEqual([]);
            expect(disk.unnamedFiles, `${context}: blob files no row names`).toEqual([]);
            const health = await fetch(`${server.urls.api}/healthz`);
            expect(health.status, context).toBe(200);
          },
        ),
        fuzzSettings(UPLOAD_RUNS),
      );
    },
    fuzzTimeout(UPLOAD_RUNS, 40),
  );

  it("upload: part headers over 16 KiB are refused even when they arrive in one chunk", async () => {
    const s = await freshSession(a, 1);
    const boundary = "----oneChunk";
    const parts = validParts(s);
    parts[0] = { ...parts[0]!, headerLines: [...parts[0]!.headerLines, `X-Pad: ${"p".repeat(17 * 1024)}`] };
    const body = bodyOf(parts, boundary);
    const before = snapshotStore(server.dataDir);
    const response = await send(s, {
      label: "huge header",
      method: "POST",
      target: new URL(s.uploadUrl).pathname + new URL(s.uploadUrl).search,
      headers: [
        ["Authorization", `Bearer ${s.uploadJwt}`],
        ["Content-Type", `multipart/form-data; boundary=${boundary}`],
      ],
      body,
      errors: [],
    });
    expect(expectUploadClientError(response, "huge header")).toBe(CODE.badRequest);
    expect(JSON.parse(response.body.toString()).errors[0].message).toMatch(/headers too large/);
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("upload: a part refused on its first chunk leaves no temporary file behind", async () => {
    for (let i = 0; i < 20; i++) {
      const s = await freshSession(a, 1);
      const boundary = "----firstChunk";
      const parts = validParts(s);
      // Over the asset limit in the very first write, while the temporary file may still be opening.
      parts[0] = { ...parts[0]!, payload: randomBytes(MAX_ASSET_BYTES + 3).toString("base64") };
      const response = await send(s, {
        label: "over the limit",
        method: "POST",
        target: new URL(s.uploadUrl).pathname + new URL(s.uploadUrl).search,
        headers: [
          ["Authorization", `Bearer ${s.uploadJwt}`],
          ["Content-Type", `multipart/form-data; boundary=${boundary}`],
        ],
        body: bodyOf(parts, boundary),
        errors: [],
      });
      expect(response.status).toBe(400);
      expect(blobStoreState(server.dataDir).temporaryFiles).toEqual([]);
    }
  });
});

/** The snapshot with the media types of one session's assets blanked, for comparisons that allow them to change. */
function withoutMediaTypesOf(snapshot: StoreSnapshot, s: Session): StoreSnapshot {
  const rows = (snapshot.platform.session_assets ?? []).map((line) => {
    const row = JSON.parse(line);
    return JSON.stringify(row.session_id === s.sessionId ? { ...row, content_type: null } : row);
  });
  // A declared media type is kept on the session's one row of its hash (session_hashes).
  const hashes = (snapshot.platform.session_hashes ?? []).map((line) => {
    const row = JSON.parse(line);
    return JSON.stringify(
      row.session_id === s.sessionId ? { ...row, media_type: null, compressible: null } : row,
    );
  });
  return {
    ...snapshot,
    platform: { ...snapshot.platform, session_assets: rows.sort(), session_hashes: hashes.sort() },
  };
}

/** The snapshot without one session's records of the content it has. */
function withoutSessionBlobsOf(snapshot: StoreSnapshot, s: Session): StoreSnapshot {
  const rows = (snapshot.platform.session_blobs ?? []).filter(
    (line) => JSON.parse(line).session_id !== s.sessionId,
  );
  return { ...snapshot, platform: { ...snapshot.platform, session_blobs: rows } };
}

/** Session asset rows whose media type differs between two snapshots, as they are after. */
function changedAssets(before: StoreSnapshot, after: StoreSnapshot): any[] {
  const old = new Set([...(before.platform.session_assets ?? []), ...(before.platform.session_hashes ?? [])]);
  const assets = (after.platform.session_assets ?? [])
    .filter((line) => !old.has(line))
    .map((line) => JSON.parse(line));
  // A declared media type is kept on the session's row of its hash: as its paths' content_type.
  const hashes = (after.platform.session_hashes ?? [])
    .filter((line) => !old.has(line))
    .map((line) => JSON.parse(line))
    .map((row) => ({ session_id: row.session_id, hash: row.hash, content_type: row.media_type }));
  return [...assets, ...hashes];
}
