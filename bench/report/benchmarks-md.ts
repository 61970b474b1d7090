import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as prettier from "prettier";

const BEGIN = "<!-- bench:results:begin (written by npm run bench; edit outside these markers) -->";
const END = "<!-- bench:results:end -->";

const SKELETON = `# Benchmarks

\`npm run bench\` measures the service against the machine and against the servers people would
use instead, in the same run, and rewrites the section between the markers below. Everything
outside the markers is written by hand.

${BEGIN}
${END}
`;

/**
 * Replaces the generated section of BENCHMARKS.md (creating the file if needed), keeps the rest,
 * and formats the whole with the project's Prettier settings so `npm run lint` stays clean.
 */
export async function writeBenchmarksMd(path: string, generated: string): Promise<void> {
  let text = existsSync(path) ? readFileSync(path, "utf8") : SKELETON;
  if (!text.includes(BEGIN) || !text.includes(END)) text = `${text.trimEnd()}\n\n${BEGIN}\n${END}\n`;
  const before = text.slice(0, text.indexOf(BEGIN) + BEGIN.length);
  const after = text.slice(text.indexOf(END));
  const config = (await prettier.resolveConfig(path)) ?? {};
  const formatted = await prettier.format(`${before}\n\n${generated.trim()}\n\n${after}`, {
    ...config,
    parser: "markdown",
  });
  writeFileSync(path, formatted);
}
