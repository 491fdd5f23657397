// app/api/quote/route.ts in a Next.js app (App Router): the route handler behind the paywall.
import { x402Fetch } from "x402-gateway/fetch";

const paywall = x402Fetch({
  facilitator: { url: process.env.FACILITATOR_URL ?? "https://x402.org/facilitator" },
  payTo: process.env.PAY_TO ?? "0x2222222222222222222222222222222222222222",
  network: "eip155:84532",
  // Next.js knows the app's public origin; the paywall cannot read it from the socket here.
  publicUrl: process.env.PUBLIC_URL ?? "https://api.example.com",
  // In production the Request's URL says https (TLS ends in front of Next); `next dev` serves plain HTTP.
  requireTls: process.env.NODE_ENV === "production",
  routes: {
    "GET /api/quote": { price: "$0.001", description: "A quote" },
  },
});

async function quote(_request: Request): Promise<Response> {
  return Response.json({ quote: 42 });
}

export async function GET(request: Request): Promise<Response> {
  return paywall(request, quote);
}
