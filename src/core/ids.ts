import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

// prettier-ignore
const ADJECTIVES = [
  "amber", "azure", "bold", "brave", "bright", "calm", "clever", "coral", "cosmic", "crisp",
  "daring", "dusky", "eager", "early", "fancy", "fleet", "gentle", "glad", "golden", "grand",
  "happy", "hazel", "humble", "icy", "jolly", "keen", "kind", "lively", "lucky", "lunar",
  "merry", "mellow", "misty", "noble", "olive", "polar", "proud", "quick", "quiet", "rapid",
  "rosy", "royal", "rustic", "shiny", "silent", "silver", "snowy", "solar", "steady", "sunny",
  "swift", "tidy", "vivid", "warm", "wild", "witty", "young", "zesty",
];
// prettier-ignore
const NOUNS = [
  "anchor", "aspen", "badger", "beacon", "birch", "breeze", "brook", "canyon", "cedar", "comet",
  "coral", "crane", "dawn", "delta", "dune", "ember", "falcon", "fern", "field", "fjord",
  "forest", "fox", "glade", "grove", "harbor", "hawk", "heron", "island", "lagoon", "lark",
  "maple", "meadow", "mesa", "moon", "nebula", "oak", "orbit", "otter", "panda", "pebble",
  "pine", "planet", "prairie", "quartz", "raven", "reef", "river", "robin", "sparrow", "spruce",
  "star", "stone", "summit", "tide", "valley", "willow", "wolf", "zephyr",
];
const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A random string of `length` characters of `a-z0-9`. */
function randomAlphanumeric(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** A readable project slug: two words and a random suffix, e.g. `brave-otter-k3x9q`. */
export function generateProjectSlug(): string {
  const adjective = ADJECTIVES[randomInt(ADJECTIVES.length)]!;
  const noun = NOUNS[randomInt(NOUNS.length)]!;
  return `${adjective}-${noun}-${randomAlphanumeric(5)}`;
}

/** A revision id: 10 of `a-z0-9`. */
export function generateRevisionId(): string {
  return randomAlphanumeric(10);
}

/** An opaque, URL-safe id of 128 random bits. */
export function generateOpaqueId(): string {
  return randomBytes(16).toString("base64url");
}

const API_TOKEN_PREFIX = "sdp_";
/** An API token: a recognisable prefix and 256 random bits. */
export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** A 32-lowercase-hex account id, Cloudflare's form. */
export function generateAccountId(): string {
  return randomBytes(16).toString("hex");
}

/** Hex SHA-256 of a string, the only form in which tokens are kept. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time equality of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
