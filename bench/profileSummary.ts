import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Frames that are the process waiting, not working. */
const IDLE = new Set(["(idle)", "(program)"]);

/** The most recently written `.cpuprofile` in `dir`, if any. */
export async function newestProfile(dir: string): Promise<string | undefined> {
  let newest: { file: string; at: number } | undefined;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith(".cpuprofile")) continue;
    const file = join(dir, name);
    const at = (await stat(file)).mtimeMs;
    if (newest === undefined || at > newest.at) newest = { file, at };
  }
  return newest?.file;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === "" ? "(anonymous)" : functionName;
  if (url === "") return name;
  const short = url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "");
  const where = short.includes("/.cache/") ? short.replace(/^.*\/\.cache\//, "") : short.replace(/^.*\//, "");
  return `${name} (${where}:${lineNumber + 1})`;
}

/** Where a frame's code lives: a package, a Node internal area, the bundled server, or a V8 pseudo-frame. */
function originOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.includes("undici")) return "node: undici (fetch)";
  if (url.startsWith("node:"))
    return `node:${url.slice(5).split("/")[url.includes("internal/") ? 1 : 0] ?? ""}`;
  if (url.includes("/.cache/")) return "the server's own code (bundle)";
  return url.replace(/^.*\//, "");
}

/**
 * Self time per frame of a `--cpu-prof` profile, busy samples only (idle and `(program)` left out):
 * the top `count` as "share % name" lines.
 */
export async function topSelfFrames(
  file: string,
  count = 15,
): Promise<{ frames: string[]; origins: string[] }> {
  const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const origins = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (node === undefined || IDLE.has(node.callFrame.functionName)) return;
    const micros = profile.timeDeltas[index] ?? 0;
    busy += micros;
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + micros);
    const origin = originOf(node);
    origins.set(origin, (origins.get(origin) ?? 0) + micros);
  });
  const top = (totals: Map<string, number>, n: number) =>
    [...totals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, micros]) => `${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`);
  return { frames: top(self, count), origins: top(origins, 10) };
}
