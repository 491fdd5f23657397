import { Hono } from "hono";
import { x402Hono } from "x402-gateway/hono";

const app = new Hono();

app.use(
  x402Hono({
    facilitator: { url: process.env.FACILITATOR_URL ?? "https://x402.org/facilitator" },
    payTo: process.env.PAY_TO ?? "0x2222222222222222222222222222222222222222",
    network: "eip155:84532", // Base Sepolia: "$0.001" is paid in its USDC
    routes: {
      "GET /api/apy": { price: "$0.001", description: "Current APY" },
    },
  }),
);

app.get("/api/apy", (c) => c.json({ apy: "5.25" }));

export default app;
