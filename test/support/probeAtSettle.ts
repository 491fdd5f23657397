import type { FacilitatorDouble } from "./facilitatorDouble.js";

/** What `probe` read each time the facilitator double was asked to `/settle` (e.g. how much a body had streamed). */
export function probeAtSettle(facilitator: FacilitatorDouble, probe: () => number): number[] {
  const seen: number[] = [];
  const settle = facilitator.settle;
  facilitator.settle = (body) => {
    seen.push(probe());
    return settle(body);
  };
  return seen;
}
