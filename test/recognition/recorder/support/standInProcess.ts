// A layer-2 stand-in in its own process, on its SQLite file: the recorder tests kill it with -9.
// Prints one JSON line, {"rpcUrl": …}, once it listens.
import { startStarknetStandIn } from "../../../../src/dev/startStarknetStandIn.js";

const file = process.argv[2];
if (file === undefined) throw new Error("usage: standInProcess.ts <sqlite file> [port]");
const port = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const node = await startStarknetStandIn({ file, ...(port === undefined ? {} : { port }) });
process.stdout.write(`${JSON.stringify({ rpcUrl: node.rpcUrl, contract: node.contract })}\n`);
