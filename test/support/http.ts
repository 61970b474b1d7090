import { request } from "node:http";

/** A JSON response as the tests see it. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends a JSON request (or a raw body) and parses the JSON answer. */
export async function api<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A response from the edge: status, headers and body bytes. */
export interface EdgeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * GETs a path from the edge with an explicit Host header (fetch cannot set Host), or with none at
 * all when `host` is undefined. A fresh connection each time, so tests never share sockets.
 */
export function edgeGet(
  edgeUrl: string,
  host: string | undefined,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<EdgeResponse> {
  const url = new URL(edgeUrl);
  const all = host === undefined ? headers : { host, ...headers };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method, headers: all, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
