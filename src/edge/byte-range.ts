/**
 * Single byte ranges (RFC 9110 §14). Only one range is honoured: a multi-range request is answered
 * with the whole representation, which the RFC allows and which every client handles.
 */

/** What a Range header asks of a representation of `size` bytes. */
export type RangeRequest =
  { kind: "whole" } | { kind: "range"; start: number; end: number } | { kind: "unsatisfiable" };

const WHOLE: RangeRequest = { kind: "whole" };
const UNSATISFIABLE: RangeRequest = { kind: "unsatisfiable" };
const SINGLE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

/**
 * Parses a Range header against a size. A missing, malformed or multi-range header means the
 * whole representation (a server must ignore a Range it does not understand); `end` is inclusive.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return WHOLE;
  const match = SINGLE.exec(header);
  if (!match) return WHOLE;
  const [, first = "", last = ""] = match;
  if (first === "") {
    // Suffix range: the last n bytes; asking for none of them cannot be satisfied.
    if (last === "") return WHOLE;
    const length = Number(last);
    if (length === 0 || size === 0) return UNSATISFIABLE;
    return { kind: "range", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  // A last position before the first makes the header invalid, which means ignoring it.
  if (last !== "" && Number(last) < start) return WHOLE;
  if (start >= size) return UNSATISFIABLE;
  return { kind: "range", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}

/** The Content-Range of a satisfied range. */
export function contentRange(start: number, end: number, size: number): string {
  return `bytes ${start}-${end}/${size}`;
}

/** The Content-Range of a 416: the current size, so the client can ask again. */
export function unsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}
