import { AUTHORIZATION_FIELDS } from "../protocol/eip3009AuthorizationFields.js";

/**
 * The paywall page's script, plain JavaScript written for the browser (no build step, no library): it
 * reads the offer from the page's `#x402-offer` JSON block, connects the injected EIP-1193 wallet
 * (`window.ethereum`), switches it to the offer's chain, checks the balance, has the wallet sign the
 * EIP-3009 `TransferWithAuthorization` (`eth_signTypedData_v4`: the wallet does the EIP-712 hashing),
 * retries the page's URL with `PAYMENT-SIGNATURE` (the x402 V2 payload the official `@x402/evm` client
 * makes) and shows the resource, or why not. The status element carries `data-state` (`working`, `paid`,
 * `error`) and `data-error` (`no_wallet`, `rejected`, `wrong_network`, `insufficient_balance`,
 * `settlement_failed`, `refused`, `failed`). Served inline, allowed by its hash in the page's CSP.
 */
export const PAYWALL_PAGE_SCRIPT = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("x402-offer").textContent);
  var required = data.paymentRequired;
  var option = data.index >= 0 ? required.accepts[data.index] : undefined;
  var app = document.getElementById("x402-app");
  var button = document.getElementById("x402-pay");
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
    if (data.decimals === undefined) return amount + " (smallest units)";
    var digits = BigInt(amount).toString().padStart(data.decimals + 1, "0");
    var cut = digits.length - data.decimals;
    var fraction = digits.slice(cut).replace(/0+$/, "");
    return digits.slice(0, cut) + (fraction ? "." + fraction : "") + " " + data.symbol;
  }
  function hex(bytes) {
    return Array.prototype.map
      .call(bytes, function (byte) {
        return byte.toString(16).padStart(2, "0");
      })
      .join("");
  }
  function base64Json(value) {
    var bytes = new TextEncoder().encode(JSON.stringify(value));
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary);
  }
  function decodeBase64Json(text) {
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return JSON.parse(new TextDecoder().decode(bytes));
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
    var payment = { x402Version: 2, payload: { authorization: authorization, signature: signature }, resource: required.resource, accepted: option };
    if (required.extensions) payment.extensions = required.extensions;
    return base64Json(payment);
  }

  async function show(response) {
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
    document.querySelector("h1").textContent = "Paid";
    say("paid", "Paid " + units(option.amount) + " on " + data.network + (transaction ? ". Transaction " + transaction : "") + ".");
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

  async function pay() {
    var wallet = window.ethereum;
    if (!wallet || typeof wallet.request !== "function") {
      throw new PayError("no_wallet", "No browser wallet found. Install one (an EIP-1193 wallet such as MetaMask), or pay with an x402 client.");
    }
    say("working", "Connecting your wallet…");
    var accounts = await ask(wallet, "eth_requestAccounts", undefined, "failed", "The wallet did not connect");
    var from = accounts && accounts[0];
    if (!from) throw new PayError("failed", "The wallet gave no account.");
    say("working", "Checking the network…");
    await switchChain(wallet);
    await checkBalance(wallet, from);
    say("working", "Sign the payment of " + units(option.amount) + " in your wallet…");
    var header = await sign(wallet, from);
    say("working", "Paying…");
    var response = await fetch(window.location.href, {
      headers: { "PAYMENT-SIGNATURE": header, Accept: "*/*" },
      credentials: "same-origin",
      cache: "no-store",
    });
    if (!response.ok) throw await refusal(response);
    await show(response);
  }

  if (!option) {
    button.disabled = true;
    say("error", "None of this resource's payment options can be paid from a browser wallet: use an x402 client.", "unpayable");
    return;
  }
  button.addEventListener("click", function () {
    button.disabled = true;
    pay().catch(function (error) {
      if (error instanceof PayError) say("error", error.message, error.kind);
      else say("error", "Payment failed: " + ((error && error.message) || String(error)), "failed");
      button.disabled = false;
    });
  });
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
[data-state="paid"] { color: #1b5e20; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0.75rem; border: 1px solid #8884; }
`;
