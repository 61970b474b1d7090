import type { DnsLookup } from "../ports/dns.js";
import type { TxtRecord } from "../errors.js";
import { sha256Hex } from "../ids.js";

/** A DNS record the owner of a hostname creates to point it here or to prove control of it. */
export interface DnsRecord {
  type: "CNAME" | "TXT";
  name: string;
  value: string;
}

/** What DNS showed of a hostname: a CNAME to the target, this project's TXT record, and in words. */
export interface DnsProof {
  cname: boolean;
  txt: boolean;
  message: string;
}

// A CNAME may point at another CNAME that points here; a longer chain is not followed.
const MAX_CNAME_HOPS = 4;

/**
 * The TXT record that proves `projectSlug` controls `hostname`: `_deploy-challenge.<hostname>`
 * holding a value derived from both. Slugs are never reissued, so the value is this project's
 * alone; it is no secret, since only whoever controls the zone can publish it.
 */
export function challengeRecord(projectSlug: string, hostname: string): TxtRecord {
  const digest = sha256Hex(`deploy-challenge\n${projectSlug}\n${hostname}`).slice(0, 32);
  return { type: "TXT", name: `_deploy-challenge.${hostname}`, value: `deploy-challenge=${digest}` };
}

/** The records the owner of an external hostname creates: the CNAME that routes it, or the TXT proof. */
export function recordsFor(projectSlug: string, hostname: string, cnameTarget: string): DnsRecord[] {
  return [{ type: "CNAME", name: hostname, value: cnameTarget }, challengeRecord(projectSlug, hostname)];
}

/**
 * Asks DNS whether `hostname` is a CNAME for `cnameTarget` (directly or through a short chain) and
 * whether it carries this project's TXT record. Never throws: a resolver that fails or times out
 * is reported in `message`, and the name stays unproven until a later check.
 */
export async function lookForProof(
  dns: DnsLookup,
  projectSlug: string,
  hostname: string,
  cnameTarget: string,
): Promise<DnsProof> {
  const challenge = challengeRecord(projectSlug, hostname);
  const [cname, txt] = await Promise.allSettled([
    pointsAt(dns, hostname, cnameTarget),
    dns.txt(challenge.name).then((values) => values.includes(challenge.value)),
  ]);
  const hasCname = cname.status === "fulfilled" && cname.value;
  const hasTxt = txt.status === "fulfilled" && txt.value;
  if (hasTxt) return { cname: hasCname, txt: true, message: `DNS shows the TXT record ${challenge.name}` };
  if (hasCname)
    return { cname: true, txt: false, message: `DNS shows ${hostname} as a CNAME for ${cnameTarget}` };
  const failure = [cname, txt].find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure) {
    const reason = failure.reason instanceof Error ? failure.reason.message : String(failure.reason);
    return { cname: false, txt: false, message: `${reason}; the check runs again later` };
  }
  return {
    cname: false,
    txt: false,
    message: `DNS shows neither a CNAME for ${hostname} to ${cnameTarget} nor the TXT record ${challenge.name} yet`,
  };
}

async function pointsAt(dns: DnsLookup, hostname: string, target: string): Promise<boolean> {
  let names = [hostname];
  for (let hop = 0; hop < MAX_CNAME_HOPS && names.length > 0; hop++) {
    const next = (await Promise.all(names.map((name) => dns.cnames(name)))).flat();
    if (next.includes(target)) return true;
    names = next;
  }
  return false;
}
