import type { HabitCommand } from "./commands-list.js";

const OPEN = `Usage: deploy open [--preview] [--dir DIR] [--api-url URL] [--json]

Opens the project's production URL in the browser (the generated one while a custom domain is
pending), or with --preview the newest preview's revision URL. The opener is $BROWSER when set
(BROWSER=none opens nothing), else \`open\` on macOS, \`start\` on Windows, \`xdg-open\` elsewhere;
without one that works, the URL is printed. With --json nothing is opened:
{ projectSlug, url, preview, opened: false }.
`;

const COMPLETION = `Usage: deploy completion bash|zsh|fish

Prints a completion script for the shell: the commands, their options, folders for --dir.
  bash:  source <(deploy completion bash)          (in ~/.bashrc)
  zsh:   source <(deploy completion zsh)           (in ~/.zshrc, after compinit)
  fish:  deploy completion fish > ~/.config/fish/completions/deploy.fish
`;

const ACCOUNTS = `Usage: deploy login | deploy logout | deploy whoami

There are no accounts here. A project is its folder: the first \`deploy <dir>\` creates it, and
this machine keeps its token in the config folder. On another machine or in CI, set
DEPLOY_CREDENTIAL to what \`deploy credential --dir <dir>\` prints. These commands say so and exit
0; with --json: { accounts: false, message }.
`;

/** Help of the commands people bring from other tools. */
export const HABIT_TOPICS: Record<HabitCommand, string> = {
  open: OPEN,
  completion: COMPLETION,
  login: ACCOUNTS,
  logout: ACCOUNTS,
  whoami: ACCOUNTS,
};
