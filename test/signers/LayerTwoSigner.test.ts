import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAND_IN_CHAIN_NAME, startStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import type { RunningStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import { starknetIntentKey } from "../../src/payer/starknetIntentKey.js";
import { decodeQuantifiedClaim, encodeClaim } from "../../src/protocol/cbor/Claim.js";
import { LayerTwoSigner } from "../../src/signers/LayerTwoSigner.js";
import { SignerUnavailableError } from "../../src/signers/SignerUnavailableError.js";

let node: RunningStarknetStandIn;
beforeAll(async () => {
  node = await startStarknetStandIn();
});
afterAll(() => node?.stop());

async function signedIntent(time: number) {
  const account = node.devAccounts[1]!;
  const key = await starknetIntentKey({
    privateKey: account.privateKey,
    account: account.address,
    chainId: STAND_IN_CHAIN_NAME,
  });
  const bytes = encodeClaim({
    subject: key.publicKey,
    signer: key.signer,
    predicate: "pays",
    object: "merchant",
    quantity: { currency: "STRK", amount: 10n ** 18n },
    time,
    context: new Uint8Array(32).fill(9),
  });
  return { bytes, claim: decodeQuantifiedClaim(bytes), signature: key.sign(bytes) };
}

describe("LayerTwoSigner: contract accounts through the node, cached, fail closed", () => {
  it("one is_valid_signature call per (account, hash, signature): repeats and concurrent checks share it", async () => {
    const signer = new LayerTwoSigner({ chainId: STAND_IN_CHAIN_NAME, rpcUrl: node.url });
    const intent = await signedIntent(1_800_000_000);
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => signer.verify(intent)));
    expect(verdicts.every((verdict) => verdict.valid)).toBe(true);
    expect(await signer.verify(intent)).toEqual({ valid: true });
    expect(signer.stats.calls).toBe(1);
    // Another intent is another call; a tampered signature is refused and its verdict kept too.
    const other = await signedIntent(1_800_000_001);
    const tampered = {
      ...other,
      signature: other.signature.map((byte, index) => (index === 63 ? byte ^ 1 : byte)),
    };
    expect((await signer.verify(tampered)).valid).toBe(false);
    expect((await signer.verify(other)).valid).toBe(true);
    expect(signer.stats.calls).toBe(3);
  });

  it("a verdict older than cacheTtlMs is asked again", async () => {
    const signer = new LayerTwoSigner({ chainId: STAND_IN_CHAIN_NAME, rpcUrl: node.url, cacheTtlMs: 1 });
    const intent = await signedIntent(1_800_000_002);
    await signer.verify(intent);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await signer.verify(intent);
    expect(signer.stats.calls).toBe(2);
  });

  it("no node configured, or a node that does not answer: SignerUnavailableError, never a verdict", async () => {
    const intent = await signedIntent(1_800_000_003);
    await expect(new LayerTwoSigner({ chainId: STAND_IN_CHAIN_NAME }).verify(intent)).rejects.toBeInstanceOf(
      SignerUnavailableError,
    );
    const stopped = await startStarknetStandIn();
    const url = stopped.url;
    await stopped.stop();
    const signer = new LayerTwoSigner({ chainId: STAND_IN_CHAIN_NAME, rpcUrl: url, timeoutMs: 2_000 });
    await expect(signer.verify(intent)).rejects.toBeInstanceOf(SignerUnavailableError);
    // Errors are not cached: the same check fails again (it is asked again), still closed.
    await expect(signer.verify(intent)).rejects.toBeInstanceOf(SignerUnavailableError);
    expect(signer.stats.calls).toBe(2);
  });

  it("an address with no account, on a live node, is a refusal (402), not unavailable", async () => {
    const signer = new LayerTwoSigner({ chainId: STAND_IN_CHAIN_NAME, rpcUrl: node.url });
    const intent = await signedIntent(1_800_000_004);
    const nobody = { ...intent, claim: { ...intent.claim, subject: new Uint8Array(32).fill(1) } };
    expect(await signer.verify(nobody)).toMatchObject({ valid: false });
  });
});
