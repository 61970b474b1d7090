// `npm run cloudflare:live`: the end-to-end flow against a real Cloudflare account (not part of
// CI). With CLOUDFLARE_API_TOKEN and the other CLOUDFLARE_* settings and SITES_DOMAIN in the
// environment (docs/cloudflare.md), it starts the API with PLATFORM=cloudflare, deploys a small
// folder with the real client, fetches the site over HTTPS through the dispatch Worker, checks an
// unknown host answers 404, and deletes the project. Without a token it says it was skipped.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

if (!process.env.CLOUDFLARE_API_TOKEN) {
  console.log("cloudflare:live: skipped (CLOUDFLARE_API_TOKEN is not set)");
  process.exit(0);
}

const { loadConfig, startServer } = await import("../dist/server/index.js");
const { runCli } = await import("../dist/client/index.js");
const dir = await mkdtemp(join(tmpdir(), "cloudflare-live-"));
const config = {
  ...loadConfig({ ...process.env, PLATFORM: "cloudflare" }),
  port: 0,
  uploadPort: 0,
  edgePort: 0,
};
const server = await startServer({ ...config, dataDir: join(dir, "data"), metricsPort: 0 });
const env = {
  DEPLOY_API_URL: server.urls.api,
  DEPLOY_CONFIG_DIR: join(dir, "config"),
  PATH: process.env.PATH ?? "",
};
let out = "";
const io = (sink) => ({
  write: (text) => (sink === "out" ? (out += text) : process.stderr.write(text)),
  isTTY: false,
});
const run = (argv, cwd) => runCli(argv, { stdout: io("out"), stderr: io("err"), env, cwd });
let failed = false;
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  failed ||= !ok;
};
try {
  const site = join(dir, "site");
  await rm(site, { recursive: true, force: true });
  await import("node:fs/promises").then((fs) => fs.mkdir(site, { recursive: true }));
  const marker = `live ${Date.now()}`;
  await writeFile(join(site, "index.html"), marker);
  check((await run([site, "--json"], "/")) === 0, "deploy");
  const deployed = JSON.parse(out.trim().split("\n").pop());
  // Cloudflare's KV reaches every location within about a minute.
  let body = "";
  for (let i = 0; i < 12 && body !== marker; i++) {
    body = await fetch(deployed.productionUrl).then(
      (r) => r.text(),
      () => "",
    );
    if (body !== marker) await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  check(body === marker, `site answers on ${deployed.productionUrl}`);
  const unknown = await fetch(`https://no-such-site-x1y2z.${config.sitesDomain}/`).then(
    (r) => r.status,
    () => 0,
  );
  check(unknown === 404, "an unknown host answers 404");
  check((await run(["delete", "--yes"], site)) === 0, "delete");
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
