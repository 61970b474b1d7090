import { jsonLine } from "./output.js";

const HOW =
  "A project is its folder: the first `deploy <dir>` creates it, and this machine keeps its token " +
  "in the config folder (DEPLOY_CONFIG_DIR). On another machine or in CI, set DEPLOY_CREDENTIAL to " +
  "what `deploy credential --dir <dir>` prints; `deploy status --dir <dir>` shows a folder's project.";

const FIRST: Record<"login" | "logout" | "whoami", string> = {
  login: "There are no accounts here, so there is nothing to log in to.",
  logout: "There are no accounts here, so there is nothing to log out of.",
  whoami: "There are no accounts here: nobody is logged in, and nobody needs to be.",
};

/**
 * `deploy login`, `logout` and `whoami` (habits from netlify-cli, vercel, wrangler and surge): a
 * clear answer that there are no accounts, and what identifies a project instead.
 */
export function accountsAnswer(kind: "login" | "logout" | "whoami", json: boolean): string {
  const message = `${FIRST[kind]} ${HOW}`;
  return json ? jsonLine({ accounts: false, message }) : `${FIRST[kind]}\n${wrap(HOW)}\n`;
}

/** Wraps text at 96 columns, as the help does. */
function wrap(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > 96) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join("\n");
}
