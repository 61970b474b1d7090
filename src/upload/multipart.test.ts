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

  it("parseMultipart: the same parts in chunks of every size from a delimiter's length up, and cut anywhere in two", async () => {
    // A body whose first part holds what looks like the start of a delimiter, twice.
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n' +
        "one\r\n--XyX\r\n--Xy two\r\n--XyZ\r\n" +
        'Content-Disposition: form-data; name="b"\r\n\r\nsecond\r\n--XyZ--',
    );
    const expected = [
      ["a", "one\r\n--XyX\r\n--Xy two"],
      ["b", "second"],
    ];
    const splits: Buffer[][] = [];
    for (let size = 7; size <= 24; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
      splits.push(chunks);
    }
    for (let cut = 0; cut <= body.length; cut++) splits.push([body.subarray(0, cut), body.subarray(cut)]);
    for (const chunks of splits) {
      const parts = await parse(chunks);
      expect(parts.map((p) => [p.headers.name, p.body])).toEqual(expected);
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
    await expect(parse([BODY.subarray(0, 120)])).rejects.toThrow("multipart body is truncated");
  });

  it("multipartBoundary: reads quoted and bare boundaries, only from multipart/form-data", () => {
    expect(multipartBoundary("multipart/form-data; boundary=abc")).toBe("abc");
    expect(multipartBoundary('multipart/form-data; charset=x; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("application/json")).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });

  it("parseMultipart: a body that ends right after the closing delimiter, a byte at a time, is whole", async () => {
    const body = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nA\r\n--XyZ--');
    const chunks = Array.from(body, (byte) => Buffer.from([byte]));
    expect((await parse(chunks)).map((p) => p.body)).toEqual(["A"]);
  });

  it("parseMultipart: returns how many parts it read", async () => {
    const count = await parseMultipart(
      (async function* () {
        yield BODY;
      })(),
      "XyZ",
      () => ({ write: () => undefined, end: () => undefined }),
    );
    expect(count).toBe(2);
  });

  it("parseMultipart: MultipartError for a delimiter followed by anything but padding or `--`", async () => {
    for (const after of ["-x\r\n", "x\r\n", " -\r\n"]) {
      const body = Buffer.from(`--XyZ${after}Content-Disposition: form-data; name="a"\r\n\r\nA\r\n--XyZ--`);
      await expect(parse([body]), JSON.stringify(after)).rejects.toThrow("malformed multipart boundary line");
    }
  });

  it("parseMultipart: padding of 1024 spaces and tabs after a delimiter is taken, 1025 is refused", async () => {
    const withPadding = (n: number) =>
      Buffer.from(
        `--XyZ${" \t".repeat(n).slice(0, n)}\r\nContent-Disposition: form-data; name="a"\r\n\r\nA\r\n--XyZ--`,
      );
    expect((await parse([withPadding(1024)])).map((p) => p.body)).toEqual(["A"]);
    await expect(parse([withPadding(1025)])).rejects.toThrow("malformed multipart boundary line");
  });

  it("parseMultipart: part headers of 16 KiB are taken, one byte more is refused, in one chunk or many", async () => {
    const disposition = 'Content-Disposition: form-data; name="a"';
    const withHeaders = (size: number) => {
      const filler = `X-Fill: ${"f".repeat(size - disposition.length - 2 - "X-Fill: ".length)}`;
      return Buffer.from(`--XyZ\r\n${disposition}\r\n${filler}\r\n\r\nA\r\n--XyZ--`);
    };
    const inChunks = (body: Buffer) =>
      Array.from({ length: Math.ceil(body.length / 1000) }, (_, i) =>
        body.subarray(i * 1000, i * 1000 + 1000),
      );
    expect((await parse([withHeaders(16 * 1024)]))[0]!.headers.headers["x-fill"]).toHaveLength(
      16 * 1024 - disposition.length - 10,
    );
    expect((await parse(inChunks(withHeaders(16 * 1024)))).map((p) => p.body)).toEqual(["A"]);
    await expect(parse([withHeaders(16 * 1024 + 1)])).rejects.toThrow("multipart part headers too large");
    await expect(parse(inChunks(withHeaders(16 * 1024 + 1)))).rejects.toThrow(
      "multipart part headers too large",
    );
  });

  it("parseMultipart: header names are lowercased and names and values trimmed", async () => {
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n  X-Thing  :   some value  \r\n\r\nA\r\n--XyZ--',
    );
    expect((await parse([body]))[0]!.headers.headers["x-thing"]).toBe("some value");
  });

  it("parseMultipart: MultipartError for a header line without a name or colon", async () => {
    for (const line of [": value", "no colon here"]) {
      const body = Buffer.from(
        `--XyZ\r\nContent-Disposition: form-data; name="a"\r\n${line}\r\n\r\nA\r\n--XyZ--`,
      );
      await expect(parse([body]), line).rejects.toThrow("malformed multipart part header");
    }
  });

  it("parseMultipart: MultipartError for a part whose Content-Disposition is missing or not form-data", async () => {
    for (const headers of [
      "Content-Type: text/plain",
      "Content-Disposition: attachment; name=a",
      "Content-Disposition: form-datax; name=a",
    ]) {
      const body = Buffer.from(`--XyZ\r\n${headers}\r\n\r\nA\r\n--XyZ--`);
      await expect(parse([body]), headers).rejects.toThrow(
        "multipart part without Content-Disposition: form-data",
      );
    }
    const upper = Buffer.from("--XyZ\r\nContent-Disposition: FORM-DATA; NAME=a\r\n\r\nA\r\n--XyZ--");
    expect((await parse([upper]))[0]!.headers.name).toBe("a");
  });

  it("parseMultipart: quoted names keep their escaped characters, bare ones end at `;` or space", async () => {
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data;name="a \\"b\\" \\\\c"; filename=f.txt ;x=1\r\n\r\nA\r\n--XyZ--',
    );
    const [part] = await parse([body]);
    expect(part!.headers.name).toBe('a "b" \\c');
    expect(part!.headers.filename).toBe("f.txt");
  });

  it("parseMultipart: MultipartError for a `\\r` inside the padding after a delimiter", async () => {
    // Only a last "\r" (the first half of a CRLF still to come) is let through as padding.
    const body = Buffer.from('--XyZ \r \r\nContent-Disposition: form-data; name="a"\r\n\r\nA\r\n--XyZ--');
    await expect(parse([body])).rejects.toThrow("malformed multipart boundary line");
  });

  it("parseMultipart: MultipartError for a Content-Disposition that only names form-data after its type", async () => {
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: attachment; name="form-data"\r\n\r\nA\r\n--XyZ--',
    );
    await expect(parse([body])).rejects.toThrow("multipart part without Content-Disposition: form-data");
  });

  it("parseMultipart: Uint8Array chunks (not Buffers) give the same parts, in chunks of every size", async () => {
    for (let size = 1; size <= 24; size++) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < BODY.length; i += size) chunks.push(new Uint8Array(BODY.subarray(i, i + size)));
      const parts: string[] = [];
      await parseMultipart(
        (async function* () {
          yield* chunks;
        })(),
        "XyZ",
        () => {
          parts.push("");
          return {
            write: (chunk) => void (parts[parts.length - 1] += chunk.toString("latin1")),
            end: () => undefined,
          };
        },
      );
      expect(parts, `chunks of ${size}`).toEqual(["first\r\nbody", "second"]);
    }
  });

  it("parseMultipart: a sink is never handed an empty chunk, wherever the chunks are cut", async () => {
    // An empty part, and parts whose delimiters fall at a chunk's start or end.
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n--XyZ\r\n' +
        'Content-Disposition: form-data; name="b"\r\n\r\nsome content\r\n--XyZ--',
    );
    const headersEnd = body.indexOf("\r\n\r\n") + 4;
    const secondEnd = body.lastIndexOf("\r\n--XyZ--");
    const splits: Buffer[][] = [[body.subarray(0, headersEnd), body.subarray(headersEnd)]];
    splits.push([body.subarray(0, secondEnd), body.subarray(secondEnd)]);
    for (let size = 1; size <= body.length; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
      splits.push(chunks);
    }
    for (const chunks of splits) {
      const lengths: number[] = [];
      await parseMultipart(
        (async function* () {
          yield* chunks;
        })(),
        "XyZ",
        () => ({ write: (chunk) => void lengths.push(chunk.length), end: () => undefined }),
      );
      expect(lengths).not.toContain(0);
      expect(lengths.reduce((a, b) => a + b, 0)).toBe("some content".length);
    }
  });

  it("parseMultipart: a part's body reaches its sink as views of the chunks it came in, not copies", async () => {
    // Buffer.alloc, not pooled: a copy would live in another ArrayBuffer.
    const head = Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n');
    const xs = Buffer.alloc(1000, "x");
    const zs = Buffer.alloc(7, "z"); // as long as "\r\n--XyZ"
    const ys = Buffer.alloc(1000, "y");
    const chunks = [head, xs, zs, ys, Buffer.from("\r\n--XyZ--")];
    const written: Buffer[] = [];
    await parseMultipart(
      (async function* () {
        yield* chunks;
      })(),
      "XyZ",
      () => ({ write: (chunk) => void written.push(chunk), end: () => undefined }),
    );
    expect(Buffer.concat(written).toString("latin1")).toBe(
      "x".repeat(1000) + "z".repeat(7) + "y".repeat(1000),
    );
    // After the headers' chunk nothing is left over, so the next chunk is taken as it is; after
    // that, the few bytes kept back are written before the next chunk, which is taken as it is.
    for (const chunk of written) expect([xs.buffer, zs.buffer, ys.buffer]).toContain(chunk.buffer);
  });

  it("parseMultipart: a byte after a delimiter that is not padding is refused at once, before its line ends", async () => {
    // The body stops there: refused as malformed, not left to wait for a CRLF and called truncated.
    for (const after of [" x", "\tx", "xy"]) {
      await expect(parse([Buffer.from(`--XyZ${after}`)]), after).rejects.toThrow(
        "malformed multipart boundary line",
      );
    }
  });

  it("parseMultipart: refuses endless part headers at once, without buffering them", async () => {
    let pulled = 0;
    const body = (async function* () {
      yield Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\nX-Fill: ');
      for (let i = 0; i < 64; i++) {
        pulled++;
        yield Buffer.alloc(64 * 1024, "f");
      }
    })();
    await expect(
      parseMultipart(body, "XyZ", () => ({ write: () => undefined, end: () => undefined })),
    ).rejects.toThrow("multipart part headers too large");
    // It stops at the first chunk past 16 KiB, not after 4 MiB of them.
    expect(pulled).toBe(1);
  });

  it("parseMultipart: a part's bytes reach its sink as they arrive, before the part ends", async () => {
    let received = 0;
    const before: number[] = [];
    const body = (async function* () {
      yield Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n');
      for (let i = 0; i < 10; i++) {
        before.push(received);
        yield Buffer.alloc(1000, "x");
      }
      before.push(received);
      yield Buffer.from("\r\n--XyZ--");
    })();
    await parseMultipart(body, "XyZ", () => ({
      write: (chunk) => void (received += chunk.length),
      end: () => undefined,
    }));
    expect(received).toBe(10_000);
    // Each chunk was passed on before the next was read, but for the few bytes that could start
    // a delimiter ("\r\n--XyZ" less one byte).
    expect(before).toEqual([0, ...Array.from({ length: 10 }, (_, i) => (i + 1) * 1000 - 6)]);
  });

  it("parseMultipart: a promise from onPart, write or end is awaited before the parser goes on; none is awaited when none is returned", async () => {
    const later = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
    for (const size of [1, 5, 16, BODY.length]) {
      for (const waits of [false, true]) {
        const events: string[] = [];
        let busy = false;
        // Each callback notes itself; one that comes while a returned promise is pending is noted as such.
        const note = (event: string): Promise<void> | undefined => {
          events.push(busy ? `overlapping ${event}` : event);
          if (!waits) return undefined;
          busy = true;
          return later().then(() => void (busy = false));
        };
        const chunks: Buffer[] = [];
        for (let i = 0; i < BODY.length; i += size) chunks.push(BODY.subarray(i, i + size));
        await parseMultipart(
          (async function* () {
            yield* chunks;
          })(),
          "XyZ",
          (headers) => {
            const sink = {
              write: (chunk: Buffer) => note(`write ${chunk.toString("latin1")}`),
              end: () => note("end"),
            };
            const opened = note(`open ${headers.name}`);
            return opened ? opened.then(() => sink) : sink;
          },
        );
        expect(events.every((event) => !event.startsWith("overlapping"))).toBe(true);
        const joined = events.join("|").replace(/\|write /g, "");
        expect(joined).toBe("open afirst\r\nbody|end|open bsecond|end");
      }
    }
  });

  it("parseMultipart: an epilogue after the closing delimiter is read through but not kept", async () => {
    const mib = Buffer.alloc(1024 * 1024, "e");
    let grown = 0;
    const body = (async function* () {
      yield Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nA\r\n--XyZ--\r\n');
      const start = process.memoryUsage().arrayBuffers;
      // The same MiB, 32 times: the parser holding on to it would need a copy of each.
      for (let i = 0; i < 32; i++) yield mib;
      grown = process.memoryUsage().arrayBuffers - start;
    })();
    expect(await parseMultipart(body, "XyZ", () => ({ write: () => undefined, end: () => undefined }))).toBe(
      1,
    );
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  });

  it("multipartBoundary: only after `multipart/form-data` and a `;`, in any case, up to 70 characters", () => {
    expect(multipartBoundary("Multipart/Form-Data ; BOUNDARY=abc")).toBe("abc");
    expect(multipartBoundary("multipart/form-data;boundary=abc;charset=x")).toBe("abc");
    expect(multipartBoundary("multipart/form-data")).toBeUndefined();
    expect(multipartBoundary("multipart/form-data; boundary=")).toBeUndefined();
    expect(multipartBoundary("multipart/mixed; boundary=abc")).toBeUndefined();
    expect(multipartBoundary("text/plain; x=multipart/form-data; boundary=abc")).toBeUndefined();
    expect(multipartBoundary(`multipart/form-data; boundary="${"q".repeat(70)}"`)).toBe("q".repeat(70));
    // A longer one (RFC 2046 allows 70) is read only in part, so its body never parses.
    expect(multipartBoundary(`multipart/form-data; boundary=${"b".repeat(71)}`)).toBe("b".repeat(70));
    expect(multipartBoundary("")).toBeUndefined();
  });
});
