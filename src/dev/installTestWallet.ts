import type { Page } from "playwright-core";
import type { Hex, TypedDataDefinition } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export interface TestWalletOptions {
  /** The key that signs: an anvil dev key, never one that holds real funds. */
  privateKey: Hex;
  /** The chain the wallet starts on. */
  chainId: number;
  /** Chains `wallet_switchEthereumChain` may switch to; any other is refused with 4902 (unknown chain). */
  chains: readonly number[];
  /** JSON-RPC URL `eth_call` is forwarded to (anvil). */
  rpcUrl: string;
  /** Refuse every signature request as a person would (EIP-1193 error 4001). */
  rejectSignatures?: boolean;
}

/** What the page asked the wallet, in order (`method` and its parameters). */
export interface TestWallet {
  address: Hex;
  requests: Array<{ method: string; params: unknown }>;
}

type Answer = { result: unknown } | { error: { code: number; message: string } };

/**
 * An injected EIP-1193 wallet (`window.ethereum`) for a page under test: requests go to Node (through
 * `page.exposeFunction`), where viem signs `eth_signTypedData_v4` and `personal_sign` with `privateKey`.
 * Call before `goto`.
 */
export async function installTestWallet(page: Page, options: TestWalletOptions): Promise<TestWallet> {
  const account = privateKeyToAccount(options.privateKey);
  const wallet: TestWallet = { address: account.address, requests: [] };
  let chainId = options.chainId;
  const answer = async (method: string, params: unknown): Promise<Answer> => {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return { result: [account.address] };
      case "eth_chainId":
        return { result: `0x${chainId.toString(16)}` };
      case "wallet_switchEthereumChain": {
        const wanted = Number.parseInt((params as Array<{ chainId: string }>)[0]?.chainId ?? "", 16);
        if (!options.chains.includes(wanted)) return { error: { code: 4902, message: "unrecognized chain" } };
        chainId = wanted;
        return { result: null };
      }
      case "eth_signTypedData_v4": {
        if (options.rejectSignatures) return { error: { code: 4001, message: "User rejected the request." } };
        const [from, json] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) {
          return { error: { code: 4100, message: `not this wallet's account: ${from}` } };
        }
        const { types, primaryType, domain, message } = JSON.parse(json) as TypedDataDefinition & {
          types: Record<string, unknown>;
        };
        const { EIP712Domain: _domain, ...signed } = types;
        if (Number(domain?.chainId) !== chainId) {
          return {
            error: { code: -32000, message: `domain chainId ${domain?.chainId} is not the wallet's` },
          };
        }
        const signature = await account.signTypedData({
          types: signed,
          primaryType,
          domain,
          message,
        } as TypedDataDefinition);
        return { result: signature };
      }
      case "personal_sign": {
        if (options.rejectSignatures) return { error: { code: 4001, message: "User rejected the request." } };
        const [message, from] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) {
          return { error: { code: 4100, message: `not this wallet's account: ${from}` } };
        }
        return { result: await account.signMessage({ message }) };
      }
      case "eth_call": {
        const response = await fetch(options.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        const body = (await response.json()) as {
          result?: unknown;
          error?: { code: number; message: string };
        };
        return body.error ? { error: body.error } : { result: body.result };
      }
      default:
        return { error: { code: 4200, message: `unsupported method ${method}` } };
    }
  };
  await page.exposeFunction("__x402TestWallet", async (method: string, paramsJson: string) => {
    const params = JSON.parse(paramsJson) as unknown;
    wallet.requests.push({ method, params });
    return JSON.stringify(await answer(method, params));
  });
  await page.addInitScript(`
    window.ethereum = {
      isX402TestWallet: true,
      request: async function (args) {
        var answer = JSON.parse(await window.__x402TestWallet(args.method, JSON.stringify(args.params === undefined ? [] : args.params)));
        if (answer.error) {
          var error = new Error(answer.error.message);
          error.code = answer.error.code;
          throw error;
        }
        return answer.result;
      },
    };
  `);
  return wallet;
}
