import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";

/** Loaded only by the feature that uses them (docs/dependencies.md), never by importing the package root. */
export const LAZY_PACKAGES: readonly string[] = [
  "starknet",
  "ioredis",
  "@noble/post-quantum",
  "@modelcontextprotocol/sdk",
  "viem",
  "@hpke/core",
];

/** Runs in the loader-hooks thread: reports every module URL as it loads, in order, on one port. */
const HOOKS = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;

/**
 * The child: registers the hooks, imports the entry, then imports a sentinel; a port delivers in order,
 * so once the sentinel arrives every earlier URL has. CommonJS files a CommonJS package requires do
 * not pass the ESM hooks: they are read from require's cache.
 */
const PROBE = `import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const SENTINEL = "data:text/javascript,export{}//loaded-packages-end";
const { port1, port2 } = new MessageChannel();
const urls = new Set();
const done = new Promise((resolve) => port1.on("message", (url) => (url === SENTINEL ? resolve() : urls.add(url))));
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), {
  data: { port: port2 },
  transferList: [port2],
});
await import(process.argv.at(-1));
await import(SENTINEL);
await done;
port1.close();
for (const file of Object.keys(createRequire(import.meta.url).cache)) urls.add(file);
process.stdout.write(JSON.stringify([...urls]));`;

/** The npm package a loaded file belongs to (the innermost `node_modules`), or undefined for our own. */
function packageOfFile(file: string): string | undefined {
  const at = file.lastIndexOf("/node_modules/");
  if (at < 0) return undefined;
  const parts = file.slice(at + "/node_modules/".length).split("/");
  return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * The npm packages a fresh Node process loads to import `entry` (a file path; `.ts` runs through
 * tsx), with how many of each package's files it loaded.
 */
export function packagesLoadedBy(entry: string, cwd: string): Promise<Map<string, number>> {
  const args = [
    ...(entry.endsWith(".ts") ? ["--import", "tsx"] : []),
    "--input-type=module",
    "--eval",
    PROBE,
    pathToFileURL(entry).href,
  ];
  return new Promise((resolve, reject) => {
    // Its own process group, killed if it hangs; it carries the run's marker for teardown like any child.
    const options = {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      detached: true,
      timeout: 50_000,
      killSignal: "SIGKILL" as const,
    };
    execFile(process.execPath, args, options, (error, stdout, stderr) => {
      if (error) return reject(new Error(`probing ${entry} failed: ${stderr || error.message}`));
      const counts = new Map<string, number>();
      for (const url of JSON.parse(stdout) as string[]) {
        const name = packageOfFile(decodeURIComponent(url));
        if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      resolve(counts);
    });
  });
}
