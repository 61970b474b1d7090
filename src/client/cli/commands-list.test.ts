import { describe, expect, it } from "vitest";
import { completionScript } from "./completion.js";
import { COMMANDS, SUBCOMMANDS } from "./commands-list.js";
import { helpText } from "./help.js";

const words = COMMANDS.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])]);

describe("COMMANDS", () => {
  it("COMMANDS: no two declarations share a word, help is nobody's, and every word but deploy is a subcommand", () => {
    expect(new Set(words).size).toBe(words.length);
    expect(words).not.toContain("help");
    expect([...SUBCOMMANDS].sort()).toEqual([...words.filter((word) => word !== "deploy"), "help"].sort());
  });

  it("COMMANDS: each word's help is its declaration's, and its usage lines are in the main help", () => {
    const main = helpText(undefined);
    for (const spec of COMMANDS) {
      for (const word of [spec.name, ...(spec.aliases ?? [])]) expect(helpText(word), word).toBe(spec.help);
      for (const [usage] of spec.usage) expect(main, spec.name).toContain(`  ${usage}`);
    }
  });

  it("COMMANDS: each completion script completes every word and every option of its command", () => {
    for (const shell of ["bash", "zsh", "fish"] as const) {
      const script = completionScript(shell, COMMANDS);
      for (const spec of COMMANDS) {
        for (const word of [spec.name, ...(spec.aliases ?? [])]) {
          if (word !== "deploy") expect(script, `${shell} ${word}`).toContain(word);
        }
        for (const flag of spec.flags) {
          expect(script, `${shell} ${spec.name} --${flag.name}`).toMatch(
            new RegExp(`(--| -l )${flag.name}\\b`),
          );
        }
      }
    }
  });
});
