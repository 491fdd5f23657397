import type { ClientRequest, IncomingMessage } from "node:http";

type State = { proxyReq?: ClientRequest; abandoned: boolean };
const states = new WeakMap<IncomingMessage, State>();

function stateOf(req: IncomingMessage): State {
  let state = states.get(req);
  if (!state) states.set(req, (state = { abandoned: false }));
  return state;
}

/** Remember the upstream request made for `req`; destroyed at once if `req` was already abandoned. */
export function trackUpstreamRequest(req: IncomingMessage, proxyReq: ClientRequest): void {
  const state = stateOf(req);
  state.proxyReq = proxyReq;
  if (state.abandoned) proxyReq.destroy();
}

/** The gateway answered `req` itself (e.g. 413): cut the upstream request, now or as soon as it exists. */
export function abandonUpstreamRequest(req: IncomingMessage): void {
  const state = stateOf(req);
  state.abandoned = true;
  state.proxyReq?.destroy();
}

export function isUpstreamRequestAbandoned(req: IncomingMessage): boolean {
  return states.get(req)?.abandoned ?? false;
}
