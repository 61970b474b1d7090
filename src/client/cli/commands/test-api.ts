import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { runCli } from "../run.js";
import type { CliIo } from "../../io.js";

// A scripted stand-in for the deploy API, for the commands' unit tests (not built: `test-*.ts`).
// Each test says what each route answers; the stand-in records what it was sent.

/** One request as the stand-in received it, its body parsed when it was JSON. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** One scripted answer. */
export interface ScriptedAnswer {
  status: number;
  body: unknown;
}

/** Answers a request; `undefined` lets the next handler (or the 404) answer. */
export type RouteHandler = (request: ReceivedRequest) => ScriptedAnswer | undefined;

/** A stand-in API on 127.0.0.1 with its routes keyed by `METHOD /path`. */
export interface TestApi {
  url: string;
  received: ReceivedRequest[];
  /** Sets what `METHOD /path` answers (a fixed answer, or a function of the request). */
  on(route: string, answer: ScriptedAnswer | RouteHandler): void;
  /** Forgets every route and every received request. */
  reset(): void;
  close(): Promise<void>;
}

/** An API error body as the real API writes it. */
export function apiError(status: number, code: string, message = code): ScriptedAnswer {
  return { status, body: { error: { code, message } } };
}

/**
 * The stand-in for one test file: listening before its tests, closed after them, and reset (no
 * route, nothing received) before each one. Unknown routes answer 404 NOT_FOUND.
 */
export function useTestApi(): TestApi {
  const api = testApi();
  beforeAll(() => api.listen());
  afterAll(() => api.close());
  beforeEach(() => api.reset());
  return api;
}

/** The stand-in, listening, for a kit that manages its own life (deploy/test-deploy-kit.ts). */
export async function startTestApi(): Promise<TestApi> {
  const api = testApi();
  await api.listen();
  return api;
}

/** The stand-in, not yet listening (`url` is known once `listen` has resolved). */
function testApi(): TestApi & { listen(): Promise<void> } {
  const routes = new Map<string, RouteHandler>();
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: kept as text.
      }
      const request = { method: req.method ?? "", path, headers: req.headers, body };
      received.push(request);
      const answer = routes.get(`${request.method} ${path}`)?.(request) ?? apiError(404, "NOT_FOUND");
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
  });
  return {
    get url() {
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    listen: () => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)),
    received,
    on(route, answer) {
      routes.set(route, typeof answer === "function" ? answer : () => answer);
    },
    reset() {
      routes.clear();
      received.length = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What one in-process run of the CLI printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process in `cwd` with `env` (no terminal unless `io` says so). */
export async function runCliIn(
  cwd: string,
  argv: string[],
  env: Record<string, string>,
  io: Partial<Pick<CliIo, "stdin">> & { isTTY?: boolean } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const isTTY = io.isTTY ?? false;
  const code = await runCli(argv, {
    stdout: { write: (text: string) => void (stdout += text), isTTY },
    stderr: { write: (text: string) => void (stderr += text), isTTY },
    ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
    env: { DEPLOY_MAX_ATTEMPTS: "1", NO_COLOR: "1", ...env },
    cwd,
  });
  return { code, stdout, stderr };
}
