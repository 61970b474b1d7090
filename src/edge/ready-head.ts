import {
  IncomingMessage,
  type OutgoingHttpHeaders,
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from "node:http";
import { Socket } from "node:net";

/**
 * A response head written for many requests (a hot file's), checked once when it is made.
 * `res.writeHead(status, fields)` checks every name and value against the token and field-value
 * grammars with a regular expression on every response: about a tenth of the edge's CPU on a
 * remembered 2 KB page, for fields that never change. Node skips those checks for fields that
 * `setHeader` stored (it checked them as they were set); a ready head hands Node such a store,
 * made and checked once, frozen so that nothing can change it for the next response.
 */
export interface ReadyHead {
  /** The fields, names in lowercase, as given. */
  readonly fields: OutgoingHttpHeaders;
  /**
   * Node's store of the same fields (lowercase name → [name, value], runs of fields joined: see
   * `readyHead`), or undefined (see `STORE`).
   */
  readonly store: object | undefined;
}

type WithStore = Record<symbol, unknown>;

/**
 * The key of the header store Node keeps on each response, which `setHeader` fills and
 * `writeHead` reads (Node 20's `kOutHeaders`, null until a field is set). It is not public: it is
 * looked up once on a response made for the purpose, and when this Node has no such key the ready
 * heads are written as plain fields, checked each time as before.
 */
const STORE: symbol | undefined = (() => {
  const probe = new ServerResponse(new IncomingMessage(new Socket()));
  const key = Object.getOwnPropertySymbols(probe).find((symbol) => symbol.description === "kOutHeaders");
  if (key === undefined || (probe as unknown as WithStore)[key] !== null) return undefined;
  // Only a key that `setHeader` fills as expected, [name, value] under the lowercase name.
  probe.setHeader("X-Probe", "1");
  const stored = (probe as unknown as WithStore)[key] as Record<string, unknown> | null;
  const entry = stored?.["x-probe"];
  return Array.isArray(entry) && entry[0] === "X-Probe" && entry[1] === "1" ? key : undefined;
})();

/**
 * Names Node's `writeHead` reads a meaning from (framing, keep-alive, Date; Content-Disposition it
 * re-encodes), which must reach it as fields of their own; any other field is only text to it.
 */
const READ_BY_NODE = new Set([
  "connection",
  "content-length",
  "transfer-encoding",
  "date",
  "expect",
  "trailer",
  "keep-alive",
  "content-disposition",
]);

/**
 * Checks the fields once (throwing as `writeHead` would) and makes Node's store of them. Node
 * writes each stored field as `name + ": " + value + "\r\n"`, lowercases its name to look for the
 * ones it reads, and the head it builds is a string of some forty pieces that V8 then flattens:
 * a run of fields Node has no use for is stored as one field, its first name with the rest of the
 * run's lines already joined after its value (checked here, field by field), so the same bytes go
 * out for a fraction of the work. Fields Node reads and lists of values keep their own entries,
 * in their place.
 */
export function readyHead(fields: OutgoingHttpHeaders): ReadyHead {
  const store: Record<string, readonly [string, unknown]> = {};
  let storable = STORE !== undefined;
  let run: { key: string; name: string; lines: string[] } | undefined;
  const endRun = (): void => {
    if (run !== undefined) store[run.key] = Object.freeze([run.name, run.lines.join("\r\n")] as const);
    run = undefined;
  };
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    validateHeaderName(name);
    for (const one of Array.isArray(value) ? value : [value]) validateHeaderValue(name, String(one));
    const key = name.toLowerCase();
    // A field a site's `_headers` names `__proto__` would set the prototype here: written plainly.
    if (key === "__proto__") storable = false;
    else if (Array.isArray(value) || READ_BY_NODE.has(key)) {
      endRun();
      store[key] = Object.freeze([name, value] as const);
    } else if (run === undefined) run = { key, name, lines: [String(value)] };
    else run.lines.push(`${name}: ${String(value)}`);
  }
  endRun();
  // No prototype, as Node's own store (a field named like an Object method is only a field), set
  // after the fields: V8 keeps such an object's fast layout, which Node's for-in over it needs to
  // stay cheap (an object made without a prototype is a dictionary, enumerated key by key).
  Object.setPrototypeOf(store, null);
  return { fields, store: storable ? Object.freeze(store) : undefined };
}

/**
 * `res.writeHead(status, head.fields)` without checking the fields again, when nothing was set on
 * the response before (a field set earlier, such as the canonical Link, makes it the plain call).
 */
export function writeReadyHead(res: ServerResponse, status: number, head: ReadyHead): void {
  const response = res as unknown as WithStore;
  if (STORE !== undefined && head.store !== undefined && response[STORE] === null) {
    response[STORE] = head.store;
    res.writeHead(status);
  } else {
    res.writeHead(status, head.fields);
  }
}
