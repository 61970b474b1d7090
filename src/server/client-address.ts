import type { Context } from "hono";
import { addressKey } from "../shared/address-key.js";

/** The address a request came from: the peer's, or with `trustProxy` the one our proxy appended. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    // The last entry is the one our own proxy appended; earlier ones are whatever the client sent.
    const forwarded = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

/**
 * The key every per-address limit, body budget share and quota counts the request's client by:
 * its IPv4 address or its IPv6 /64 (shared/address-key.ts). Logs may keep the full address.
 */
export function clientKey(c: Context, trustProxy: boolean): string {
  return addressKey(clientAddress(c, trustProxy));
}
