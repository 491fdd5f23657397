import type { RecognitionSettings } from "./recognitionSettings.js";
import { createSignInGate, type SignInGateDeps } from "./createSignInGate.js";
import { MemoryNonceStore } from "./MemoryNonceStore.js";
import type { SiwxSignInGate } from "./SiwxSignInGate.js";

/** Picks the sign-in gate of a route from its `recognition` setting; `undefined`: the route takes none. */
export type SignInGateResolver = ((
  route: RecognitionSettings | false | undefined,
) => SiwxSignInGate | undefined) & {
  /** Every gate built so far (for metrics). */
  readonly gates: ReadonlyMap<string, SiwxSignInGate>;
};

/**
 * Gates for a route table: a route's own `recognition` settings, else the global default, else none;
 * `false` turns recognition off for the route. Routes with equal settings share one gate (one cache),
 * and all gates share one nonce store.
 */
export function createSignInGateResolver(
  globalSettings: RecognitionSettings | undefined,
  deps: SignInGateDeps = {},
): SignInGateResolver {
  const shared: SignInGateDeps = {
    ...deps,
    nonceStore: deps.nonceStore ?? new MemoryNonceStore({ now: deps.now }),
  };
  const gates = new Map<string, SiwxSignInGate>();
  const resolve = (route: RecognitionSettings | false | undefined): SiwxSignInGate | undefined => {
    if (route === false) return undefined;
    const settings = route ?? globalSettings;
    if (settings === undefined) return undefined;
    const key = stableKey(settings);
    let gate = gates.get(key);
    if (gate === undefined) {
      gate = createSignInGate(settings, shared);
      gates.set(key, gate);
    }
    return gate;
  };
  return Object.assign(resolve, { gates });
}

function stableKey(settings: RecognitionSettings): string {
  return JSON.stringify(Object.entries(settings).sort(([a], [b]) => a.localeCompare(b)));
}
