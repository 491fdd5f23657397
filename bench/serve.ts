import { contenders, isContenderName, type ContenderOptions } from "./contenders.js";

/**
 * One contender in its own process, driven by the bench runner over IPC: it says `{ url }` once listening,
 * answers `"rss"` with its peak RSS and `"cpu"` with the CPU time it used so far, and exits on `"close"`
 * (so `--cpu-prof` gets written).
 */
const [name = "", optionsJson = "{}"] = process.argv.slice(2);
if (!isContenderName(name) || process.send === undefined) {
  console.error(`usage (from the bench runner): serve.ts <contender> [options-json]; got ${name}`);
  process.exit(2);
}
const options = JSON.parse(optionsJson) as ContenderOptions;
const running = await contenders[name](options);
process.send({ url: running.url });
process.on("message", (message) => {
  if (message === "rss") process.send?.({ maxRssBytes: process.resourceUsage().maxRSS * 1024 });
  if (message === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
  }
  if (message === "close") void running.close().finally(() => process.exit(0));
});
