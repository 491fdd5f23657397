import { x402Client, type SpendControls } from "@x402/core/client";
import type { Network, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { privateKeyToAccount, type LocalAccount } from "viem/accounts";
import { guardSignedFetch } from "../payer/guardSignedFetch.js";
import { aliasClientScheme } from "../payer/aliasClientScheme.js";
import type { LocalScheme } from "./startFacilitator.js";

export interface CreatePayingFetchOptions {
  /** The payer's key, as the official client's users give it (`EVM_PRIVATE_KEY`). */
  privateKey?: Hex;
  /** Or a viem local account. */
  account?: LocalAccount;
  /** Schemes the client can pay with on `eip155:*`; default `["exact"]`. `exact-pq` signs like `exact`. */
  schemes?: LocalScheme[];
  /**
   * Tokens the client may pay with beyond the client's built-in default assets (e.g. the local
   * TestUSDC), each with an optional cap in its smallest unit.
   */
  allowedAssets?: { network: Network; asset: string; maxAmountPerPayment?: string }[] | true;
  /** Called with the offer's requirements the client could pay, before it picks the first. */
  onOffer?: (requirements: PaymentRequirements[]) => void;
  /** The `fetch` to wrap (default `globalThis.fetch`); tests pass one that records requests. */
  fetch?: typeof fetch;
  /**
   * Send a payment or a sign-in over plain HTTP to a host that is not loopback, for a test network only
   * (`--allow-insecure-http`). Default false: TLS is mandatory.
   */
  allowInsecureHttp?: boolean;
}

/** A `fetch` that pays 402 offers, plus the client and the payer's address. */
export interface PayingFetch {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  client: x402Client;
  payer: Hex;
}

/**
 * The official paying client: `@x402/fetch`'s `wrapFetchWithPayment` around an `x402Client` with the
 * `@x402/evm` exact scheme registered for `eip155:*`, signing with a viem account. Signed requests go
 * over https:// or to loopback only, and follow no redirect (`guardSignedFetch`).
 */
export function createPayingFetch(options: CreatePayingFetchOptions): PayingFetch {
  const account =
    options.account ??
    (options.privateKey !== undefined ? privateKeyToAccount(options.privateKey) : undefined);
  if (account === undefined) throw new Error("createPayingFetch needs `privateKey` or `account`");
  const exact = new ExactEvmScheme(account);
  const client = new x402Client();
  for (const scheme of options.schemes ?? ["exact"]) {
    client.register("eip155:*", scheme === "exact" ? exact : aliasClientScheme(exact, scheme));
  }
  if (options.allowedAssets !== undefined) {
    const controls: SpendControls = { allowedAssets: options.allowedAssets };
    client.setSpendControls(controls);
  }
  if (options.onOffer !== undefined) {
    const onOffer = options.onOffer;
    client.registerPolicy((_version, requirements) => {
      onOffer(requirements);
      return requirements;
    });
  }
  return {
    fetch: wrapFetchWithPayment(
      guardSignedFetch(options.fetch ?? globalThis.fetch, {
        allowInsecureHttp: options.allowInsecureHttp,
        setting: "--allow-insecure-http",
      }),
      client,
    ),
    client,
    payer: account.address,
  };
}
