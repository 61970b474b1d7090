// The client as a library: the `deploy` command run in-process, on the streams and environment given.
export { runCli } from "./cli/run.js";
export type { CliIo, OutputStream } from "./io.js";
