import type { Logger } from "../../common/Logger.js";
import { isLoopbackHost } from "../../common/isLoopbackHost.js";
import type { PassUse, PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { PassRouteSettings } from "../../pricing/passRouteSettings.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import type { ResponseWriter } from "../responses/ResponsePort.js";
import {
  cookiePathOf,
  dropPassCredentials,
  joinPath,
  passCookie,
  passCredentials,
} from "./passCredentials.js";
import type { PassKey } from "./PassKey.js";
import { encodePassBody, joinPassToken, parsePassToken, scopeTag, type PassClaims } from "./passToken.js";

/** What a pass ledger must do (see `PaymentLedger`'s pass methods). */
export type PassLedger = Required<Pick<PaymentLedger, "openPass" | "usePass" | "passOf" | "endPasses">>;

export interface PassesDeps {
  ledger: PassLedger;
  key: PassKey;
  now: () => number;
  logger: Logger;
  observer: PaywallObserver;
  cookieName: string;
  /** How long a pass counted in requests only lasts, in seconds. */
  maxSeconds: number;
  /** Random bytes (a pass id); default `crypto.getRandomValues`. */
  random?: (size: number) => Uint8Array;
}

/** What the buyer of a pass is told, in `PAYMENT-RESPONSE`'s `extensions.pass`. */
export interface PassGrant {
  token: string;
  /** The scope the pass is good for. */
  scope: string;
  /** Requests bought, the paying one included (absent: counted by time only). */
  requests?: number;
  /** Requests left after the paying one. */
  remaining?: number;
  /** When the pass ends, ISO 8601. */
  expiresAt: string;
}

/** A route's pass, resolved once. */
interface RoutePass {
  settings: PassRouteSettings;
  scope: string;
  tag: string;
  cookiePath: string;
}

/** Why a pass shown was not honoured (`402 pass_rejected`, `details.reason`). */
export type PassRefusal = "malformed" | "signature" | "scope" | "expired" | "used_up" | "unknown";

/**
 * Passes (docs/passes.md): paying once for a route with `pass` buys a signed token good for `requests` uses
 * or `seconds`; a request that shows one (`Authorization: Bearer`, the cookie, or a signed-in payer) is served
 * without a payment while the ledger still counts credits for it. Every use is counted in the ledger, never
 * in the token, so it is counted once across every gateway that shares the ledger.
 */
export class Passes {
  private readonly byRoute = new Map<PricedRoute, RoutePass>();
  private readonly random: (size: number) => Uint8Array;
  /** Tokens whose signature checked, by their text: a pass is shown again and again (its credits are the ledger's). */
  private readonly signedTokens = new Map<string, PassClaims>();

  constructor(
    private readonly deps: PassesDeps,
    routes: readonly PricedRoute[],
  ) {
    this.random = deps.random ?? ((size) => crypto.getRandomValues(new Uint8Array(size)));
    const selling = routes.filter((route) => route.config.pass !== undefined);
    const scopes = new Map<string, PricedRoute[]>();
    for (const route of selling) {
      const scope = route.config.pass?.scope ?? route.key;
      scopes.set(scope, [...(scopes.get(scope) ?? []), route]);
    }
    for (const [scope, sharing] of scopes) {
      const cookiePath = cookiePathOf(sharing.map((route) => route.key));
      for (const route of sharing) {
        const settings = route.config.pass as PassRouteSettings;
        this.byRoute.set(route, { settings, scope, tag: scopeTag(scope), cookiePath });
      }
    }
  }

  /** Whether `route` sells passes. */
  sells(route: PricedRoute): boolean {
    return this.byRoute.has(route);
  }

  /** The offer's `extensions.pass`: what a payment for `route` buys. */
  offerExtension(route: PricedRoute): Record<string, unknown> | undefined {
    const pass = this.byRoute.get(route);
    if (pass === undefined) return undefined;
    const { requests, seconds } = pass.settings;
    return {
      pass: {
        scope: pass.scope,
        ...(requests !== undefined ? { requests } : {}),
        seconds: seconds ?? this.deps.maxSeconds,
      },
    };
  }

  /**
   * Serve the request on a pass it shows, spending one credit: true when it may go on unpaid. A bearer token
   * that cannot be honoured is refused (`402 pass_rejected`) unless the request also pays; a cookie that
   * cannot is ignored (the browser gets the offer). A ledger that cannot answer fails closed (503).
   */
  async admit(req: RequestFacts, route: PricedRoute, paying: boolean): Promise<boolean> {
    const pass = this.byRoute.get(route);
    if (pass === undefined) return false;
    const shown = passCredentials(req, this.deps.cookieName);
    if (shown.length === 0) return false;
    let refusal: { reason: PassRefusal; bearer: boolean } | undefined;
    for (const credential of shown) {
      const checked = this.check(credential.token, pass);
      const outcome = "reason" in checked ? checked : await this.use(checked.claims.id);
      if (!("reason" in outcome)) {
        dropPassCredentials(req, this.deps.cookieName);
        this.deps.logger.debug({ route: route.key, payer: checked.claims?.payer }, "served on a pass");
        return true;
      }
      if (refusal === undefined || credential.bearer)
        refusal = { reason: outcome.reason, bearer: credential.bearer };
    }
    if (refusal?.bearer && !paying) throw passRejected(refusal.reason);
    return false;
  }

  /** Serve a signed-in payer on the pass it bought for this route's scope: true when it may go on unpaid. */
  async admitPayer(route: PricedRoute, payer: string): Promise<boolean> {
    const pass = this.byRoute.get(route);
    if (pass === undefined) return false;
    const id = await this.ledgerCall(() => this.deps.ledger.passOf(pass.tag, payer.toLowerCase()));
    if (id === undefined) return false;
    const outcome = await this.use(id);
    return !("reason" in outcome);
  }

  /**
   * Open the pass a settled payment for `route` bought, and put it on the answer: the cookie, and the grant
   * for `PAYMENT-RESPONSE`. A pass that cannot be opened (ledger down) is logged; the paid answer is served.
   */
  async issue(
    req: RequestFacts,
    res: ResponseWriter,
    route: PricedRoute,
    payer: string,
  ): Promise<PassGrant | undefined> {
    const pass = this.byRoute.get(route);
    if (pass === undefined) return undefined;
    const { requests } = pass.settings;
    const seconds = pass.settings.seconds ?? this.deps.maxSeconds;
    const nowMs = this.deps.now();
    const expiresAtSeconds = Math.floor(nowMs / 1000) + seconds;
    const claims: PassClaims = {
      alg: this.deps.key.alg,
      id: hex(this.random(16)),
      expiresAtSeconds,
      requests: requests ?? 0,
      scope: pass.tag,
      payer: payer.toLowerCase().slice(0, 100),
    };
    const signed = encodePassBody(claims);
    const token = joinPassToken(signed, this.deps.key.sign(new TextEncoder().encode(signed)));
    const credits = requests === undefined ? undefined : requests - 1;
    try {
      await this.deps.ledger.openPass({
        id: claims.id,
        scope: pass.tag,
        payer: claims.payer,
        credits,
        expiresAtMs: expiresAtSeconds * 1000,
      });
    } catch (error) {
      this.deps.logger.error({ err: error, route: route.key }, "settled, but the pass could not be opened");
      return undefined;
    }
    const secure = req.secure || !isLoopbackHost(req.localAddress);
    appendSetCookie(
      res,
      passCookie(this.deps.cookieName, token, joinPath(req.mountPath, pass.cookiePath), seconds, secure),
    );
    return {
      token,
      scope: pass.scope,
      ...(requests !== undefined ? { requests, remaining: credits } : {}),
      expiresAt: new Date(expiresAtSeconds * 1000).toISOString(),
    };
  }

  /** End every pass of `payer` (a refund or a revocation), at every gateway sharing the ledger. */
  endPasses(payer: string): Promise<number> {
    return this.deps.ledger.endPasses(payer.toLowerCase());
  }

  /** A token's claims, when it is this gateway's, for this scope and unexpired; else why not. */
  private check(
    token: string,
    pass: RoutePass,
  ): { claims: PassClaims } | { reason: PassRefusal; claims?: undefined } {
    const claims = this.signedTokens.get(token) ?? this.verified(token);
    if ("reason" in claims) return claims;
    if (claims.scope !== pass.tag) return { reason: "scope" };
    if (claims.expiresAtSeconds * 1000 <= this.deps.now()) return { reason: "expired" };
    return { claims };
  }

  /** A token's claims once its signature checked (remembered), else why not. */
  private verified(token: string): PassClaims | { reason: PassRefusal } {
    const parsed = parsePassToken(token);
    if (!parsed.ok) return { reason: "malformed" };
    const { claims, signed, signature } = parsed.token;
    if (claims.alg !== this.deps.key.alg || !this.deps.key.verify(signed, signature))
      return { reason: "signature" };
    if (this.signedTokens.size >= SIGNED_TOKENS_KEPT) this.signedTokens.clear();
    this.signedTokens.set(token, claims);
    return claims;
  }

  private async use(id: string): Promise<{ used: PassUse } | { reason: PassRefusal }> {
    const used = await this.ledgerCall(() => this.deps.ledger.usePass(id));
    if (used.status === "used") return { used };
    return { reason: used.status };
  }

  private async ledgerCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.deps.observer.ledgerError?.("reserve");
      throw new GatewayError("ledger_unavailable", "the payment ledger cannot be reached; retry later", {
        cause: error,
        retryAfterSeconds: 1,
      });
    }
  }
}

/** How many checked tokens are remembered before the memory starts over. */
const SIGNED_TOKENS_KEPT = 4096;

function passRejected(reason: PassRefusal): GatewayError {
  const told: Record<PassRefusal, string> = {
    malformed: "the pass token is malformed",
    signature: "the pass token is not one this gateway signed",
    scope: "the pass token is for another scope",
    expired: "the pass has expired",
    used_up: "the pass has no requests left",
    unknown: "the pass has ended (refunded, revoked, or unknown here)",
  };
  return new GatewayError("pass_rejected", `${told[reason]}: pay again (see PAYMENT-REQUIRED)`, {
    details: { reason },
  });
}

/** Add a `Set-Cookie` line, keeping those the response already has. */
function appendSetCookie(res: ResponseWriter, line: string): void {
  const current = res.getHeader("Set-Cookie");
  const lines =
    current === undefined ? [] : Array.isArray(current) ? [...(current as string[])] : [String(current)];
  res.setHeader("Set-Cookie", [...lines, line]);
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}
