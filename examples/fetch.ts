// One module for Bun (`bun run`), Deno (`deno serve`) and Cloudflare Workers: `export default { fetch }`.
import { x402Fetch } from "x402-gateway/fetch";

const paywall = x402Fetch({
  facilitator: { url: process.env.FACILITATOR_URL ?? "https://x402.org/facilitator" },
  payTo: process.env.PAY_TO ?? "0x2222222222222222222222222222222222222222",
  network: "eip155:84532",
  publicUrl: process.env.PUBLIC_URL ?? "https://api.example.com",
  routes: {
    "GET /api/apy": { price: "$0.001", description: "Current APY" },
  },
});

/** The app behind the paywall: any `(request) => Promise<Response>`. */
async function app(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === "/api/apy") return Response.json({ apy: "5.25" });
  return new Response("not found", { status: 404 });
}

export default {
  fetch: (request: Request): Promise<Response> => paywall(request, app),
};
