import { createServer, type Socket } from "node:net";
import { expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { hex64 } from "../support/deploy-flow.js";
import { capturingLogger } from "../support/log-lines.js";
import { startTestServer } from "../support/server.js";
import { expectStartingAnswer } from "../support/starting-answer.js";

/** A "database" on loopback that takes connections and never says a word: a start waits on it. */
async function silentDatabase(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

it("start: a POST /projects to the API while the process still opens its database is 503 SERVER_STARTING JSON with Retry-After: 1, logged", async () => {
  const database = await silentDatabase();
  const apiPort = await freePort();
  const { logger, lines } = capturingLogger();
  const starting = startTestServer({
    port: apiPort,
    databaseUrl: `postgres://postgres@127.0.0.1:${database.port}/test`,
    logger,
  });
  const failed = starting.then(
    (server) => server.stop().then(() => "started"),
    () => "failed",
  );
  try {
    // The API's port opens before the store answers: ask it as soon as it takes a connection.
    let response: Response | undefined;
    for (let attempt = 0; attempt < 500 && !response; attempt++) {
      response = await fetch(`http://127.0.0.1:${apiPort}/projects`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ projectHash: hex64("early-hash"), anonFingerprint: hex64("early-fp") }),
      }).catch(() => undefined);
      if (!response) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await expectStartingAnswer(response, lines);
  } finally {
    // The database goes away: the start fails and closes its listeners.
    await database.close();
    expect(await failed).toBe("failed");
  }
});
