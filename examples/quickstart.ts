import express from "express";
import { x402 } from "x402-gateway";

const app = express();

app.use(
  x402({
    facilitator: { url: process.env.FACILITATOR_URL ?? "https://x402.org/facilitator" },
    payTo: process.env.PAY_TO ?? "0x2222222222222222222222222222222222222222",
    network: "eip155:84532", // Base Sepolia: "$0.001" is paid in its USDC
    routes: {
      "GET /api/apy": { price: "$0.001", description: "Current APY" },
    },
  }),
);

app.get("/api/apy", (_req, res) => {
  res.json({ apy: "5.25" });
});

export default app;
