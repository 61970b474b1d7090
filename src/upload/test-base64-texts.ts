// The upload's base64 decoders' shared test (test-*.ts files are not built): seeded texts, some
// canonical base64 and some altered, fed to a decoder and judged against the slow way.
import { expect } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { PartContentError } from "./part-content-error.js";

/**
 * Feeds `rounds` texts to `hashOf`, each cut in two chunks, and expects of each what `reference`
 * decides: its hash, or "refused" where `hashOf` throws a `PartContentError`. The texts are the
 * base64 of 0 to 11 random bytes, two in three with one or two characters changed, the same for
 * a `seed` each run. Resolves with how many were refused.
 */
export async function expectAsReference(
  seed: number,
  rounds: number,
  hashOf: (chunks: string[]) => Promise<string>,
): Promise<number> {
  // A small seeded generator: the same texts each run.
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const odd = ["-", "_", "=", " ", "*", "\n", "\u00e9", "A", "/", "+"];
  let refused = 0;
  for (let round = 0; round < rounds; round++) {
    const bytes = Buffer.from(Array.from({ length: random(12) }, () => random(256)));
    const chars = bytes.toString("base64").split("");
    // Two texts in three get one or two characters changed; the rest stay canonical.
    for (let change = random(3); change > 0 && chars.length > 0; change--) {
      chars[random(chars.length)] = odd[random(odd.length)]!;
    }
    const text = chars.join("");
    const cut = random(text.length + 1);
    const expected = await reference(text);
    const got = await hashOf([text.slice(0, cut), text.slice(cut)]).catch((error: unknown) =>
      error instanceof PartContentError ? "refused" : error,
    );
    expect(got, JSON.stringify(text)).toBe(expected);
    if (got === "refused") refused++;
  }
  return refused;
}

/**
 * What a decoder must decide, written the slow way: text with a character outside the alphabet,
 * padding before its end or a length not a multiple of four is refused; any other is hashed as
 * the canonical base64 of what it decodes to.
 */
async function reference(text: string): Promise<string> {
  if (/[^A-Za-z0-9+/=]/.test(text) || text.length % 4 !== 0) return "refused";
  const pad = text.indexOf("=");
  if (pad !== -1 && (pad < text.length - 2 || !/^=+$/.test(text.slice(pad)))) return "refused";
  return hashAsset(Buffer.from(text, "base64"), "/a.txt");
}
