import {
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  type KeyPairSigner,
} from "@solana/kit";
import type { Page } from "playwright-core";

export interface SolanaTestWalletOptions {
  /** The key that signs: a local engine dev account, never one that holds real funds. */
  signer: KeyPairSigner;
  /** Wallet Standard chains the wallet offers; default `["solana:devnet"]` (what the LOCAL engine answers as). */
  chains?: readonly string[];
  /** Refuse every signature request as a person would (error code 4001). */
  rejectSignatures?: boolean;
  /** Register with `wallet-standard:register-wallet` after the page loaded, instead of answering `app-ready`. */
  registerLate?: boolean;
}

/** What the page asked the wallet, in order; `transaction` is the base64 wire transaction it was asked to sign. */
export interface SolanaTestWallet {
  address: string;
  requests: Array<{ method: string; chain?: string; transaction?: string }>;
}

type Answer = { result: unknown } | { error: { code: number; message: string } };

/**
 * An injected Wallet Standard wallet with `standard:connect` and `solana:signTransaction`, for a page under
 * test: it runs the wallet side of the registration protocol, and its requests go to Node (through
 * `page.exposeFunction`), where `@solana/kit` adds the signer's Ed25519 signature to the transaction it is
 * given (a partial signature: the fee payer's slot stays for the facilitator). Call before `goto`.
 */
export async function installSolanaTestWallet(
  page: Page,
  options: SolanaTestWalletOptions,
): Promise<SolanaTestWallet> {
  const { signer } = options;
  const chains = options.chains ?? ["solana:devnet"];
  const wallet: SolanaTestWallet = { address: signer.address, requests: [] };
  const answer = async (
    method: string,
    params: { transaction?: string; chain?: string },
  ): Promise<Answer> => {
    switch (method) {
      case "connect":
        return { result: null };
      case "signTransaction": {
        if (options.rejectSignatures) return { error: { code: 4001, message: "User rejected the request." } };
        if (params.chain !== undefined && !chains.includes(params.chain)) {
          return { error: { code: -32000, message: `not a chain of this wallet: ${params.chain}` } };
        }
        const transaction = getTransactionDecoder().decode(
          getBase64Encoder().encode(params.transaction ?? ""),
        );
        if (!(signer.address in transaction.signatures)) {
          return {
            error: { code: -32000, message: `the transaction needs no signature from ${signer.address}` },
          };
        }
        const signed = await partiallySignTransaction([signer.keyPair], transaction);
        return { result: Buffer.from(getTransactionEncoder().encode(signed)).toString("base64") };
      }
      default:
        return { error: { code: 4200, message: `unsupported method ${method}` } };
    }
  };
  await page.exposeFunction("__x402SolanaTestWallet", async (method: string, paramsJson: string) => {
    const params = JSON.parse(paramsJson) as { transaction?: string; chain?: string };
    wallet.requests.push({ method, ...params });
    return JSON.stringify(await answer(method, params));
  });
  await page.addInitScript(`
    (function () {
      var chains = ${JSON.stringify(chains)};
      function toBase64(bytes) {
        var binary = "";
        for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
        return btoa(binary);
      }
      function fromBase64(text) {
        var binary = atob(text);
        var bytes = new Uint8Array(binary.length);
        for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        return bytes;
      }
      async function call(method, params) {
        var answer = JSON.parse(await window.__x402SolanaTestWallet(method, JSON.stringify(params)));
        if (answer.error) {
          var error = new Error(answer.error.message);
          error.code = answer.error.code;
          throw error;
        }
        return answer.result;
      }
      var account = Object.freeze({
        address: ${JSON.stringify(signer.address)},
        publicKey: new Uint8Array(0),
        chains: chains,
        features: ["solana:signTransaction"],
        label: "x402 test payer",
      });
      var wallet = {
        version: "1.0.0",
        name: "x402 Solana test wallet",
        icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
        chains: chains,
        accounts: [],
        features: {
          "standard:connect": {
            version: "1.0.0",
            connect: async function () {
              await call("connect", {});
              wallet.accounts = [account];
              return { accounts: wallet.accounts };
            },
          },
          "standard:events": { version: "1.0.0", on: function () { return function () {}; } },
          "solana:signTransaction": {
            version: "1.0.0",
            supportedTransactionVersions: ["legacy", 0],
            signTransaction: async function () {
              var outputs = [];
              for (var i = 0; i < arguments.length; i++) {
                var input = arguments[i];
                if (input.account.address !== account.address) throw new Error("not this wallet's account");
                var signed = await call("signTransaction", { transaction: toBase64(input.transaction), chain: input.chain });
                outputs.push({ signedTransaction: fromBase64(signed) });
              }
              return outputs;
            },
          },
        },
      };
      function register(api) {
        api.register(wallet);
      }
      function announce() {
        window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
      }
      ${
        options.registerLate
          ? 'window.addEventListener("load", function () { setTimeout(announce, 0); });'
          : 'window.addEventListener("wallet-standard:app-ready", function (event) { register(event.detail); });\n      announce();'
      }
    })();
  `);
  return wallet;
}
