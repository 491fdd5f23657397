import type { Express } from "express";
import type { PublicReadiness } from "./createReadinessProbe.js";

/** Whether the gateway is draining: set by `listenGateway`'s close, read by `/readyz` and every response. */
export interface DrainState {
  draining: boolean;
}

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (its peers answer and it is not draining),
 * registered on the app itself rather than a sub-router: no extra layer for every other request.
 */
export function addHealthRoutes(
  app: Express,
  readiness: () => Promise<PublicReadiness>,
  drain: DrainState,
): void {
  app.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const { ready, checks } = await readiness();
    res.setHeader("Cache-Control", "no-store");
    res.status(ready && !drain.draining ? 200 : 503).json({ ready, checks, draining: drain.draining });
  });
}
