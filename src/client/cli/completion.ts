import { COMMON_FLAGS, type CommandSpec, type FlagSpec } from "./command.js";

/*
 * Shell completion scripts, generated from the command declarations it is given (the list of
 * commands-list.ts), so a command or option declared there is completed without touching this file.
 */

/** The shells `deploy completion` writes a script for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** What a script is written from: each word typed after `deploy`, with its own options. */
interface Words {
  /** The words that run a command (not the default one, not help), in the list's order. */
  commands: string[];
  flagsOf: (word: string) => readonly FlagSpec[];
}

function wordsOf(specs: readonly CommandSpec[]): Words {
  const byWord = new Map(specs.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])].map((w) => [w, spec])));
  return {
    commands: [...byWord.keys()].filter((word) => word !== "deploy"),
    flagsOf: (word) => byWord.get(word)?.flags ?? [],
  };
}

/** Every spelling of a command's options, `--name` and `-a`. */
function optionWords(words: Words, command: string): string[] {
  const specs = [...COMMON_FLAGS, ...words.flagsOf(command)];
  return specs.flatMap((spec) => [`--${spec.name}`, ...(spec.alias === undefined ? [] : [`-${spec.alias}`])]);
}

/** Options that take a value, but not a folder (nothing to complete after them). */
function valueOptions(words: Words): string[] {
  const specs = [...COMMON_FLAGS, ...["deploy", ...words.commands].flatMap(words.flagsOf)];
  const spelled = specs
    .filter((spec) => spec.takesValue && spec.name !== "dir")
    .flatMap((spec) => [`--${spec.name}`, ...(spec.alias === undefined ? [] : [`-${spec.alias}`])]);
  return [...new Set(spelled)];
}

/** The script that completes `deploy` in `shell`. */
export function completionScript(shell: CompletionShell, commands: readonly CommandSpec[]): string {
  const words = wordsOf(commands);
  switch (shell) {
    case "bash":
      return bashScript(words);
    case "zsh":
      return zshScript(words);
    case "fish":
      return fishScript(words);
  }
}

function bashScript(words: Words): string {
  const COMMANDS = words.commands;
  const cases = COMMANDS.map((name) => `    ${name}) opts="${optionWords(words, name).join(" ")}" ;;`).join(
    "\n",
  );
  return `# bash completion for deploy (\`deploy completion bash\`)
_deploy() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i opts
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${[...COMMANDS, "help"].join("|")}) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "$prev" in
    --dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    ${valueOptions(words).join("|")}) COMPREPLY=(); return ;;
  esac
  case "$cmd" in
${cases}
    help) COMPREPLY=($(compgen -W "deploy ${COMMANDS.join(" ")}" -- "$cur")); return ;;
    *) opts="${optionWords(words, "deploy").join(" ")}" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ "$cmd" == completion ]]; then
    COMPREPLY=($(compgen -W "${COMPLETION_SHELLS.join(" ")}" -- "$cur"))
  elif [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W "${[...COMMANDS, "help"].join(" ")}" -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -F _deploy deploy
`;
}

function zshScript(words: Words): string {
  const COMMANDS = words.commands;
  const cases = COMMANDS.map((name) => `    (${name}) opts=(${optionWords(words, name).join(" ")}) ;;`).join(
    "\n",
  );
  return `#compdef deploy
# zsh completion for deploy (\`deploy completion zsh\`)
_deploy() {
  local cmd="" i
  local -a opts
  for (( i = 2; i < CURRENT; i++ )); do
    case \${words[i]} in
      (${[...COMMANDS, "help"].join("|")}) cmd=\${words[i]}; break ;;
    esac
  done
  case \${words[CURRENT-1]} in
    (--dir) _files -/; return ;;
    (${valueOptions(words).join("|")}) return ;;
  esac
  case $cmd in
${cases}
    (help) compadd -- deploy ${COMMANDS.join(" ")}; return ;;
    (*) opts=(${optionWords(words, "deploy").join(" ")}) ;;
  esac
  if [[ \${words[CURRENT]} == -* ]]; then
    compadd -- $opts
  elif [[ $cmd == completion ]]; then
    compadd -- ${COMPLETION_SHELLS.join(" ")}
  elif [[ -z $cmd ]]; then
    compadd -- ${[...COMMANDS, "help"].join(" ")}
    _files -/
  fi
}
if [[ $funcstack[1] == _deploy ]]; then
  _deploy "$@"
else
  compdef _deploy deploy
fi
`;
}

function fishScript(words: Words): string {
  const COMMANDS = words.commands;
  const all = [...COMMANDS, "help"].join(" ");
  const lines = [
    "# fish completion for deploy (`deploy completion fish`)",
    "complete -c deploy -f",
    `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -a "${all}"`,
    `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -a "(__fish_complete_directories)"`,
    `complete -c deploy -n "__fish_seen_subcommand_from help" -a "deploy ${COMMANDS.join(" ")}"`,
    `complete -c deploy -n "__fish_seen_subcommand_from completion" -a "${COMPLETION_SHELLS.join(" ")}"`,
  ];
  const fishFlag = (spec: FlagSpec, condition: string) => {
    const short = spec.alias === undefined ? "" : ` -s ${spec.alias}`;
    const value =
      spec.name === "dir" ? " -r -a '(__fish_complete_directories)'" : spec.takesValue ? " -r" : "";
    return `complete -c deploy${condition} -l ${spec.name}${short}${value}`;
  };
  for (const spec of COMMON_FLAGS) lines.push(fishFlag(spec, ""));
  for (const spec of words.flagsOf("deploy")) {
    lines.push(fishFlag(spec, ` -n "not __fish_seen_subcommand_from ${all}"`));
  }
  for (const name of COMMANDS) {
    for (const spec of words.flagsOf(name)) {
      lines.push(fishFlag(spec, ` -n "__fish_seen_subcommand_from ${name}"`));
    }
  }
  return `${lines.join("\n")}\n`;
}
