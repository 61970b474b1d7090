#!/usr/bin/env node
// Prints the Workers-assets hash of a file (contract §2): the first 32 hex characters of
// BLAKE3(base64(bytes) + extension without the dot). Usage: node scripts/asset-hash.mjs FILE
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { blake3 } from "hash-wasm";

const file = process.argv[2];
if (!file) {
  console.error("usage: node scripts/asset-hash.mjs FILE");
  process.exit(2);
}
const text = readFileSync(file).toString("base64") + extname(file).slice(1);
console.log((await blake3(text)).slice(0, 32));
