// `npm run refund -- --facilitator <url> <receipt base64>`: refund a CBOR receipt on the local facilitator,
// as the merchant (its token file, which npm start writes owner-only).
import { parseArgs } from "node:util";
import { readPrivateFile } from "../common/readPrivateFile.js";
import { decodeBase64 } from "../protocol/decodeBase64.js";
import { decodeClaim } from "../protocol/cbor/Claim.js";
import { isRevoked } from "../protocol/cbor/revokeReceipt.js";
import { receiptDigest, decodeSettlementReceipt } from "../protocol/cbor/SettlementReceipt.js";
import { decodeSignedClaim } from "../protocol/cbor/SignedClaim.js";
import { fetchCborRevocations, requestCborRefund } from "./requestCborRefund.js";

/** Where npm start writes the local CBOR facilitator's merchant token (next to its default data). */
const DEFAULT_TOKEN_FILE = "data/cbor-merchant.token";

const USAGE = `usage: npm run refund -- --facilitator <cbor facilitator url> [--merchant-token-file <file>] <receipt base64> [--amount N]

Asks the local application/x402+cbor facilitator (npm start prints its URL) to refund a receipt it
issued: the payer is credited back (the whole amount, or N smallest units), once only, and the
facilitator answers a signed revocation (a "revokes" claim naming the receipt's digest). Prints the
revocation and checks, against GET /revocations and the key at /supported, that the receipt is revoked.
The receipt is the PAYMENT-RESPONSE value \`npm run pay -- --cbor …\` prints.

A refund is the merchant's act: this command sends the merchant's token, read from
--merchant-token-file (default ${DEFAULT_TOKEN_FILE}, which npm start writes with mode 0600 each
start; it must be readable by its owner only). A payer holding only the receipt is refused (401).`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        facilitator: { type: "string" },
        amount: { type: "string" },
        "merchant-token-file": { type: "string" },
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
  const tokenFile = values["merchant-token-file"] ?? DEFAULT_TOKEN_FILE;
  let merchantToken: string;
  try {
    merchantToken = (await readPrivateFile(tokenFile, "merchant token file")).trim();
  } catch (error) {
    console.error(`${(error as Error).message}\n(the merchant's token: npm start writes it; see --help)`);
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
  const answer = await requestCborRefund(values.facilitator, receipt, {
    merchantToken,
    amount: values.amount === undefined ? undefined : BigInt(values.amount),
  });
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
