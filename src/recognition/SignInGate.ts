/** What a sign-in check knows about the request it guards. */
export interface SignInContext {
  /** The resource URL the offer names (also the SIWE `uri`). */
  resourceUrl: string;
  /** The host the gateway serves this request as (the SIWE `domain`). */
  host: string;
  /** CAIP-2 networks of the route's payment options (`supportedChains`). */
  networks: string[];
  now: Date;
}

/** `proven`: the proof was checked (a payer signed in), so `address` may redeem what it bought (a pass). */
export type AdmitResult =
  { recognized: true; address: string } | { recognized: false; address: string; proven?: boolean };

/**
 * Lets payers already recognized on the layer-2 chain in without paying again (docs/recognition.md, "The
 * flow"). The middleware depends on this interface only; `src/recognition/` implements it.
 */
export interface SignInGate {
  /** Extensions to merge into the 402 offer's `extensions`, e.g. `{ "sign-in-with-x": { info, supportedChains } }`. */
  offer(context: SignInContext): Promise<Record<string, unknown>>;
  /**
   * Check a `SIGN-IN-WITH-X` header. Throws a GatewayError `invalid_sign_in` (malformed) or
   * `sign_in_rejected` (bad proof); resolves whether the proven address is recognized.
   * An RPC failure is not recognized (fail closed) unless a cached positive answer may be served stale.
   */
  admit(header: string, context: SignInContext): Promise<AdmitResult>;
}
