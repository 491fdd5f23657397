import { parseArgs } from "node:util";
import { decodePaymentResponseHeader } from "@x402/fetch";
import type { Hex } from "viem";
import { createPayingFetch } from "./createPayingFetch.js";
import { payCbor } from "./payCbor.js";
import { paySolana } from "./paySolana.js";
import { signInWithoutPaying } from "./signInWithoutPaying.js";

const USAGE = `usage: EVM_PRIVATE_KEY=0x… npm run pay -- <url> [--method POST] [--data '{"json":true}'] [--max-amount 1000000] [--scheme exact] [--allow-insecure-http]
       EVM_PRIVATE_KEY=0x… npm run pay -- --sign-in <url> [--allow-insecure-http]
       SOLANA_RPC_URL=… npm run pay -- --solana --keypair <keypair.json> <url> [--max-amount N]
       npm run pay -- --cbor <url> [--signer service-auth|starknet] [--alg ed25519|ml-dsa-65] [--facilitator <cbor facilitator url>] [--humanity <issuer url>] [--max-amount N] [--delegate]

Requests <url> with the official x402 client (@x402/fetch + @x402/evm exact), paying a 402 offer
with the key in EVM_PRIVATE_KEY, then prints the status, the decoded PAYMENT-RESPONSE, the
transaction hash and the body.
  --method       HTTP method (default GET, or POST with --data)
  --data         request body, sent as application/json
  --max-amount   refuse offers above this amount, in the asset's smallest unit (default 1000000)
  --scheme       the scheme to pay with: exact (default) or exact-pq (signed like exact)
  --allow-insecure-http
                 send the payment (or the sign-in) over plain http:// to a host that is not loopback, when
                 it is for a test network (eip155:84532, eip155:31337, …); a mainnet one never. Without it
                 TLS is mandatory: a PAYMENT-SIGNATURE or SIGN-IN-WITH-X goes only over https:// or to
                 loopback, and a signed request follows no redirect.

With --sign-in: never pays. Answers the offer's sign-in-with-x challenge with the official client hook
(createSIWxClientHook, the key in EVM_PRIVATE_KEY) and prints the answer: 200 when the payer is recognized
(est_ouverte answers 0x1 on layer 2), else 402 (exit 1). No PAYMENT-SIGNATURE is ever sent.

With --solana: pays the offer's Solana option (exact, solana:*) with the official client (@x402/fetch +
@x402/svm), the transfer signed with the key in --keypair (a Solana CLI keypair file: a JSON array of 64
bytes); the facilitator pays the fee. SOLANA_RPC_URL is where the client reads the mint and a blockhash
(default the network's public endpoint; npm start prints the LOCAL engine's). Prints the transaction's
signature. Over https:// or to loopback only.

With --cbor: pays a GET route in application/x402+cbor (this project's v0.3 profile) — asks for the
CBOR offer, signs the intent with an Ed25519 or ML-DSA-65 key (CBOR_PAYER_SEED, 32 bytes hex; default
the local demo payer's public test seed), retries as POST, prints the decoded receipt and, with
--facilitator, checks its signature against the key the facilitator publishes at /supported.
When the offer says accepts_humanity_gate, asks --humanity (default <facilitator>/humanity, the local
DEMO issuer, which vouches for anyone) for a humanity claim about the payer's key and sends it.
The stark_proof sent is the local stack's STAND-IN (a SHA-256 binding), not a STARK proof. The payment
goes over https:// or to loopback only (the profile names no network: --allow-insecure-http does not apply).
With --signer starknet: the LayerTwoSigner instead — a Starknet contract account signs the intent as
SNIP-12 typed data (STARKNET_PRIVATE_KEY and STARKNET_ACCOUNT, default the local stand-in's dev
account 0, a public test key; STARKNET_CHAIN_ID, default X402_LOCAL); the gateway asks the account's
is_valid_signature on the layer-2 node.
With --delegate: that key is the root of a demo delegation chain instead — it grants a fresh agent key
(any merchant, capped at --max-amount, for an hour) and the agent pays on its behalf.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      method: { type: "string" },
      data: { type: "string" },
      "max-amount": { type: "string", default: "1000000" },
      scheme: { type: "string", default: "exact" },
      cbor: { type: "boolean" },
      solana: { type: "boolean" },
      keypair: { type: "string" },
      "sign-in": { type: "boolean" },
      alg: { type: "string", default: "ed25519" },
      facilitator: { type: "string" },
      delegate: { type: "boolean" },
      humanity: { type: "string" },
      signer: { type: "string" },
      "allow-insecure-http": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const url = positionals[0];
  if (values.help || url === undefined) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const allowInsecureHttp = values["allow-insecure-http"] === true;
  if (values.solana) {
    if (values.keypair === undefined || !/^(0|[1-9][0-9]*)$/.test(values["max-amount"])) {
      console.error("--solana needs --keypair <file> and an integer --max-amount\n");
      console.error(USAGE);
      return 2;
    }
    return paySolana(url, {
      keypairFile: values.keypair,
      rpcUrl: process.env.SOLANA_RPC_URL || undefined,
      maxAmount: BigInt(values["max-amount"]),
      method: (values.method ?? (values.data === undefined ? "GET" : "POST")).toUpperCase(),
      body: values.data,
    });
  }
  if (values.cbor) {
    if (allowInsecureHttp) {
      console.error(
        "--allow-insecure-http is for EVM test networks: a CBOR payment names no network, TLS is mandatory",
      );
      return 2;
    }
    if (!/^(0|[1-9][0-9]*)$/.test(values["max-amount"])) {
      console.error("--max-amount must be an integer amount in the smallest unit");
      return 2;
    }
    return payCbor(url, {
      algorithm: values.alg,
      facilitator: values.facilitator,
      humanity: values.humanity,
      maxAmount: BigInt(values["max-amount"]),
      delegate: values.delegate === true,
      signer: values.signer,
    });
  }
  const privateKey = process.env.EVM_PRIVATE_KEY;
  if (privateKey === undefined || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    console.error("EVM_PRIVATE_KEY must be set to a 0x-prefixed 32-byte hex private key\n");
    console.error(USAGE);
    return 2;
  }
  if (values["sign-in"]) return signInWithoutPaying(url, privateKey as Hex, { allowInsecureHttp });
  if (!/^(0|[1-9][0-9]*)$/.test(values["max-amount"])) {
    console.error("--max-amount must be an integer amount in the asset's smallest unit");
    return 2;
  }
  const maxAmount = BigInt(values["max-amount"]);
  const scheme = values.scheme;
  if (scheme !== "exact" && scheme !== "exact-pq") {
    console.error("--scheme must be exact or exact-pq");
    return 2;
  }

  const paying = createPayingFetch({
    privateKey: privateKey as Hex,
    schemes: [scheme],
    allowInsecureHttp,
    // Any token, including a local test token the client's default-asset list does not know; the
    // --max-amount policy below caps what one request may cost.
    allowedAssets: true,
    onOffer: (requirements) => {
      for (const option of requirements) {
        console.log(
          `offer: ${option.scheme} ${option.amount} of ${option.asset} on ${option.network} to ${option.payTo}`,
        );
      }
    },
  });
  paying.client.registerPolicy((_version, requirements) =>
    requirements.filter((option) => {
      const affordable = BigInt(option.amount) <= maxAmount;
      if (!affordable)
        console.error(`refusing ${option.scheme} ${option.amount}: above --max-amount ${maxAmount}`);
      return affordable;
    }),
  );
  paying.client.registerPolicy((_version, requirements) => {
    const chosen = requirements[0];
    if (chosen !== undefined) console.log(`paying: ${chosen.scheme} ${chosen.amount} on ${chosen.network}`);
    return requirements;
  });

  const method = (values.method ?? (values.data === undefined ? "GET" : "POST")).toUpperCase();
  console.log(`payer: ${paying.payer}`);
  console.log(`${method} ${url}`);
  const response = await paying.fetch(url, {
    method,
    ...(values.data === undefined
      ? {}
      : { body: values.data, headers: { "content-type": "application/json" } }),
  });

  console.log(`status: ${response.status} ${response.statusText}`);
  const receiptHeader = response.headers.get("payment-response");
  if (receiptHeader !== null) {
    const receipt = decodePaymentResponseHeader(receiptHeader);
    console.log(`PAYMENT-RESPONSE: ${JSON.stringify(receipt, null, 2)}`);
    console.log(`transaction: ${receipt.transaction || "(none)"}`);
  } else {
    console.log("PAYMENT-RESPONSE: (none)");
  }
  const body = await response.text();
  console.log(`body: ${prettyJson(body)}`);
  return response.ok ? 0 : 1;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`pay: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
