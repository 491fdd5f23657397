import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { startPaywallPageStack, type PaywallPageStack } from "../../src/dev/startPaywallPageStack.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { PAYWALL_PAGE_SCRIPT } from "../../src/paywall/page/paywallPageScript.js";

// The page's own script, run in Node against the real gateway (recognition on the layer-2 stand-in), with
// the few DOM elements it touches stubbed and a viem-backed EIP-1193 wallet; the same flow runs in
// Chromium in test/e2e/browserPaywall.test.ts where a Chromium is installed.

let stage: PaywallPageStack;

beforeAll(async () => {
  stage = await startPaywallPageStack(
    { "GET /member": { description: "The members' report" } },
    { recognized: ["GET /member"] },
  );
}, 120_000);
afterAll(async () => {
  await stage?.stop();
});

class StubElement {
  hidden = false;
  disabled = false;
  textContent = "";
  readonly attributes = new Map<string, string>();
  readonly listeners: Array<() => void> = [];
  setAttribute(name: string, value: string) {
    this.attributes.set(name, value);
  }
  getAttribute(name: string) {
    return this.attributes.get(name) ?? null;
  }
  removeAttribute(name: string) {
    this.attributes.delete(name);
  }
  addEventListener(_type: string, listener: () => void) {
    this.listeners.push(listener);
  }
  appendChild() {}
}

/** Loads `path` as a browser would (its HTML), and runs the page's script with `privateKey`'s wallet. */
async function openPage(path: string, privateKey: `0x${string}`) {
  const url = `${stage.url}${path}`;
  const html = await (await fetch(url, { headers: { accept: "text/html" } })).text();
  const offer = /<script type="application\/json" id="x402-offer">([\s\S]*?)<\/script>/.exec(html)![1]!;
  const ids = ["x402-app", "x402-pay", "x402-sign-in", "x402-status", "x402-result", "x402-body"];
  const elements = new Map(ids.map((id) => [id, new StubElement()]));
  elements.get("x402-sign-in")!.hidden = /id="x402-sign-in"[^>]*hidden/.test(html);
  const offerElement = Object.assign(new StubElement(), { textContent: offer });
  const h1 = new StubElement();
  const document = {
    getElementById: (id: string) => (id === "x402-offer" ? offerElement : (elements.get(id) ?? null)),
    querySelector: (selector: string) => (selector === "h1" ? h1 : null),
  };
  const account = privateKeyToAccount(privateKey);
  const requests: string[] = [];
  const sent: Array<Record<string, string>> = [];
  const window = {
    location: { href: url },
    ethereum: {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        requests.push(method);
        if (method === "eth_requestAccounts") return [account.address.toLowerCase()];
        if (method === "personal_sign") return account.signMessage({ message: params![0] as string });
        throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
      },
    },
  };
  const pageFetch = (input: string, init: { headers: Record<string, string> }) => {
    sent.push(init.headers);
    return fetch(input, init);
  };
  new Function("document", "window", "fetch", PAYWALL_PAGE_SCRIPT)(document, window, pageFetch);
  const status = elements.get("x402-status")!;
  const signIn = async () => {
    for (const listener of elements.get("x402-sign-in")!.listeners) listener();
    await expect.poll(() => status.getAttribute("data-state"), { timeout: 10_000 }).not.toBe("working");
  };
  return { elements, h1, status, signIn, requests, sent };
}

describe("the paywall page offers sign-in on a recognition route (its script, against the gateway)", () => {
  it("an unrecorded payer is told it is not recognized; nothing is paid", async () => {
    const page = await openPage("/member", devAccount(5).privateKey);
    expect(page.elements.get("x402-sign-in")!.listeners).toHaveLength(1);
    await page.signIn();
    expect(page.status.getAttribute("data-state")).toBe("error");
    expect(page.status.getAttribute("data-error")).toBe("not_recognized");
    expect(page.requests).toEqual(["eth_requestAccounts", "personal_sign"]);
  });

  it("a recorded payer signs in (EIP-55 address in the signed message) and gets the resource; nothing is paid", async () => {
    stage.stack.layer2.record(stage.stack.accounts.payer.address);
    const payee = await stage.stack.balanceOf(stage.stack.accounts.payee.address);
    const settles = stage.stack.facilitator.calls.settle;
    const page = await openPage("/member", stage.stack.accounts.payer.privateKey);
    await page.signIn();
    expect(page.status.getAttribute("data-state")).toBe("signed_in");
    expect(page.h1.textContent).toBe("Signed in");
    expect(page.elements.get("x402-body")!.textContent).toContain("Staking report");
    const [headers] = page.sent;
    expect(headers!["PAYMENT-SIGNATURE"]).toBeUndefined();
    expect(decodeBase64Json(headers!["SIGN-IN-WITH-X"]!)).toMatchObject({
      address: stage.stack.accounts.payer.address,
      type: "eip191",
      chainId: "eip155:31337",
    });
    expect(page.requests).not.toContain("eth_signTypedData_v4");
    expect(await stage.stack.balanceOf(stage.stack.accounts.payee.address)).toBe(payee);
    expect(stage.stack.facilitator.calls.settle).toBe(settles);
  });

  it("a route without recognition offers no sign-in", async () => {
    const page = await openPage("/report", stage.stack.accounts.payer.privateKey);
    expect(page.elements.get("x402-sign-in")!.listeners).toHaveLength(0);
  });
});
