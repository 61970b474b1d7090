import { parentPort } from "node:worker_threads";
import { AssetHasher } from "../core/asset-hash.js";
import type { FromHashThread, ToHashThread } from "./part-hash-messages.js";

// A hashing thread of the upload service: hashes the parts (lanes) it is given, from their
// decoded bytes, as the asset hash takes them (the canonical base64 of the bytes, then the
// extension), and answers each part's hash at its end.

/** Hashed bytes the thread acknowledges at least every this many (as well as with each hash). */
const ACK_BYTES = 1024 * 1024;

const port = parentPort;
if (port !== null) {
  const lanes = new Map<number, AssetHasher>();
  // Hashers of ended lanes, reused: a WebAssembly one is costly to make.
  const spare: AssetHasher[] = [];
  let unacked = 0;
  const acked = () => {
    const bytes = unacked;
    unacked = 0;
    return bytes;
  };
  const release = (id: number) => {
    const hasher = lanes.get(id);
    lanes.delete(id);
    if (hasher) spare.push(hasher);
  };

  const handle = async (message: ToHashThread): Promise<void> => {
    if ("drop" in message) return release(message.lane);
    let hasher = lanes.get(message.lane);
    if (hasher === undefined) {
      hasher = (spare.pop() ?? (await AssetHasher.create())).reset();
      lanes.set(message.lane, hasher);
    }
    for (const bytes of message.bytes) {
      hasher.updateBase64(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"));
      unacked += bytes.byteLength;
    }
    if (message.end !== undefined) {
      const hash = hasher.finish(message.end);
      release(message.lane);
      port.postMessage({ lane: message.lane, hash, acked: acked() } satisfies FromHashThread);
    } else if (unacked >= ACK_BYTES) {
      port.postMessage({ acked: acked() } satisfies FromHashThread);
    }
  };

  // One message at a time, in order: a lane's chunks must reach its hash as they were sent.
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (message: ToHashThread) => {
    queue = queue
      .then(() => handle(message))
      .catch((error: unknown) => {
        release(message.lane);
        port.postMessage({
          lane: message.lane,
          error: String(error),
          acked: acked(),
        } satisfies FromHashThread);
      });
  });
}
