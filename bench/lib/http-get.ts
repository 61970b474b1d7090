import { request } from "node:http";

/** A response read whole: status, headers, the raw header block's size and the body. */
export interface GetReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  headerBytes: number;
  body: Buffer;
}

/** GETs `path` from `baseUrl` with an explicit Host header, as wrk will send it (no Accept-Encoding). */
export function httpGet(baseUrl: string, host: string, path: string): Promise<GetReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, headers: { host }, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const headerBytes =
            `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length +
            // Each header line is `name: value\r\n`: two bytes after the name, two after the value.
            res.rawHeaders.reduce((sum, item) => sum + item.length + 2, 0) +
            2;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            headerBytes,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}
