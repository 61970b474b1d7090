/**
 * What the domain operations ask DNS (contract §8): the CNAME and TXT records of a name. A name
 * with no such record gives an empty list; a resolver that fails or times out throws (its message
 * says why), so "not there yet" and "could not look" are never confused.
 */
export interface DnsLookup {
  /** The names `hostname` is a CNAME for, lowercase, without a trailing dot. */
  cnames(hostname: string): Promise<string[]>;
  /** The TXT records at `hostname`, each one's strings joined. */
  txt(hostname: string): Promise<string[]>;
}
