import { cborDevPayerSeed } from "./cborDevPayers.js";
import { requestDemoHumanityClaim } from "./demoHumanityIssuer.js";
import { payCborRoute } from "../payer/payCborRoute.js";
import { decodeClaim } from "../protocol/cbor/Claim.js";
import { decodeErrorBody } from "../protocol/cbor/ErrorBody.js";
import { CBOR_MEDIA_TYPE, DEFAULT_REVELATION_MASK_REF } from "../protocol/cbor/profile.js";
import { decodeWireIntent } from "../protocol/cbor/masks/WireIntent.js";
import { decodePaymentSignature } from "../protocol/cbor/PaymentSignature.js";
import { openRestrictedReceipt } from "../protocol/cbor/verifyRestrictedReceipt.js";
import { issueGrant } from "../protocol/cbor/issueGrant.js";
import {
  createSigningKey,
  payerIdOf,
  type SignatureAlgorithm,
  type SigningKey,
} from "../protocol/cbor/signatures.js";
import { encodeSettlementReceipt } from "../protocol/cbor/SettlementReceipt.js";
import { payerIdOfClaim } from "../protocol/cbor/payerIdOfClaim.js";
import type { IntentKey } from "../payer/IntentKey.js";
import { starknetIntentKey } from "../payer/starknetIntentKey.js";
import { starknetDevAccount } from "./starknetDevAccounts.js";
import { STAND_IN_CHAIN_NAME } from "./startStarknetStandIn.js";
import { verifyReceipt } from "../protocol/cbor/verifyReceipt.js";

/** `npm run pay -- --cbor <url>`: pay a GET route in application/x402+cbor and print the receipt. */
export async function payCbor(
  url: string,
  options: {
    algorithm: string;
    facilitator?: string | undefined;
    /** The humanity issuer to ask when the offer wants a claim; default `{facilitator}/humanity`. */
    humanity?: string | undefined;
    maxAmount: bigint;
    delegate?: boolean;
    /** `service-auth` (default: --alg's key) or `starknet` (a layer-2 account, SNIP-12). */
    signer?: string | undefined;
  },
): Promise<number> {
  if (options.signer === "starknet") {
    if (options.delegate) {
      console.error("--delegate takes a service-auth key (grants are Ed25519 / ML-DSA-65 signed claims)");
      return 2;
    }
    return payAs(url, options, await starknetPayer());
  }
  if (options.signer !== undefined && options.signer !== "service-auth") {
    console.error("--signer must be service-auth or starknet");
    return 2;
  }
  if (options.algorithm !== "ed25519" && options.algorithm !== "ml-dsa-65") {
    console.error("--alg must be ed25519 or ml-dsa-65");
    return 2;
  }
  const algorithm: SignatureAlgorithm = options.algorithm;
  const seedHex = process.env.CBOR_PAYER_SEED;
  if (seedHex !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(seedHex)) {
    console.error("CBOR_PAYER_SEED must be 32 bytes of hex");
    return 2;
  }
  const seed =
    seedHex === undefined ? cborDevPayerSeed(algorithm) : Buffer.from(seedHex.replace(/^0x/, ""), "hex");
  const key = createSigningKey(algorithm, seed);
  console.log(
    `payer: ${payerIdOf(key.publicKey)} (${algorithm}${seedHex === undefined ? ", local demo test key" : ""})`,
  );
  return payAs(url, options, options.delegate ? demoDelegation(key, algorithm, options.maxAmount) : { key });
}

/**
 * The layer-2 payer: STARKNET_PRIVATE_KEY and STARKNET_ACCOUNT (felt hex), default the local stand-in's
 * dev account 0 (a public test key); the SNIP-12 chain id is STARKNET_CHAIN_ID, default `X402_LOCAL`.
 */
async function starknetPayer(): Promise<{ key: IntentKey }> {
  const dev = starknetDevAccount(0);
  const privateKey = process.env.STARKNET_PRIVATE_KEY ?? dev.privateKey;
  const account = process.env.STARKNET_ACCOUNT ?? dev.address;
  const chainId = process.env.STARKNET_CHAIN_ID ?? STAND_IN_CHAIN_NAME;
  const key = await starknetIntentKey({ privateKey, account, chainId });
  const test =
    process.env.STARKNET_PRIVATE_KEY === undefined ? ", local layer-2 dev account 0, a public test key" : "";
  console.log(
    `payer: ${payerIdOfClaim({ subject: key.publicKey, signer: key.signer })} (LayerTwoSigner: SNIP-12 typed data under chain ${chainId}${test})`,
  );
  return { key };
}

async function payAs(
  url: string,
  options: Parameters<typeof payCbor>[1],
  payment: { key: IntentKey; delegationChain?: Uint8Array[] },
): Promise<number> {
  console.log(`GET ${url} (Accept: application/x402+cbor), then POST with PAYMENT-SIGNATURE`);
  const issuerUrl =
    options.humanity ??
    (options.facilitator === undefined ? undefined : `${options.facilitator.replace(/\/+$/, "")}/humanity`);
  const supported =
    options.facilitator === undefined ? undefined : await facilitatorKeys(options.facilitator);
  const paid = await payCborRoute(url, {
    ...payment,
    facilitatorHpkeKey: supported?.hpkeKey,
    maxAmount: options.maxAmount,
    humanityClaim: async (_request, subject) => {
      if (issuerUrl === undefined) {
        throw new Error(
          "the offer asks for a humanity claim: pass --facilitator (its demo issuer) or --humanity <url>",
        );
      }
      const claim = await requestDemoHumanityClaim(issuerUrl, subject);
      console.log(
        `humanity_claim: from ${issuerUrl} (the local DEMO issuer vouches for anyone: proves nothing)`,
      );
      return claim;
    },
  });
  if (paid.payment) {
    const offer = paid.payment.request;
    console.log(`offer: ${show(offer)}`);
    const wire = decodeWireIntent(decodePaymentSignature(paid.payment.bytes).paymentIntent);
    const hidden = Object.entries(wire.hidden).map(([part, form]) => `${part} (${form.tag})`);
    if (offer.revelationMaskRef !== DEFAULT_REVELATION_MASK_REF) {
      console.log(
        `revelation mask ${offer.revelationMaskRef}: hid ${hidden.join(", ") || "nothing"} (sealed to the facilitator's HPKE key)`,
      );
    }
    console.log("stark_proof: STAND-IN (SHA-256 binding of the intent), not a STARK proof");
  }
  console.log(`status: ${paid.response.status} ${paid.response.statusText}`);
  const refusal = paid.response.headers.get("x402-error");
  if (refusal !== null)
    console.log(
      `refused: ${refusal} (${paid.response.headers.get("x402-error-reason") ?? "no reason given"})`,
    );
  if (paid.receipt) {
    console.log(
      `PAYMENT-RESPONSE (SettlementReceipt, decoded): ${show({ ...paid.receipt, claim: decodeClaim(paid.receipt.claim) })}`,
    );
    console.log(
      `receipt (base64, for npm run refund): ${Buffer.from(encodeSettlementReceipt(paid.receipt)).toString("base64")}`,
    );
    if (supported !== undefined) {
      const verdict = verifyReceipt(paid.receipt, supported.receiptKey);
      console.log(
        `receipt signature: ${verdict.valid ? "valid" : `INVALID (${verdict.reason})`} (facilitator key from /supported)`,
      );
      if (!verdict.valid) return 1;
    }
  } else if (paid.restrictedReceipt) {
    // The route's revelation mask hides receipt parts (the payer): the payer opens them with its own salts.
    console.log(
      `PAYMENT-RESPONSE (RestrictedReceipt: the mask hides ${Object.keys(paid.receiptOpenings ?? {}).join(", ")})`,
    );
    if (supported !== undefined) {
      const verdict = openRestrictedReceipt(
        paid.restrictedReceipt,
        paid.receiptOpenings ?? {},
        supported.receiptKey,
      );
      console.log(
        `receipt opened by the payer: ${verdict.valid ? show(verdict.revealed) : `INVALID (${verdict.reason})`}`,
      );
      console.log(
        `receipt signature: ${verdict.valid ? "valid" : "INVALID"} (facilitator key from /supported)`,
      );
      if (!verdict.valid) return 1;
    }
  } else {
    console.log("PAYMENT-RESPONSE: (none)");
  }
  const body = new Uint8Array(await paid.response.arrayBuffer());
  if (
    !paid.response.ok &&
    paid.response.headers.get("content-type") === CBOR_MEDIA_TYPE &&
    refusal === null
  ) {
    const error = decodeErrorBody(body);
    console.log(
      `body (CBOR error, decoded): ${show({ ...error, details: Object.fromEntries(error.details) })}`,
    );
  } else {
    console.log(`body: ${Buffer.from(body).toString("utf8")}`);
  }
  return paid.response.ok ? 0 : 1;
}

/** A fresh agent key and a one-grant chain from `root` to it: any merchant, capped, valid for an hour. */
function demoDelegation(root: SigningKey, algorithm: SignatureAlgorithm, cap: bigint) {
  const key = createSigningKey(algorithm);
  const validUntil = Math.floor(Date.now() / 1000) + 3600;
  const currency = "USDC";
  const delegationChain = [
    issueGrant(root, {
      delegate: key.publicKey,
      scope: { kind: "any" },
      cap: { currency, amount: cap },
      validUntil,
    }),
  ];
  console.log(
    `agent: ${payerIdOf(key.publicKey)} (fresh key), paying through a grant from the payer above: any merchant, at most ${cap} ${currency} units, until ${new Date(validUntil * 1000).toISOString()}`,
  );
  return { key, delegationChain };
}

function show(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) => {
      if (typeof item === "bigint") return item.toString();
      if (item instanceof Uint8Array) return Buffer.from(item).toString("hex");
      if (item !== null && typeof item === "object" && (item as { type?: unknown }).type === "Buffer") {
        return Buffer.from((item as { data: number[] }).data).toString("hex");
      }
      return item;
    },
    2,
  );
}

/** The CBOR facilitator's published keys (`GET /supported`): the receipt key and the HPKE key. */
async function facilitatorKeys(
  facilitator: string,
): Promise<{ receiptKey: Uint8Array; hpkeKey?: Uint8Array }> {
  const supported = (await (await fetch(`${facilitator.replace(/\/+$/, "")}/supported`)).json()) as {
    receiptKey?: { publicKey?: string };
    hpkeKey?: { publicKey?: string };
  };
  const receiptKey = Buffer.from(supported.receiptKey?.publicKey ?? "", "base64");
  const hpke = supported.hpkeKey?.publicKey;
  return hpke === undefined ? { receiptKey } : { receiptKey, hpkeKey: Buffer.from(hpke, "base64") };
}
