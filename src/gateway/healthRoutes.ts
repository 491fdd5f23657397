import { sendJson } from "../paywall/responses/respond.js";
import type { PublicReadiness } from "./createReadinessProbe.js";
import type { LocalRoute } from "./serveLocalRoutes.js";

/** Whether the gateway is draining: set by `listenGateway`'s close, read by `/readyz` and every response. */
export interface DrainState {
  draining: boolean;
}

/** `GET /healthz` (the process answers) and `GET /readyz` (its peers answer and it is not draining). */
export function healthRoutes(readiness: () => Promise<PublicReadiness>, drain: DrainState): LocalRoute[] {
  return [
    {
      path: "/healthz",
      answer: (_req, res) => {
        res.setHeader("Cache-Control", "no-store");
        sendJson(res, 200, { status: "ok" });
      },
    },
    {
      path: "/readyz",
      answer: async (_req, res) => {
        const { ready, checks } = await readiness();
        res.setHeader("Cache-Control", "no-store");
        sendJson(res, ready && !drain.draining ? 200 : 503, { ready, checks, draining: drain.draining });
      },
    },
  ];
}
