// `npm run refund -- --facilitator <url> <receipt base64>`: refund a CBOR receipt on the local facilitator.
import { parseArgs } from "node:util";
import { decodeBase64 } from "../protocol/decodeBase64.js";
import { decodeClaim } from "../protocol/cbor/Claim.js";
import { isRevoked } from "../protocol/cbor/revokeReceipt.js";
import { receiptDigest, decodeSettlementReceipt } from "../protocol/cbor/SettlementReceipt.js";
import { decodeSignedClaim } from "../protocol/cbor/SignedClaim.js";
import { fetchCborRevocations, requestCborRefund } from "./requestCborRefund.js";

const USAGE = `usage: npm run refund -- --facilitator <cbor facilitator url> <receipt base64> [--amount N]

Asks the local application/x402+cbor facilitator (npm start prints its URL) to refund a receipt it
issued: the payer is credited back (the whole amount, or N smallest units), once only, and the
facilitator answers a signed revocation (a "revokes" claim naming the receipt's digest). Prints the
revocation and checks, against GET /revocations and the key at /supported, that the receipt is revoked.
The receipt is the PAYMENT-RESPONSE value \`npm run pay -- --cbor …\` prints.`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        facilitator: { type: "string" },
        amount: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const encoded = positionals[0];
  if (values.help || encoded === undefined || values.facilitator === undefined) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (values.amount !== undefined && !/^[0-9]+$/.test(values.amount)) {
    console.error("--amount must be a whole number of smallest units");
    return 2;
  }
  let receipt: Uint8Array;
  try {
    receipt = decodeBase64(encoded);
    decodeSettlementReceipt(receipt);
  } catch (error) {
    console.error(`not a SettlementReceipt: ${(error as Error).message}`);
    return 2;
  }
  const digest = receiptDigest(decodeSettlementReceipt(receipt));
  console.log(`receipt ${digest}`);
  const answer = await requestCborRefund(
    values.facilitator,
    receipt,
    values.amount === undefined ? undefined : BigInt(values.amount),
  );
  if (!answer.ok) {
    console.error(`refused: ${answer.status} ${answer.error}${answer.message ? ` (${answer.message})` : ""}`);
    return 1;
  }
  const claim = decodeClaim(decodeSignedClaim(answer.revocation).claim);
  console.log(
    `revocation: ${claim.predicate} ${claim.object}, refunded ${claim.quantity?.amount} ${claim.quantity?.currency} units at ${new Date(claim.time * 1000).toISOString()}`,
  );
  console.log(`revocation (base64): ${Buffer.from(answer.revocation).toString("base64")}`);
  const supported = (await (await fetch(`${values.facilitator.replace(/\/+$/, "")}/supported`)).json()) as {
    receiptKey?: { publicKey?: string };
  };
  const facilitatorKey = Buffer.from(supported.receiptKey?.publicKey ?? "", "base64");
  const revoked = isRevoked(receipt, await fetchCborRevocations(values.facilitator), facilitatorKey);
  console.log(
    `receipt revoked (GET /revocations, facilitator key from /supported): ${revoked ? "yes" : "NO"}`,
  );
  return revoked ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
