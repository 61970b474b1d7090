import { createServer } from "node:http";
import sirv from "sirv";

// The comparison's plain Node static server: sirv on node:http, production mode (the file list is
// read once at start), strong validators like the edge's, no precompressed variants.
const [root, port] = process.argv.slice(2);
if (root === undefined || port === undefined) {
  console.error("usage: sirv-server <root> <port>");
  process.exit(2);
}
const server = createServer(sirv(root, { dev: false, etag: true }));
server.listen(Number(port), "127.0.0.1", () => console.log(`sirv listening on http://127.0.0.1:${port}`));
