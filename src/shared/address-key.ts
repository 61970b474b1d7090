import { isIP } from "node:net";

/**
 * The key every per-address limit, budget share and quota counts a client by: an IPv4 address as
 * it is, an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address, any other IPv6
 * address as its /64 (`2001:db8:1:2::/64`), since one subscriber is given a whole /64 and could
 * otherwise count as 2^64 clients. Anything else (`unknown`, a proxy's odd header) is kept as it is.
 */
export function addressKey(address: string): string {
  // A zone (`fe80::1%eth0`) names the host's interface, not the client.
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  // The URL parser writes any valid IPv6 address in its short hex form, an IPv4 tail as two groups.
  const short = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = "", tail] = short.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
