import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { openSocket, parseResponse, rawMessage } from "../support/raw-http.js";
import { canonicalPath } from "../support/site-paths.js";
import { multipartBody, uploadBucket, type UploadPart } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { blobStoreState, snapshotStore } from "../support/store-snapshot.js";
import { storedBlobs, completeDeploy, jwtPayload, prepareFiles, rawUpload } from "../support/upload-flow.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const ACCEPTED = { success: true, errors: [], messages: [], result: {} };

/** The upload service's error codes, as the README documents them. */
const CODE = {
  unauthorized: 10001,
  accountNotFound: 10002,
  badRequest: 10003,
  hashMismatch: 10004,
  hashNotInSession: 10005,
} as const;

/** Asserts Cloudflare's error envelope with one error of the given status and code. */
function expectRefused(
  response: { status: number; body: any },
  status: number,
  code: number,
  message?: RegExp,
): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ success: false });
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0]).toEqual({ code, message: expect.any(String) });
  if (message) expect(response.body.errors[0].message).toMatch(message);
}

/** The parts of a bucket, with no Content-Type, as Cloudflare's SDK sends them. */
function partsOf(bucket: string[], byHash: Map<string, Buffer>): UploadPart[] {
  return bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
}

/** A multipart body whose parts carry `payload` as given (not base64-encoded for you). */
function rawPartsBody(parts: { hash: string; payload: string }[]) {
  const boundary = `----raw${randomBytes(6).toString("hex")}`;
  let text = "";
  for (const part of parts) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${part.hash}"; filename="${part.hash}"\r\n\r\n`;
    text += `${part.payload}\r\n`;
  }
  text += `--${boundary}--\r\n`;
  return { body: Buffer.from(text, "latin1"), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Resolves with the status and headers of the first response on `socket`, once its head has come. */
function responseHead(socket: Socket): Promise<{ status: number; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end !== -1) resolve(parseResponse(received.subarray(0, end + 4)));
    });
  });
}

describe("upload protocol", () => {
  let server: TestServer;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer();
    p = await createTestProject(server.urls.api, "upload-protocol");
  });
  afterAll(async () => server.stop());

  /** A new project on the shared server, so each test's slug and content are its own. */
  const project = (label: string) => createTestProject(server.urls.api, `upload-protocol-${label}`);

  it("upload: answers 202 while assets are missing, then 201 with a completion token that deploys", async () => {
    const binary = randomBytes(200_000 + 1); // several chunks, length not a multiple of 3
    const files = { "/index.html": "<h1>two buckets</h1>", "/img/photo.bin": binary, "/empty.txt": "" };
    const { prepared, byHash, hashOf } = await prepareFiles(server.urls.api, p, files);
    const hashes = (prepared.buckets as string[][]).flat();
    expect(hashes.sort()).toEqual([...byHash.keys()].sort());

    const first = hashOf("/index.html");
    const rest = hashes.filter((h) => h !== first);
    const partial = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, partsOf([first], byHash));
    expect(partial.status).toBe(202);
    expect(partial.body).toEqual(ACCEPTED);

    const done = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, partsOf(rest, byHash));
    expect(done.status).toBe(201);
    expect(done.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { jwt: expect.any(String) },
    });

    const deployed = await completeDeploy(server.urls.api, p, prepared.deployId, done.body.result.jwt);
    expect(deployed.status).toBe(200);
    const host = `${p.slug}.localhost`;
    const photo = await edgeGet(server.urls.edge, host, "/img/photo.bin");
    expect(photo.status).toBe(200);
    expect(photo.body.equals(binary)).toBe(true);
    expect((await edgeGet(server.urls.edge, host, "/")).body.toString()).toBe("<h1>two buckets</h1>");
    const empty = await edgeGet(server.urls.edge, host, "/empty.txt");
    expect(empty.status).toBe(200);
    expect(empty.body.length).toBe(0);
  });

  it("upload: buckets uploaded at the same time give a completion token", async () => {
    const q = await project("concurrent");
    const files = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`/f${i}.txt`, `concurrent file ${i}`] as const),
    );
    const { prepared, byHash } = await prepareFiles(server.urls.api, q, files);
    const hashes = (prepared.buckets as string[][]).flat();
    const halves = [hashes.slice(0, 3), hashes.slice(3)];
    const answers = await Promise.all(
      halves.map((half) => uploadBucket(prepared.urls.upload, prepared.uploadJwt, partsOf(half, byHash))),
    );
    for (const answer of answers) expect([201, 202]).toContain(answer.status);
    const jwt = answers.find((a) => a.status === 201)?.body.result.jwt;
    expect(jwt).toEqual(expect.any(String));
    expect((await completeDeploy(server.urls.api, q, prepared.deployId, jwt)).status).toBe(200);
  });

  it("upload: a part without Content-Type is served with its path's media type, one with it exactly", async () => {
    const q = await project("media-types");
    const files = {
      "/index.html": "<p>typed by extension</p>",
      "/style.css": "body { color: red }",
      "/data.unknownext": "opaque",
      "/feed.json": '{"declared":true}',
      "/notes.txt": "declared latin-1",
    };
    const declared: Record<string, string> = {
      "/feed.json": "application/vnd.example+json",
      "/notes.txt": "text/plain; charset=iso-8859-1",
    };
    const { prepared, byHash, hashOf } = await prepareFiles(server.urls.api, q, files);
    const parts: UploadPart[] = Object.keys(files).map((path) => {
      const hash = hashOf(path);
      const contentType = declared[path];
      return contentType
        ? { hash, bytes: byHash.get(hash)!, contentType }
        : { hash, bytes: byHash.get(hash)! };
    });
    const uploaded = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
    expect(uploaded.status).toBe(201);
    expect(
      (await completeDeploy(server.urls.api, q, prepared.deployId, uploaded.body.result.jwt)).status,
    ).toBe(200);

    const expected: Record<string, string> = {
      "/index.html": "text/html; charset=utf-8",
      "/style.css": "text/css; charset=utf-8",
      "/data.unknownext": "application/octet-stream",
      ...declared,
    };
    for (const [path, type] of Object.entries(expected)) {
      const served = await edgeGet(server.urls.edge, `${q.slug}.localhost`, canonicalPath(path));
      expect(served.status, path).toBe(200);
      expect(served.headers["content-type"], path).toBe(type);
      expect(served.body.toString(), path).toBe(files[path as keyof typeof files]);
    }
  });

  it("upload: a FormData body built by fetch, as wrangler sends it, is accepted with its media types", async () => {
    const q = await project("formdata");
    const files = { "/index.html": "<p>from FormData</p>", "/script.js": "export {}" };
    const { prepared, byHash, hashOf } = await prepareFiles(server.urls.api, q, files);
    const form = new FormData();
    form.set(
      hashOf("/index.html"),
      new File([byHash.get(hashOf("/index.html"))!.toString("base64")], hashOf("/index.html"), {
        type: "text/html",
      }),
    );
    form.set(
      hashOf("/script.js"),
      new File([byHash.get(hashOf("/script.js"))!.toString("base64")], hashOf("/script.js"), {
        type: "application/javascript",
      }),
    );
    const response = await fetch(prepared.urls.upload, {
      method: "POST",
      headers: { authorization: `Bearer ${prepared.uploadJwt}` },
      body: form,
    });
    expect(response.status).toBe(201);
    const { result } = (await response.json()) as any;
    expect((await completeDeploy(server.urls.api, q, prepared.deployId, result.jwt)).status).toBe(200);
    const page = await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/");
    expect(page.headers["content-type"]).toBe("text/html");
    expect(page.body.toString()).toBe("<p>from FormData</p>");
    const script = await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/script.js");
    expect(script.headers["content-type"]).toBe("application/javascript");
  });

  it("prepare: content another project holds is asked for again; its verified upload completes the deploy", async () => {
    const owner = await project("held-owner");
    const files = { "/index.html": "<p>shared across projects</p>", "/app.js": "console.log('shared')" };
    const first = await deployFiles(server.urls.api, owner, files);
    expect(first.prepared.buckets.flat()).toHaveLength(2);

    // Deduplication is per project (contract §3): the other project proves it has the bytes.
    const other = await project("held-other");
    const { prepared, byHash } = await prepareFiles(server.urls.api, other, files);
    expect(prepared.buckets.flat().sort()).toEqual(first.prepared.buckets.flat().sort());
    const early = await completeDeploy(server.urls.api, other, prepared.deployId, prepared.uploadJwt);
    expect(early.status).toBe(422);
    const uploaded = await uploadBucket(
      prepared.urls.upload,
      prepared.uploadJwt,
      partsOf(prepared.buckets[0], byHash),
    );
    expect(uploaded.status).toBe(201);
    const deployed = await completeDeploy(
      server.urls.api,
      other,
      prepared.deployId,
      uploaded.body.result.jwt,
    );
    expect(deployed.status).toBe(200);
    const script = await edgeGet(server.urls.edge, `${other.slug}.localhost`, "/app.js");
    expect(script.status).toBe(200);
    expect(script.body.toString()).toBe("console.log('shared')");
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
  });

  describe("refusals", () => {
    let q: TestProject;
    let prepared: any;
    let byHash: Map<string, Buffer>;
    let hash: string;
    beforeAll(async () => {
      q = await project("refusals");
      ({ prepared, byHash } = await prepareFiles(server.urls.api, q, { "/page.html": "<p>refusals</p>" }));
      hash = prepared.buckets[0][0];
    });

    /** After a refusal, the asset is still missing: a new prepare asks for it. */
    async function expectStillMissing(): Promise<void> {
      const again = await prepareFiles(server.urls.api, q, { "/page.html": "<p>refusals</p>" });
      expect(again.prepared.buckets.flat()).toEqual([hash]);
    }

    it("upload: content whose hash does not match is refused and the asset stays missing", async () => {
      const refused = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
        { hash, bytes: Buffer.from("<p>something else</p>") },
      ]);
      expectRefused(refused, 400, CODE.hashMismatch, /match/);
      await expectStillMissing();
    });

    it("upload: a hash not in the session is refused, even one of another session", async () => {
      const stranger = await prepareFiles(server.urls.api, q, { "/other.html": "<p>another session</p>" });
      const strangerHash = stranger.prepared.buckets[0][0];
      const refused = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
        { hash: strangerHash, bytes: stranger.byHash.get(strangerHash)! },
      ]);
      expectRefused(refused, 400, CODE.hashNotInSession, /not part of this upload session/);
      const unknown = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
        { hash: "0".repeat(32), bytes: Buffer.from("x") },
      ]);
      expectRefused(unknown, 400, CODE.hashNotInSession);
      const again = await prepareFiles(server.urls.api, q, { "/other.html": "<p>another session</p>" });
      expect(again.prepared.buckets.flat()).toEqual([strangerHash]);
    });

    it("upload: a forged token is refused", async () => {
      const payload = jwtPayload(prepared.uploadJwt);
      const otherKey = await new SignJWT(payload)
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .sign(randomBytes(32));
      const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${prepared.uploadJwt.split(".")[1]}.`;
      const [head, , signature] = prepared.uploadJwt.split(".");
      const tampered = `${head}.${Buffer.from(JSON.stringify({ ...payload, exp: (payload.exp as number) + 3600 })).toString("base64url")}.${signature}`;
      for (const token of [otherKey, unsigned, tampered, "not-a-jwt"]) {
        const refused = await uploadBucket(prepared.urls.upload, token, partsOf([hash], byHash));
        expectRefused(refused, 401, CODE.unauthorized);
      }
      const { body, contentType } = multipartBody(partsOf([hash], byHash));
      expectRefused(await rawUpload(prepared.urls.upload, { contentType, body }), 401, CODE.unauthorized);
      await expectStillMissing();
    });

    it("upload: a completion token cannot be used to upload", async () => {
      const r = await project("purpose");
      const first = await prepareFiles(server.urls.api, r, { "/a.txt": "purpose a" });
      const done = await uploadBucket(
        first.prepared.urls.upload,
        first.prepared.uploadJwt,
        partsOf(first.prepared.buckets[0], first.byHash),
      );
      expect(done.status).toBe(201);
      const completion = done.body.result.jwt;
      // Same session, a fresh file would need uploading: the completion token must not do it.
      expectRefused(
        await uploadBucket(
          first.prepared.urls.upload,
          completion,
          partsOf(first.prepared.buckets[0], first.byHash),
        ),
        401,
        CODE.unauthorized,
      );
    });

    it("upload: a refusal before the body has all arrived says Connection: close; one after the whole body keeps the connection", async () => {
      const upload = new URL(prepared.urls.upload);
      const { body, contentType } = multipartBody(partsOf([hash], byHash));
      const headers: [string, string][] = [
        ["Host", upload.host],
        ["Authorization", `Bearer ${prepared.uploadJwt}`],
        ["Content-Type", contentType],
      ];
      // A wrong account is refused from the head: most of the announced body is never sent.
      const early = await openSocket(prepared.urls.upload);
      try {
        const head = responseHead(early);
        const path = upload.pathname.replace(prepared.accountId, "f".repeat(32)) + upload.search;
        early.write(
          rawMessage("POST", path, [...headers, ["Content-Length", "1000000"]], body.subarray(0, 20)),
        );
        const refused = await head;
        expect(refused.status).toBe(404);
        expect(refused.headers["connection"]).toBe("close");
      } finally {
        early.destroy();
      }
      // Content that does not match its hash is refused once the whole body has been read.
      const late = await openSocket(prepared.urls.upload);
      try {
        const head = responseHead(late);
        const wrong = multipartBody([{ hash, bytes: Buffer.from("<p>not it</p>") }]);
        const lateHeaders: [string, string][] = [...headers.slice(0, 2), ["Content-Type", wrong.contentType]];
        late.write(
          rawMessage(
            "POST",
            upload.pathname + upload.search,
            [...lateHeaders, ["Content-Length", String(wrong.body.length)]],
            wrong.body,
          ),
        );
        const refused = await head;
        expect(refused.status).toBe(400);
        expect(refused.headers["connection"]).toBe("keep-alive");
      } finally {
        late.destroy();
      }
      await expectStillMissing();
    });

    it("upload: a wrong accountId is refused", async () => {
      const url = prepared.urls.upload.replace(prepared.accountId, "f".repeat(32));
      expect(url).not.toBe(prepared.urls.upload);
      expectRefused(
        await uploadBucket(url, prepared.uploadJwt, partsOf([hash], byHash)),
        404,
        CODE.accountNotFound,
      );
      await expectStillMissing();
    });

    it("upload: a request without ?base64=true is refused", async () => {
      const { body, contentType } = multipartBody(partsOf([hash], byHash));
      for (const query of ["", "?base64=false"]) {
        const url = prepared.urls.upload.replace("?base64=true", query);
        expectRefused(
          await rawUpload(url, { token: prepared.uploadJwt, contentType, body }),
          400,
          CODE.badRequest,
        );
      }
      await expectStillMissing();
    });

    it("upload: content that is not base64 is refused", async () => {
      const b64 = byHash.get(hash)!.toString("base64");
      for (const payload of [byHash.get(hash)!.toString("latin1"), `${b64.slice(0, 4)}\r\n${b64.slice(4)}`]) {
        const { body, contentType } = rawPartsBody([{ hash, payload }]);
        expectRefused(
          await rawUpload(prepared.urls.upload, { token: prepared.uploadJwt, contentType, body }),
          400,
          CODE.badRequest,
        );
      }
      const urlSafe = rawPartsBody([{ hash, payload: b64.replace(/\+/g, "-").replace(/\//g, "_") + "-_" }]);
      expectRefused(
        await rawUpload(prepared.urls.upload, { token: prepared.uploadJwt, ...urlSafe }),
        400,
        CODE.badRequest,
      );
      await expectStillMissing();
    });

    it("upload: base64 with non-canonical padding is refused", async () => {
      // 16 bytes encode to 24 characters ending in "==".
      const r = await project("padding");
      const content = Buffer.from("sixteen bytes!!!");
      const own = await prepareFiles(server.urls.api, r, { "/p.bin": content });
      const ownHash = own.prepared.buckets[0][0];
      const canonical = content.toString("base64");
      expect(canonical.endsWith("==")).toBe(true);
      const unpadded = canonical.replace(/=+$/, "");
      const payloads = [
        unpadded, // padding left off
        `${unpadded}=`, // half the padding
        `${canonical}=`, // too much padding
        `${canonical}${canonical}`, // padding in the middle
        `${unpadded.slice(0, 4)}=${unpadded.slice(4)}=`, // padding inside a quantum
      ];
      for (const payload of payloads) {
        const { body, contentType } = rawPartsBody([{ hash: ownHash, payload }]);
        const refused = await rawUpload(own.prepared.urls.upload, {
          token: own.prepared.uploadJwt,
          contentType,
          body,
        });
        expectRefused(refused, 400, CODE.badRequest);
      }
      const again = await prepareFiles(server.urls.api, r, { "/p.bin": content });
      expect(again.prepared.buckets.flat()).toEqual([ownHash]);
    });

    it("upload: a truncated multipart body is refused and keeps nothing of the cut part", async () => {
      const { body, contentType } = multipartBody(partsOf([hash], byHash));
      const text = body.toString("latin1");
      const closing = text.lastIndexOf("\r\n--");
      const cuts = [
        closing, // no closing delimiter
        closing - 3, // inside the content
        text.indexOf("\r\n\r\n") - 5, // inside the part's headers
        10, // inside the first delimiter
      ];
      for (const cut of cuts) {
        const refused = await rawUpload(prepared.urls.upload, {
          token: prepared.uploadJwt,
          contentType,
          body: body.subarray(0, cut),
        });
        expectRefused(refused, 400, CODE.badRequest, /truncated/);
      }
      await expectStillMissing();
    });

    it("upload: a body that is not multipart is refused", async () => {
      const json = await rawUpload(prepared.urls.upload, {
        token: prepared.uploadJwt,
        contentType: "application/json",
        body: JSON.stringify({ [hash]: byHash.get(hash)!.toString("base64") }),
      });
      expectRefused(json, 415, CODE.badRequest);
      const noBoundary = await rawUpload(prepared.urls.upload, {
        token: prepared.uploadJwt,
        contentType: "multipart/form-data",
        body: multipartBody(partsOf([hash], byHash)).body,
      });
      expectRefused(noBoundary, 415, CODE.badRequest);
      expectRefused(
        await rawUpload(prepared.urls.upload, { token: prepared.uploadJwt }),
        415,
        CODE.badRequest,
      );
      await expectStillMissing();
    });

    it("upload: a bucket refused part-way, after a good part, writes no pack and no row: both are asked again", async () => {
      const r = await project("mixed");
      const own = await prepareFiles(server.urls.api, r, {
        "/good.txt": "good part",
        "/bad.txt": "bad part",
      });
      const good = own.hashOf("/good.txt");
      const bad = own.hashOf("/bad.txt");
      const refused = await uploadBucket(own.prepared.urls.upload, own.prepared.uploadJwt, [
        { hash: good, bytes: own.byHash.get(good)! },
        { hash: bad, bytes: Buffer.from("not the bad part") },
      ]);
      expectRefused(refused, 400, CODE.hashMismatch, /match/);
      expect(storedBlobs(server.dataDir).has(good)).toBe(false);
      const disk = blobStoreState(server.dataDir);
      expect(disk.unnamedFiles).toEqual([]);
      expect(disk.temporaryFiles).toEqual([]);
      const again = await prepareFiles(server.urls.api, r, {
        "/good.txt": "good part",
        "/bad.txt": "bad part",
      });
      expect(again.prepared.buckets.flat().sort()).toEqual([good, bad].sort());
    });
  });

  describe("completion", () => {
    it("deploy: a completion token of one deploy cannot complete another (422 INVALID_COMPLETION)", async () => {
      const q = await project("cross-a");
      const first = await prepareFiles(server.urls.api, q, { "/index.html": "<p>deploy one</p>" });
      const second = await prepareFiles(server.urls.api, q, { "/index.html": "<p>deploy two</p>" });
      const done = await uploadBucket(
        first.prepared.urls.upload,
        first.prepared.uploadJwt,
        partsOf(first.prepared.buckets[0], first.byHash),
      );
      expect(done.status).toBe(201);
      const jwt = done.body.result.jwt;

      const crossed = await completeDeploy(server.urls.api, q, second.prepared.deployId, jwt);
      expect(crossed.status).toBe(422);
      expect(crossed.body.error.code).toBe("INVALID_COMPLETION");

      // Nor a deploy of another project.
      const other = await project("cross-b");
      const theirs = await prepareFiles(server.urls.api, other, { "/index.html": "<p>deploy one</p>" });
      const foreign = await completeDeploy(server.urls.api, other, theirs.prepared.deployId, jwt);
      expect(foreign.status).toBe(422);
      expect(foreign.body.error.code).toBe("INVALID_COMPLETION");

      // The refusals changed nothing: each deploy completes with its own token.
      expect((await completeDeploy(server.urls.api, q, first.prepared.deployId, jwt)).status).toBe(200);
      const home = await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/");
      expect(home.body.toString()).toBe("<p>deploy one</p>");
      const theirsUploaded = await uploadBucket(
        theirs.prepared.urls.upload,
        theirs.prepared.uploadJwt,
        partsOf(theirs.prepared.buckets[0], theirs.byHash),
      );
      expect(theirsUploaded.status).toBe(201);
      const own = await completeDeploy(
        server.urls.api,
        other,
        theirs.prepared.deployId,
        theirsUploaded.body.result.jwt,
      );
      expect(own.status).toBe(200);
    });

    it("deploy: before every asset is uploaded answers 422 INVALID_COMPLETION", async () => {
      const q = await project("early");
      const files = { "/index.html": "<p>early</p>", "/late.css": "p { margin: 0 }" };
      const { prepared, byHash, hashOf } = await prepareFiles(server.urls.api, q, files);
      const early = await completeDeploy(server.urls.api, q, prepared.deployId, prepared.uploadJwt);
      expect(early.status).toBe(422);
      expect(early.body.error.code).toBe("INVALID_COMPLETION");

      const partial = await uploadBucket(
        prepared.urls.upload,
        prepared.uploadJwt,
        partsOf([hashOf("/index.html")], byHash),
      );
      expect(partial.status).toBe(202);
      const stillEarly = await completeDeploy(server.urls.api, q, prepared.deployId, prepared.uploadJwt);
      expect(stillEarly.status).toBe(422);
      expect(stillEarly.body.error.code).toBe("INVALID_COMPLETION");
      expect((await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/")).status).toBe(404);

      const done = await uploadBucket(
        prepared.urls.upload,
        prepared.uploadJwt,
        partsOf([hashOf("/late.css")], byHash),
      );
      expect(done.status).toBe(201);
      expect((await completeDeploy(server.urls.api, q, prepared.deployId, done.body.result.jwt)).status).toBe(
        200,
      );
    });
  });
});

describe("upload protocol: buckets", () => {
  const maxFiles = 3;
  const maxBytes = 600;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ bucketMaxFiles: maxFiles, bucketMaxBytes: maxBytes });
  });
  afterAll(async () => server.stop());

  const encoded = (bytes: number) => Math.ceil(bytes / 3) * 4;

  /** Checks the buckets against the limits and the manifest, uploads them in turn and deploys. */
  async function uploadAll(label: string, files: Record<string, string | Buffer>): Promise<string[][]> {
    const p = await createTestProject(server.urls.api, label);
    const { prepared, byHash, manifest } = await prepareFiles(server.urls.api, p, files);
    const buckets = prepared.buckets as string[][];
    const all = buckets.flat();
    expect(new Set(all).size, "each hash once").toBe(all.length);
    expect(new Set(all)).toEqual(new Set(Object.values(manifest).map((e) => e.hash)));
    for (const bucket of buckets) {
      expect(bucket.length).toBeGreaterThan(0);
      expect(bucket.length).toBeLessThanOrEqual(maxFiles);
      expect(bucket.reduce((sum, h) => sum + encoded(byHash.get(h)!.length), 0)).toBeLessThanOrEqual(
        maxBytes,
      );
    }
    let jwt: string | undefined;
    for (const [i, bucket] of buckets.entries()) {
      const answer = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, partsOf(bucket, byHash));
      if (i < buckets.length - 1) {
        expect(answer.status).toBe(202);
        expect(answer.body).toEqual(ACCEPTED);
      } else {
        expect(answer.status).toBe(201);
        jwt = answer.body.result.jwt;
      }
    }
    expect((await completeDeploy(server.urls.api, p, prepared.deployId, jwt!)).status).toBe(200);
    for (const path of Object.keys(files)) {
      const served = await edgeGet(server.urls.edge, `${p.slug}.localhost`, canonicalPath(path));
      expect(served.body.equals(Buffer.from(files[path]!)), path).toBe(true);
    }
    return buckets;
  }

  it("prepare: many small files are split by the file limit, each hash in one bucket once", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`/page-${i}.html`] = `<p>page ${i}</p>`;
    files["/copy/page-0.html"] = "<p>page 0</p>"; // same hash as /page-0.html
    const buckets = await uploadAll("buckets-files", files);
    expect(buckets.flat()).toHaveLength(8);
    expect(buckets.length).toBeGreaterThanOrEqual(3);
  });

  it("prepare: larger files are split by the encoded-size limit", async () => {
    const files: Record<string, Buffer> = {};
    const sizes = [400, 300, 250, 200, 120, 60, 10];
    sizes.forEach((size, i) => (files[`/blob-${i}.bin`] = randomBytes(size)));
    const buckets = await uploadAll("buckets-bytes", files);
    expect(buckets.flat()).toHaveLength(sizes.length);
    expect(buckets.length).toBeGreaterThanOrEqual(3);
  });
});

describe("upload protocol: expiry", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("upload: an expired upload token is refused, and nothing of its bucket is kept", async () => {
    const p = await createTestProject(server.urls.api, "expiry");
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, { "/late.html": "<p>too late</p>" });
    server.clock.advance(server.config.deployTtlSeconds + 1);
    const before = snapshotStore(server.dataDir);
    const refused = await uploadBucket(
      prepared.urls.upload,
      prepared.uploadJwt,
      partsOf(prepared.buckets[0], byHash),
    );
    expectRefused(refused, 401, CODE.unauthorized);
    expect(snapshotStore(server.dataDir)).toEqual(before);
    const again = await prepareFiles(server.urls.api, p, { "/late.html": "<p>too late</p>" });
    expect(again.prepared.buckets).toEqual(prepared.buckets);
  });

  it("upload: the upload and completion tokens live as long as their preparation, not a second less", async () => {
    const p = await createTestProject(server.urls.api, "expiry-whole-life");
    // Prepare late in a second, act early in the second its preparation ends in: the preparation
    // is still open, so its tokens (whose expiry is in whole seconds) must still be good.
    server.clock.freeze();
    server.clock.advanceTo(Math.ceil(server.clock.now() / 1_000) * 1_000 + 800);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, {
      "/in-time.html": "<p>in time</p>",
    });
    const expiresAt = Date.parse(prepared.expiresAt);
    expect(expiresAt).toBe(server.clock.now() + server.config.deployTtlSeconds * 1_000);
    server.clock.advanceTo(expiresAt - 700);
    const done = await uploadBucket(
      prepared.urls.upload,
      prepared.uploadJwt,
      partsOf(prepared.buckets[0], byHash),
    );
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    const deployed = await completeDeploy(server.urls.api, p, prepared.deployId, done.body.result.jwt);
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
  });

  it("upload: the upload token is refused from the very millisecond its preparation ends", async () => {
    const p = await createTestProject(server.urls.api, "expiry-to-the-ms");
    server.clock.freeze();
    server.clock.advanceTo(Math.ceil(server.clock.now() / 1_000) * 1_000 + 200);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, { "/end.html": "<p>end</p>" });
    // The token's own expiry is the next whole second; the preparation's end is the bound.
    server.clock.advanceTo(Date.parse(prepared.expiresAt));
    expect(jwtPayload(prepared.uploadJwt).exp as number).toBeGreaterThan(server.clock.now() / 1_000);
    const refused = await uploadBucket(
      prepared.urls.upload,
      prepared.uploadJwt,
      partsOf(prepared.buckets[0], byHash),
    );
    expectRefused(refused, 401, CODE.unauthorized);
  });
});

describe("upload protocol: asset size limit", () => {
  const MAX_ASSET_BYTES = 4096;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ maxAssetBytes: MAX_ASSET_BYTES });
  });
  afterAll(async () => server.stop());

  it("upload: a part over MAX_ASSET_BYTES is refused even when the manifest claimed a small size, and nothing is stored", async () => {
    const p = await createTestProject(server.urls.api, "size-limit");
    const content = randomBytes(4 * MAX_ASSET_BYTES);
    const { manifest, byHash } = await manifestOf(p.slug, { "/big.bin": content });
    const [hash] = [...byHash.keys()];
    // The manifest lies: it claims a size within the limit, so prepare accepts it.
    const entry = manifest[`/${p.slug}/big.bin`]!;
    entry.size = 100;
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body.buckets).toEqual([[hash]]);
    const before = snapshotStore(server.dataDir);
    const refused = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, [
      { hash: hash!, bytes: content },
    ]);
    expectRefused(refused, 400, CODE.badRequest, new RegExp(`exceeds ${MAX_ASSET_BYTES} bytes`));
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect(storedBlobs(server.dataDir).has(hash!)).toBe(false);
    expect(blobStoreState(server.dataDir).temporaryFiles).toEqual([]);
    // Still missing: the deploy cannot complete with the upload token.
    const early = await completeDeploy(server.urls.api, p, prepared.body.deployId, prepared.body.uploadJwt);
    expect(early.status).toBe(422);
    expect(early.body.error.code).toBe("INVALID_COMPLETION");
  });

  it("upload: a part of exactly MAX_ASSET_BYTES is accepted", async () => {
    const p = await createTestProject(server.urls.api, "size-limit-exact");
    const content = randomBytes(MAX_ASSET_BYTES);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, { "/exact.bin": content });
    const done = await uploadBucket(
      prepared.urls.upload,
      prepared.uploadJwt,
      partsOf(prepared.buckets[0], byHash),
    );
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect((await completeDeploy(server.urls.api, p, prepared.deployId, done.body.result.jwt)).status).toBe(
      200,
    );
    const served = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/exact.bin");
    expect(served.body.equals(content)).toBe(true);
  });
});
