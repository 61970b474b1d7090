import { thenNow } from "../shared/maybe-promise.js";

/** Why a multipart body was refused. */
export class MultipartError extends Error {}

/**
 * Receives one part's body, chunk by chunk; a promise `write` returns is awaited before the next
 * chunk (backpressure). Nothing returned is not awaited: an await costs a microtask turn, and a
 * 50,000-file deploy's parts made several each.
 */
export interface PartSink {
  write(chunk: Buffer): Promise<void> | void;
  end(): Promise<void> | void;
}

/** A part's headers, names lowercased, and its Content-Disposition parameters. */
export interface PartHeaders {
  headers: Record<string, string>;
  name: string | undefined;
  filename: string | undefined;
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PADDING_BYTES = 1024;
const CRLF2 = Buffer.from("\r\n\r\n");

/** The boundary of a `multipart/form-data` Content-Type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * Streams a multipart body (RFC 7578) part by part to the sinks `onPart` returns, keeping at most
 * one chunk plus a boundary's length in memory. It parses headers exactly as sent, so a part with
 * no Content-Type can be told from one that says `text/plain`.
 */
export async function parseMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  onPart: (part: PartHeaders) => PartSink | Promise<PartSink>,
): Promise<number> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // A leading CRLF lets the first boundary match the same delimiter as the others.
  let buffer: Buffer = Buffer.from("\r\n");
  // Widened on purpose: `step` changes it, which narrowing cannot see.
  let state = "preamble" as "preamble" | "after-delimiter" | "headers" | "body" | "done";
  let sink: PartSink | undefined;
  let parts = 0;

  const opened = (opening: PartSink): boolean => {
    sink = opening;
    parts++;
    state = "body";
    return true;
  };

  // A promise only when a sink returned one: most steps of small parts need no microtask turn.
  const step = (): boolean | Promise<boolean> => {
    switch (state) {
      case "preamble": {
        const at = buffer.indexOf(delimiter);
        if (at === -1) {
          buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length));
          return false;
        }
        buffer = buffer.subarray(at + delimiter.length);
        state = "after-delimiter";
        return true;
      }
      case "after-delimiter": {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          state = "done";
          return false;
        }
        const eol = buffer.indexOf("\r\n");
        // Transport padding (spaces, tabs) may follow a delimiter before its CRLF; anything else,
        // or padding without end, is refused at once rather than buffered.
        // Without a CRLF yet, a last "\r" may be the first half of one.
        const line = buffer
          .subarray(0, eol === -1 ? buffer.length : eol)
          .toString("latin1")
          .replace(/\r$/, "");
        if (!/^[ \t]*$/.test(line) || line.length > MAX_PADDING_BYTES) {
          throw new MultipartError("malformed multipart boundary line");
        }
        if (eol === -1) return false;
        buffer = buffer.subarray(eol + 2);
        state = "headers";
        return true;
      }
      case "headers": {
        const end = buffer.indexOf(CRLF2);
        // The limit holds however the headers arrive: in many chunks or in one.
        if ((end === -1 ? buffer.length : end) > MAX_HEADER_BYTES) {
          throw new MultipartError("multipart part headers too large");
        }
        if (end === -1) return false;
        const part = parseHeaders(buffer.subarray(0, end).toString("utf8"));
        buffer = buffer.subarray(end + 4);
        return thenNow(onPart(part), opened);
      }
      case "body": {
        const at = buffer.indexOf(delimiter);
        if (at === -1) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = delimiter.length - 1;
          if (buffer.length <= keep) return false;
          const body = buffer.subarray(0, buffer.length - keep);
          buffer = buffer.subarray(buffer.length - keep);
          return thenNow(sink!.write(body), () => false);
        }
        const part = sink!;
        const body = buffer.subarray(0, at);
        sink = undefined;
        buffer = buffer.subarray(at + delimiter.length);
        state = "after-delimiter";
        const written = at > 0 ? part.write(body) : undefined;
        return thenNow(written, () => thenNow(part.end(), () => true));
      }
      case "done":
        return false;
    }
  };

  for await (const chunk of body) {
    if (state === "done") continue;
    // A view, not a copy: each chunk is read once, and only what a sink keeps is copied.
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (state === "body" && buffer.length > 0 && bytes.length >= delimiter.length) {
      // The tail kept from the last chunk (shorter than a delimiter) is body unless a delimiter
      // starts in it: looked for in it and the start of this chunk, so that the chunk (64 KiB) is
      // not copied behind it; 267 MB of copies in a 10,000-file deploy kept V8 collecting.
      const seam = Buffer.concat([buffer, bytes.subarray(0, delimiter.length - 1)]).indexOf(delimiter);
      if (seam === -1 || seam >= buffer.length) {
        const written = sink!.write(buffer);
        if (written) await written;
        buffer = bytes;
      } else {
        buffer = Buffer.concat([buffer, bytes]);
      }
    } else {
      buffer = buffer.length === 0 ? bytes : Buffer.concat([buffer, bytes]);
    }
    for (;;) {
      const more = step();
      if (more === false || (more !== true && !(await more))) break;
    }
  }
  if (state !== "done") throw new MultipartError("multipart body is truncated");
  return parts;
}

function parseHeaders(text: string): PartHeaders {
  const headers: Record<string, string> = {};
  // Line by line in place, not split into an array first: a part's headers are parsed per part.
  for (let start = 0; start <= text.length;) {
    const eol = text.indexOf("\r\n", start);
    const end = eol === -1 ? text.length : eol;
    const colon = text.indexOf(":", start);
    if (colon <= start || colon >= end) throw new MultipartError("malformed multipart part header");
    headers[text.slice(start, colon).trim().toLowerCase()] = text.slice(colon + 1, end).trim();
    start = end + 2;
  }
  const disposition = headers["content-disposition"];
  if (!disposition || !/^form-data\b/i.test(disposition)) {
    throw new MultipartError("multipart part without Content-Disposition: form-data");
  }
  return {
    headers,
    name: dispositionParam(disposition, "name"),
    filename: dispositionParam(disposition, "filename"),
  };
}

/** A Content-Disposition parameter's pattern, made once per name (a part looks up two). */
const paramPatterns = {
  name: dispositionPattern("name"),
  filename: dispositionPattern("filename"),
};

function dispositionPattern(key: string): RegExp {
  return new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, "i");
}

function dispositionParam(disposition: string, key: keyof typeof paramPatterns): string | undefined {
  const match = paramPatterns[key].exec(disposition);
  if (!match) return undefined;
  const quoted = match[1];
  if (quoted === undefined) return match[2];
  return quoted.includes("\\") ? quoted.replace(/\\(.)/g, "$1") : quoted;
}
