import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startChild, stopChild, waitForPort } from "./proc.js";

/** A running nginx of the bench's own. */
export interface NginxProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const NGINX = "/usr/sbin/nginx";

/**
 * The reference configuration: one worker, sendfile on, access log off, keep-alive, static files
 * from `root`. Keep-alive connections are not closed after nginx's default 1,000 requests, because
 * the node servers never close them either.
 */
export function nginxConfig(root: string, port: number, workDir: string): string {
  return `worker_processes 1;
daemon off;
pid ${join(workDir, "nginx.pid")};
error_log ${join(workDir, "error.log")} warn;
events { worker_connections 1024; }
http {
  types {
    text/html html;
    text/javascript js;
    image/jpeg jpg;
  }
  default_type application/octet-stream;
  sendfile on;
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`;
}

/**
 * Writes the configuration into `workDir` and starts nginx in the foreground (its master and
 * worker). Started as root, the worker runs unprivileged: every folder above `root` must be searchable.
 */
export async function startNginx(root: string, port: number, workDir: string): Promise<NginxProcess> {
  mkdirSync(workDir, { recursive: true });
  const config = join(workDir, "nginx.conf");
  writeFileSync(config, nginxConfig(root, port, workDir));
  const child = startChild(NGINX, ["-p", workDir, "-c", config, "-e", join(workDir, "error.log")], {
    logFile: join(workDir, "stdout.log"),
  });
  try {
    await waitForPort(port);
  } catch (error) {
    await stopChild(child, "SIGKILL");
    throw error;
  }
  // SIGQUIT is nginx's graceful shutdown; SIGTERM its fast one, which is all the bench needs.
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child, "SIGTERM") };
}
