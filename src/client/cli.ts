import { processIo } from "./io.js";
import { runCli } from "./cli/run.js";

// The `deploy` executable's entry point: run, then leave the exit status to Node.
process.on("SIGINT", () => {
  process.stderr.write("\nInterrupted.\n");
  process.exit(130);
});
process.exitCode = await runCli(process.argv.slice(2), processIo());
