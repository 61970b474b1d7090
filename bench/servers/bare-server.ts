import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join } from "node:path";

// The ceiling of a Node server on this machine: node:http answering the site's files from memory
// with the headers a static server sends (type, length, strong ETag, cache control), nothing else.
const [root, port] = process.argv.slice(2);
if (root === undefined || port === undefined) {
  console.error("usage: bare-server <root> <port>");
  process.exit(2);
}
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".jpg": "image/jpeg",
};
const files = new Map(
  readdirSync(root).map((name) => {
    const body = readFileSync(join(root, name));
    const headers = {
      "content-type": TYPES[extname(name)] ?? "application/octet-stream",
      "content-length": body.length,
      etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`,
      "cache-control": "public, max-age=0, must-revalidate",
    };
    return [`/${name}` as string, { body, headers }] as const;
  }),
);
// A folder's page answers at the folder, as the other servers do.
const index = files.get("/index.html");
if (index) files.set("/", index);
const server = createServer((req, res) => {
  const file = files.get(req.url ?? "");
  if (!file) {
    res.writeHead(404, { "content-length": 0 }).end();
    return;
  }
  res.writeHead(200, file.headers).end(file.body);
});
server.listen(Number(port), "127.0.0.1", () =>
  console.log(`bare node listening on http://127.0.0.1:${port}`),
);
