import { parentPort } from "node:worker_threads";
import { AssetHasher } from "../core/asset-hash.js";
import { decodeQuads } from "./base64-quads.js";
import type { FromHashThread, ToHashThread } from "./part-hash-messages.js";
import { PartContentError } from "./part-content-error.js";

// A hashing thread of the upload service: decodes and hashes the parts (lanes) it is given, each
// chunk in turn, and hands the decoded bytes back to be written to the pack.

interface Lane {
  hasher: AssetHasher;
  size: number;
  maxBytes: number;
}

const port = parentPort;
if (port !== null) {
  const lanes = new Map<number, Lane>();
  // Hashers of ended lanes, reused: a WebAssembly one is costly to make.
  const spare: AssetHasher[] = [];
  const reply = (message: FromHashThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const release = (id: number) => {
    const lane = lanes.get(id);
    lanes.delete(id);
    if (lane) spare.push(lane.hasher);
  };

  const handle = async (message: ToHashThread): Promise<void> => {
    if ("open" in message) {
      const hasher = spare.pop() ?? (await AssetHasher.create());
      lanes.set(message.lane, { hasher: hasher.reset(), size: 0, maxBytes: message.open.maxBytes });
      return;
    }
    if ("drop" in message) return release(message.lane);
    // A lane refused already: what was sent before the refusal came back is dropped.
    const lane = lanes.get(message.lane);
    if (lane === undefined) return;
    try {
      if ("quads" in message) {
        const { quads } = message;
        const text = Buffer.from(quads.buffer, quads.byteOffset, quads.byteLength);
        const bytes = owned(decodeQuads(text, lane.hasher, lane.size, lane.maxBytes));
        lane.size += bytes.length;
        reply({ lane: message.lane, bytes }, [bytes.buffer as ArrayBuffer]);
      } else {
        const hash = lane.hasher.finish(message.end);
        release(message.lane);
        reply({ lane: message.lane, hash });
      }
    } catch (error) {
      release(message.lane);
      const content = error instanceof PartContentError;
      reply({ lane: message.lane, error: error instanceof Error ? error.message : String(error), content });
    }
  };

  // One message at a time, in order: a lane's chunks must reach its hash as they were sent.
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (message: ToHashThread) => {
    queue = queue
      .then(() => handle(message))
      .catch((error: unknown) => {
        release(message.lane);
        reply({ lane: message.lane, error: String(error), content: false });
      });
  });
}

/** `bytes` in an ArrayBuffer of its own, which can be transferred (a small decode may share Node's pool). */
function owned(bytes: Buffer): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
