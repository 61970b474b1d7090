import { describe, expect, it } from "vitest";
import { MultipartError, multipartBoundary, parseMultipart, type PartHeaders } from "./multipart.js";

const BODY = Buffer.from(
  "preamble\r\n--XyZ\r\n" +
    'Content-Disposition: form-data; name="a"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n' +
    "first\r\nbody\r\n--XyZ  \r\n" +
    'Content-Disposition: form-data; name="b"\r\n\r\n' +
    "second\r\n--XyZ--\r\nepilogue",
);

async function parse(chunks: Buffer[]): Promise<{ headers: PartHeaders; body: string }[]> {
  const parts: { headers: PartHeaders; body: string }[] = [];
  await parseMultipart(
    (async function* () {
      yield* chunks;
    })(),
    "XyZ",
    (headers) => {
      const part = { headers, body: "" };
      parts.push(part);
      return { write: (chunk) => void (part.body += chunk.toString("latin1")), end: () => undefined };
    },
  );
  return parts;
}

describe("parseMultipart", () => {
  it("parseMultipart: the same parts whatever the chunking, down to one byte at a time", async () => {
    for (const size of [1, 2, 3, 7, BODY.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < BODY.length; i += size) chunks.push(BODY.subarray(i, i + size));
      const parts = await parse(chunks);
      expect(parts.map((p) => [p.headers.name, p.headers.filename, p.body])).toEqual([
        ["a", "a.txt", "first\r\nbody"],
        ["b", undefined, "second"],
      ]);
      expect(parts[0]!.headers.headers["content-type"]).toBe("text/plain");
      expect(parts[1]!.headers.headers["content-type"]).toBeUndefined();
    }
  });

  it("parseMultipart: refuses endless padding after a boundary at once, without buffering it", async () => {
    let pulled = 0;
    const body = (async function* () {
      yield Buffer.from("--XyZ");
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield Buffer.alloc(64 * 1024, 0x20);
      }
    })();
    await expect(
      parseMultipart(body, "XyZ", () => ({ write: () => undefined, end: () => undefined })),
    ).rejects.toBeInstanceOf(MultipartError);
    // It stops at the first chunk of padding, not after 64 MB of it.
    expect(pulled).toBe(1);
  });

  it("parseMultipart: a body cut short is refused", async () => {
    await expect(parse([BODY.subarray(0, 120)])).rejects.toBeInstanceOf(MultipartError);
  });

  it("multipartBoundary: reads quoted and bare boundaries, only from multipart/form-data", () => {
    expect(multipartBoundary("multipart/form-data; boundary=abc")).toBe("abc");
    expect(multipartBoundary('multipart/form-data; charset=x; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("application/json")).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });
});
