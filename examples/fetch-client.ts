import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

// `npm start` prints all three: its funded test key, TestUSDC's address and a priced URL.
const { EVM_PRIVATE_KEY, X402_ASSET, X402_URL = "http://127.0.0.1:8402/api/apy" } = process.env;
if (!EVM_PRIVATE_KEY?.startsWith("0x") || !X402_ASSET) throw new Error("set EVM_PRIVATE_KEY and X402_ASSET");

const client = registerExactEvmScheme(new x402Client(), {
  signer: privateKeyToAccount(EVM_PRIVATE_KEY as `0x${string}`),
});
// The official client pays only assets it knows (USDC on known networks) unless told: name the test token.
client.setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: X402_ASSET }] });

const res = await wrapFetchWithPayment(fetch, client)(X402_URL);
const receipt = res.headers.get("PAYMENT-RESPONSE");
console.log(res.status, await res.text());
if (receipt) console.log("settled:", decodePaymentResponseHeader(receipt).transaction);
