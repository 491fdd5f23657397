import { AUTHORIZATION_FIELDS } from "../../protocol/eip3009AuthorizationFields.js";
import { SOLANA_PAGE_SCRIPT } from "./solanaPageScript.js";

/**
 * The paywall page's script, plain JavaScript written for the browser (no build step, no library): it
 * reads the offer from the page's `#x402-offer` JSON block, connects the injected EIP-1193 wallet
 * (`window.ethereum`), switches it to the offer's chain, checks the balance, has the wallet sign the
 * EIP-3009 `TransferWithAuthorization` (`eth_signTypedData_v4`: the wallet does the EIP-712 hashing),
 * retries the page's URL with `PAYMENT-SIGNATURE` (the x402 V2 payload the official `@x402/evm` client
 * makes) and shows the resource, or why not. On a route with recognition (the offer's `sign-in-with-x`
 * extension), it also offers sign-in to a payer already recorded: the wallet signs the EIP-4361 message
 * (`personal_sign`), the page retries with `SIGN-IN-WITH-X`, nothing is paid. When the offer has a Solana
 * `exact` option (`data.solana`, with the Solana JSON-RPC URL the page reads the mint, the payer's balance and a
 * blockhash from) and a Wallet Standard wallet with `solana:signTransaction` registered (the page runs the
 * app side of the registration: `wallet-standard:app-ready` / `wallet-standard:register-wallet`), it builds
 * the transaction the official `@x402/svm` client builds ({@link SOLANA_PAGE_SCRIPT}), has the wallet sign it
 * as the payer (the facilitator co-signs as fee payer) and retries with it; with wallets for both, the offer's
 * order decides. The status element carries
 * `data-state` (`working`, `paid`, `signed_in`, `error`) and `data-error` (`no_wallet`, `rejected`,
 * `wrong_network`, `insufficient_balance`, `settlement_failed`, `refused`, `not_recognized`, `failed`).
 * Served inline, allowed by its hash in the page's CSP.
 */
export const PAYWALL_PAGE_SCRIPT = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("x402-offer").textContent);
  var required = data.paymentRequired;
  var option = data.index >= 0 ? required.accepts[data.index] : undefined;
  var solana = data.solana;
  var solanaOption = solana ? required.accepts[solana.index] : undefined;
  // What is being paid: the EVM option unless a Solana wallet pays the Solana one.
  var paying = { option: option, facts: data };
  var app = document.getElementById("x402-app");
  var button = document.getElementById("x402-pay");
  var signInButton = document.getElementById("x402-sign-in");
  var status = document.getElementById("x402-status");
  var result = document.getElementById("x402-result");
  var output = document.getElementById("x402-body");
  app.hidden = false;

  function PayError(kind, message) {
    this.kind = kind;
    this.message = message;
  }
  function say(state, message, kind) {
    status.textContent = message;
    status.setAttribute("data-state", state);
    if (kind) status.setAttribute("data-error", kind);
    else status.removeAttribute("data-error");
  }
  function units(amount) {
    var facts = paying.facts;
    if (facts.decimals === undefined) return amount + " (smallest units)";
    var digits = BigInt(amount).toString().padStart(facts.decimals + 1, "0");
    var cut = digits.length - facts.decimals;
    var fraction = digits.slice(cut).replace(/0+$/, "");
    return digits.slice(0, cut) + (fraction ? "." + fraction : "") + " " + facts.symbol;
  }
  function hex(bytes) {
    return Array.prototype.map
      .call(bytes, function (byte) {
        return byte.toString(16).padStart(2, "0");
      })
      .join("");
  }
  function bytesToBase64(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary);
  }
  function base64ToBytes(text) {
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function base64Json(value) {
    return bytesToBase64(new TextEncoder().encode(JSON.stringify(value)));
  }
  function decodeBase64Json(text) {
    return JSON.parse(new TextDecoder().decode(base64ToBytes(text)));
  }
  function walletError(error, kind, what) {
    if (error && error.code === 4001) return new PayError("rejected", "You rejected the request in your wallet. Nothing was paid.");
    return new PayError(kind, what + ": " + ((error && error.message) || String(error)));
  }
  async function ask(wallet, method, params, kind, what) {
    try {
      return await wallet.request(params === undefined ? { method: method } : { method: method, params: params });
    } catch (error) {
      throw walletError(error, kind, what);
    }
  }

  async function switchChain(wallet) {
    var wanted = "0x" + data.chainId.toString(16);
    var current = await ask(wallet, "eth_chainId", undefined, "failed", "The wallet did not say its network");
    if (parseInt(current, 16) === data.chainId) return;
    try {
      await wallet.request({ method: "wallet_switchEthereumChain", params: [{ chainId: wanted }] });
    } catch (error) {
      if (error && error.code === 4001) throw walletError(error);
      throw new PayError("wrong_network", "Your wallet is on chain " + parseInt(current, 16) + " and could not switch to " + data.network + ". Switch it to " + data.network + " and try again.");
    }
    current = await ask(wallet, "eth_chainId", undefined, "failed", "The wallet did not say its network");
    if (parseInt(current, 16) !== data.chainId) {
      throw new PayError("wrong_network", "Your wallet is on chain " + parseInt(current, 16) + ", not " + data.network + ". Switch it to " + data.network + " and try again.");
    }
  }

  async function checkBalance(wallet, from) {
    var balance;
    try {
      var call = { to: option.asset, data: "0x70a08231" + from.slice(2).toLowerCase().padStart(64, "0") };
      balance = BigInt(await wallet.request({ method: "eth_call", params: [call, "latest"] }));
    } catch (error) {
      return; // A wallet that cannot read the chain: the facilitator checks the balance anyway.
    }
    if (balance < BigInt(option.amount)) {
      throw new PayError("insufficient_balance", "Insufficient balance: this costs " + units(option.amount) + ", your account " + from + " holds " + units(balance.toString()) + ". Nothing was paid.");
    }
  }

  async function sign(wallet, from) {
    var now = Math.floor(Date.now() / 1000);
    var authorization = {
      from: from,
      to: option.payTo,
      value: option.amount,
      validAfter: "0",
      validBefore: String(now + option.maxTimeoutSeconds),
      nonce: "0x" + hex(crypto.getRandomValues(new Uint8Array(32))),
    };
    var typedData = {
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        TransferWithAuthorization: ${JSON.stringify(AUTHORIZATION_FIELDS)},
      },
      primaryType: "TransferWithAuthorization",
      domain: { name: option.extra.name, version: option.extra.version, chainId: data.chainId, verifyingContract: option.asset },
      message: authorization,
    };
    var signature = await ask(wallet, "eth_signTypedData_v4", [from, JSON.stringify(typedData)], "failed", "The wallet could not sign");
    return paymentHeader({ authorization: authorization, signature: signature }, option);
  }
  function paymentHeader(payload, accepted) {
    var payment = { x402Version: 2, payload: payload, resource: required.resource, accepted: accepted };
    if (required.extensions) payment.extensions = required.extensions;
    return base64Json(payment);
  }

${SOLANA_PAGE_SCRIPT}
  // The app side of the Wallet Standard registration: wallets registered before this script ran answer
  // app-ready, later ones send register-wallet.
  var solanaWallets = [];
  var walletStandard = Object.freeze({
    register: function () {
      var added = Array.prototype.filter.call(arguments, function (wallet) {
        return wallet && typeof wallet === "object" && wallet.features && solanaWallets.indexOf(wallet) < 0;
      });
      solanaWallets = solanaWallets.concat(added);
      return function unregister() {
        solanaWallets = solanaWallets.filter(function (wallet) {
          return added.indexOf(wallet) < 0;
        });
      };
    },
  });
  if (solanaOption) {
    window.addEventListener("wallet-standard:register-wallet", function (event) {
      try {
        if (typeof event.detail === "function") event.detail(walletStandard);
      } catch (error) {
        // A wallet that fails to register is not offered.
      }
    });
    try {
      window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: walletStandard }));
    } catch (error) {
      // No wallet answered.
    }
  }
  // A registered wallet that can sign a Solana transaction, one for the offer's chain first.
  function solanaWallet() {
    var able = solanaWallets.filter(function (wallet) {
      var features = wallet.features;
      return features["solana:signTransaction"] && typeof features["solana:signTransaction"].signTransaction === "function" && features["standard:connect"] && typeof features["standard:connect"].connect === "function";
    });
    var onChain = able.filter(function (wallet) {
      return Array.isArray(wallet.chains) && wallet.chains.indexOf(solana.chain) >= 0;
    });
    return onChain[0] || able[0];
  }
  async function solanaRpc(method, params) {
    var body;
    try {
      var response = await fetch(solana.rpcUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: method, params: params }),
        credentials: "omit",
        cache: "no-store",
      });
      body = await response.json();
    } catch (error) {
      throw new PayError("failed", "The Solana node " + solana.rpcUrl + " could not be read (" + method + "): " + ((error && error.message) || String(error)));
    }
    if (!body || body.error || !("result" in body)) {
      throw new PayError("failed", "The Solana node answered " + method + " with an error: " + ((body && body.error && body.error.message) || "no result"));
    }
    return body.result;
  }
  function readU64(bytes, at) {
    var value = 0n;
    for (var i = 7; i >= 0; i--) value = (value << 8n) | BigInt(bytes[at + i]);
    return value;
  }
  async function signSolana(wallet) {
    say("working", "Connecting your wallet…");
    var account;
    try {
      var connected = await wallet.features["standard:connect"].connect();
      account = ((connected && connected.accounts) || wallet.accounts || [])[0];
    } catch (error) {
      throw walletError(error, "failed", "The wallet did not connect");
    }
    if (!account || typeof account.address !== "string") throw new PayError("failed", "The wallet gave no account.");
    var chains = account.chains || wallet.chains || [];
    if (chains.indexOf(solana.chain) < 0) {
      throw new PayError("wrong_network", "Your wallet does not offer " + solana.network + " (" + solana.chain + "). Switch it to " + solana.network + " and try again.");
    }
    var payer = account.address;
    say("working", "Checking the token and your balance…");
    var mint = (await solanaRpc("getAccountInfo", [solanaOption.asset, { encoding: "base64" }])).value;
    if (!mint) throw new PayError("failed", "The token " + solanaOption.asset + " does not exist on " + solana.network + ".");
    var tokenProgram = mint.owner;
    var decimals = base64ToBytes(mint.data[0])[44];
    var source = base58Encode(await associatedTokenAccount(payer, solanaOption.asset, tokenProgram));
    var holding = (await solanaRpc("getAccountInfo", [source, { encoding: "base64" }])).value;
    var balance = holding ? readU64(base64ToBytes(holding.data[0]), 64) : 0n;
    if (balance < BigInt(solanaOption.amount)) {
      throw new PayError("insufficient_balance", "Insufficient balance: this costs " + units(solanaOption.amount) + ", your account " + payer + " holds " + units(balance.toString()) + ". Nothing was paid.");
    }
    var extra = solanaOption.extra || {};
    var blockhash = typeof extra.recentBlockhash === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(extra.recentBlockhash) ? extra.recentBlockhash : (await solanaRpc("getLatestBlockhash", [{ commitment: "confirmed" }])).value.blockhash;
    var built = await solanaExactTransaction({
      payer: payer,
      payTo: solanaOption.payTo,
      mint: solanaOption.asset,
      feePayer: extra.feePayer,
      amount: solanaOption.amount,
      decimals: decimals,
      tokenProgram: tokenProgram,
      blockhash: blockhash,
      memo: typeof extra.memo === "string" ? extra.memo : undefined,
    });
    say("working", "Sign the payment of " + units(solanaOption.amount) + " in your wallet…");
    var signed;
    try {
      var outputs = await wallet.features["solana:signTransaction"].signTransaction({ account: account, transaction: built.transaction, chain: solana.chain });
      signed = outputs && outputs[0] && outputs[0].signedTransaction;
    } catch (error) {
      throw walletError(error, "failed", "The wallet could not sign");
    }
    if (!(signed instanceof Uint8Array) || signed.length === 0) throw new PayError("failed", "The wallet gave no signed transaction.");
    return paymentHeader({ transaction: bytesToBase64(signed) }, solanaOption);
  }

  async function show(response, signedIn) {
    var type = response.headers.get("content-type") || "";
    var receipt = response.headers.get("payment-response");
    var transaction = "";
    try {
      if (receipt) transaction = decodeBase64Json(receipt).transaction || "";
    } catch (error) {
      transaction = "";
    }
    if (/json/i.test(type)) {
      var text = await response.text();
      try {
        output.textContent = JSON.stringify(JSON.parse(text), null, 2);
      } catch (error) {
        output.textContent = text;
      }
    } else if (/^text\/|xml|javascript/i.test(type) || type === "") {
      output.textContent = await response.text();
    } else {
      var blob = await response.blob();
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "resource";
      link.textContent = "Download the resource (" + blob.size + " bytes of " + type + ")";
      output.textContent = "";
      output.appendChild(link);
    }
    result.hidden = false;
    button.hidden = true;
    if (signInButton) signInButton.hidden = true;
    if (signedIn) {
      document.querySelector("h1").textContent = "Signed in";
      say("signed_in", "Signed in as a payer already recorded: nothing was paid.");
      return;
    }
    document.querySelector("h1").textContent = "Paid";
    say("paid", "Paid " + units(paying.option.amount) + " on " + paying.facts.network + (transaction ? ". Transaction " + transaction : "") + ".");
  }

  async function refusal(response) {
    var body = {};
    try {
      body = await response.json();
    } catch (error) {
      body = {};
    }
    var code = body.error || "";
    var message = body.message || "HTTP " + response.status;
    if (code === "settlement_failed") return new PayError("settlement_failed", "Settlement failed, so the resource was not served: " + message);
    var reason = (body.details && body.details.reason) || "";
    if (/insufficient/i.test(reason)) return new PayError("insufficient_balance", "Insufficient balance: " + message);
    if (response.status === 402) return new PayError("refused", "The payment was refused: " + message);
    return new PayError("failed", "The server answered " + response.status + (code ? " " + code : "") + ": " + message);
  }

  // Keccak-256 (the pre-FIPS padding Ethereum uses), for the EIP-55 address a sign-in message names.
  function keccak256(input) {
    var M = (1n << 64n) - 1n;
    var lanes = new Array(25).fill(0n);
    var rate = 136;
    var padded = new Uint8Array(Math.ceil((input.length + 1) / rate) * rate);
    padded.set(input);
    padded[input.length] ^= 0x01;
    padded[padded.length - 1] ^= 0x80;
    function rol(value, shift) {
      return shift === 0 ? value : ((value << BigInt(shift)) | (value >> BigInt(64 - shift))) & M;
    }
    for (var block = 0; block < padded.length; block += rate) {
      for (var i = 0; i < rate / 8; i++) {
        var lane = 0n;
        for (var b = 7; b >= 0; b--) lane = (lane << 8n) | BigInt(padded[block + i * 8 + b]);
        lanes[i] ^= lane;
      }
      var R = 1;
      for (var round = 0; round < 24; round++) {
        var C = [];
        for (var x = 0; x < 5; x++) C[x] = lanes[x] ^ lanes[x + 5] ^ lanes[x + 10] ^ lanes[x + 15] ^ lanes[x + 20];
        for (x = 0; x < 5; x++) {
          var D = C[(x + 4) % 5] ^ rol(C[(x + 1) % 5], 1);
          for (var y = 0; y < 5; y++) lanes[x + 5 * y] ^= D;
        }
        var px = 1, py = 0, current = lanes[1];
        for (var t = 0; t < 24; t++) {
          var nx = py, ny = (2 * px + 3 * py) % 5;
          px = nx;
          py = ny;
          var next = lanes[px + 5 * py];
          lanes[px + 5 * py] = rol(current, (((t + 1) * (t + 2)) / 2) % 64);
          current = next;
        }
        for (y = 0; y < 5; y++) {
          var row = lanes.slice(5 * y, 5 * y + 5);
          for (x = 0; x < 5; x++) lanes[x + 5 * y] = row[x] ^ (~row[(x + 1) % 5] & M & row[(x + 2) % 5]);
        }
        for (var j = 0; j < 7; j++) {
          R = ((R << 1) ^ ((R >> 7) * 0x71)) % 256;
          if (R & 2) lanes[0] ^= 1n << BigInt((1 << j) - 1);
        }
      }
    }
    var out = new Uint8Array(32);
    for (var k = 0; k < 32; k++) out[k] = Number((lanes[k >> 3] >> BigInt(8 * (k & 7))) & 0xffn);
    return out;
  }
  function checksum(address) {
    var lower = address.slice(2).toLowerCase();
    var digest = hex(keccak256(new TextEncoder().encode(lower)));
    var out = "0x";
    for (var i = 0; i < 40; i++) out += parseInt(digest[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
    return out;
  }
  // The EIP-4361 text, as the gateway rebuilds it from the payload's fields (src/recognition/buildSiweMessage.ts).
  function siweMessage(fields) {
    var header = fields.domain + " wants you to sign in with your Ethereum account:\n" + fields.address;
    var preamble = fields.statement === undefined ? header + "\n\n" : header + "\n\n" + fields.statement + "\n";
    var lines = ["URI: " + fields.uri, "Version: " + fields.version, "Chain ID: " + fields.chainId.split(":")[1], "Nonce: " + fields.nonce, "Issued At: " + fields.issuedAt];
    if (fields.expirationTime) lines.push("Expiration Time: " + fields.expirationTime);
    if (fields.notBefore) lines.push("Not Before: " + fields.notBefore);
    if (fields.requestId !== undefined) lines.push("Request ID: " + fields.requestId);
    if (fields.resources !== undefined) lines.push(["Resources:"].concat(fields.resources.map(function (r) { return "- " + r; })).join("\n"));
    return preamble + "\n" + lines.join("\n");
  }
  var signInOffer = required.extensions && required.extensions["sign-in-with-x"];
  var signInChain = signInOffer && (signInOffer.supportedChains || []).filter(function (chain) {
    return chain.type === "eip191" && /^eip155:\d+$/.test(chain.chainId);
  })[0];

  // The injected wallet and its first account, or why not.
  async function connect(otherwise) {
    var wallet = window.ethereum;
    if (!wallet || typeof wallet.request !== "function") {
      var kinds = solanaOption ? "an EIP-1193 wallet such as MetaMask, or a Solana wallet such as Phantom" : "an EIP-1193 wallet such as MetaMask";
      throw new PayError("no_wallet", "No browser wallet found. Install one (" + kinds + "), " + otherwise + ".");
    }
    say("working", "Connecting your wallet…");
    var accounts = await ask(wallet, "eth_requestAccounts", undefined, "failed", "The wallet did not connect");
    var from = accounts && accounts[0];
    if (!from) throw new PayError("failed", "The wallet gave no account.");
    return { wallet: wallet, from: from };
  }

  async function signIn() {
    var connected = await connect("to sign in");
    var wallet = connected.wallet;
    var from = connected.from;
    var fields = Object.assign({}, signInOffer.info, { address: checksum(from), chainId: signInChain.chainId, type: "eip191" });
    say("working", "Sign in with your wallet (a message, not a payment)…");
    var signature = await ask(wallet, "personal_sign", [siweMessage(fields), from], "failed", "The wallet could not sign");
    say("working", "Signing in…");
    var response = await fetch(window.location.href, {
      headers: { "SIGN-IN-WITH-X": base64Json(Object.assign({}, fields, { signature: signature })), Accept: "*/*" },
      credentials: "same-origin",
      cache: "no-store",
    });
    if (response.status === 402) {
      throw new PayError("not_recognized", "This account is not recognized as having paid (yet: a payment is recorded a little after it settles). Pay, or try again later. Nothing was paid.");
    }
    if (!response.ok) throw await refusal(response);
    await show(response, true);
  }

  // The offer's first option this browser has a wallet for pays; an EVM option without a wallet says so.
  async function payHeader() {
    var forSolana = solanaOption ? solanaWallet() : undefined;
    var ethereum = option && window.ethereum && typeof window.ethereum.request === "function";
    if (forSolana && (!ethereum || solana.index < data.index)) {
      paying = { option: solanaOption, facts: solana };
      return signSolana(forSolana);
    }
    if (!option) {
      throw new PayError("no_wallet", "No Solana wallet found. Install one (a Wallet Standard wallet such as Phantom or Solflare), or pay with an x402 client.");
    }
    paying = { option: option, facts: data };
    var connected = await connect("or pay with an x402 client");
    var wallet = connected.wallet;
    var from = connected.from;
    say("working", "Checking the network…");
    await switchChain(wallet);
    await checkBalance(wallet, from);
    say("working", "Sign the payment of " + units(option.amount) + " in your wallet…");
    return sign(wallet, from);
  }

  async function pay() {
    var header = await payHeader();
    say("working", "Paying…");
    var response = await fetch(window.location.href, {
      headers: { "PAYMENT-SIGNATURE": header, Accept: "*/*" },
      credentials: "same-origin",
      cache: "no-store",
    });
    if (!response.ok) throw await refusal(response);
    await show(response);
  }

  // Runs the action on a click, the button disabled meanwhile; a failure is said, and the button re-enabled.
  function onClick(element, action, failed) {
    element.addEventListener("click", function () {
      element.disabled = true;
      action().catch(function (error) {
        if (error instanceof PayError) say("error", error.message, error.kind);
        else say("error", failed + ": " + ((error && error.message) || String(error)), "failed");
        element.disabled = false;
      });
    });
  }
  if (signInButton && signInChain && signInOffer.info) {
    signInButton.hidden = false;
    onClick(signInButton, signIn, "Sign-in failed");
  }
  if (!option && !solanaOption) {
    button.disabled = true;
    say("error", "None of this resource's payment options can be paid from a browser wallet: use an x402 client.", "unpayable");
    return;
  }
  onClick(button, pay, "Payment failed");
})();
`;

/** The page's stylesheet, inline and allowed by its hash. */
export const PAYWALL_PAGE_STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 2rem 1rem; line-height: 1.5; }
main { max-width: 36rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 0.5rem; }
.app { margin: 0; opacity: 0.7; }
.what { font-size: 1.1rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
[data-state="error"] { color: #b00020; }
[data-state="paid"], [data-state="signed_in"] { color: #1b5e20; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0.75rem; border: 1px solid #8884; }
`;
