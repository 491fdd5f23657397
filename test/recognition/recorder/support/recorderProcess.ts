// The payer recorder in its own process, on a SQLite queue: the recorder tests kill it with -9.
// Prints each recorder event as a JSON line.
import { startPayerRecorderFromEnvironment } from "./startRecorder.js";

const [file, rpcUrl, batchSize] = process.argv.slice(2);
if (file === undefined || rpcUrl === undefined)
  throw new Error("usage: recorderProcess.ts <queue file> <rpc url> [batch]");
startPayerRecorderFromEnvironment({
  file,
  rpcUrl,
  batchSize: Number(batchSize ?? "3"),
  onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
});
// The recorder's timers do not hold a process open (a gateway's server does): this one must stay up.
setInterval(() => undefined, 60_000);
