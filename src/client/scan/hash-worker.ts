import { parentPort } from "node:worker_threads";
import { hashBatch, type HashBatch } from "./hash-batch.js";
import { FileHasher } from "./hash-file.js";

// A hashing thread: answers each batch (hash-batch.ts) in turn, with one hasher for all.
const port = parentPort;
if (port !== null) {
  const hasher = FileHasher.create();
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (batch: HashBatch) => {
    queue = queue.then(async () => {
      const reply = await hashBatch(await hasher, batch);
      // The kept texts' buffer moves to the main thread, not copied.
      port.postMessage(reply, reply.kept === undefined ? [] : [reply.kept.text]);
    });
  });
}
