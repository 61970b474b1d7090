import { UsageError } from "../../errors.js";
import { defineCommand } from "../command.js";
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from "../completion.js";
import { tooMany } from "../usage-errors.js";

/** `deploy completion bash|zsh|fish`: a completion script, generated from the declared commands. */
export const completionSpec = defineCommand({
  name: "completion",
  flags: [],
  usage: [["deploy completion bash|zsh|fish", "Print a shell completion script"]],
  help: `Usage: deploy completion bash|zsh|fish

Prints a completion script for the shell: the commands, their options, folders for --dir.
  bash:  source <(deploy completion bash)          (in ~/.bashrc)
  zsh:   source <(deploy completion zsh)           (in ~/.zshrc, after compinit)
  fish:  deploy completion fish > ~/.config/fish/completions/deploy.fish
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 1, name, "completion takes one shell");
    const shell = positionals[0];
    if (!COMPLETION_SHELLS.includes(shell as CompletionShell)) {
      throw new UsageError(
        shell === undefined ? "missing shell" : `unknown shell "${shell}"`,
        `Usage: deploy completion ${COMPLETION_SHELLS.join("|")}`,
      );
    }
    return { kind: name, shell: shell as CompletionShell, common };
  },
  run: (args, io, commands) => {
    io.stdout.write(completionScript(args.shell, commands));
    return Promise.resolve();
  },
});
