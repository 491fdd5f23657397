import { startServer, load } from "./measure.js";
const [name = "gateway", path = "/api/weather", status = "402"] = process.argv.slice(2);
const up = await startServer("upstream");
const s = await startServer(name as "gateway", { upstreamUrl: up.url }, true);
const r = await load({ url: s.url + path, connections: 50, seconds: 8, expectStatus: Number(status) });
console.log(r);
await s.close();
await up.close();
