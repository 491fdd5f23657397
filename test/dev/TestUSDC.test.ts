import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, parseSignature, type WalletClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deployTestToken, type TestToken } from "../../src/dev/deployTestToken.js";
import { devAccount } from "../../src/dev/devAccounts.js";
import { signTransferAuthorization } from "../../src/dev/signTransferAuthorization.js";
import { startAnvil, type AnvilNode } from "../../src/dev/startAnvil.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";

const deployer = devAccount(0);
const payer = privateKeyToAccount(devAccount(1).privateKey);
const payee = devAccount(2);
const relayer = devAccount(3);

let node: AnvilNode;
let token: TestToken;
let relayerWallet: WalletClient;
let payeeWallet: WalletClient;

beforeAll(async () => {
  node = await startAnvil();
  token = await deployTestToken({
    rpcUrl: node.rpcUrl,
    chain: node.chain,
    publicClient: node.publicClient,
    deployerPrivateKey: deployer.privateKey,
    mint: [{ to: payer.address, amount: 100_000_000n }],
  });
  const wallet = (key: `0x${string}`) =>
    createWalletClient({
      account: privateKeyToAccount(key),
      chain: node.chain,
      transport: http(node.rpcUrl),
    });
  relayerWallet = wallet(relayer.privateKey);
  payeeWallet = wallet(payee.privateKey);
});

afterAll(async () => {
  await node?.stop();
});

const balanceOf = (address: `0x${string}`) =>
  node.publicClient.readContract({
    address: token.address,
    abi: testUSDCAbi,
    functionName: "balanceOf",
    args: [address],
  });

const inOneHour = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

async function mined(hash: `0x${string}`) {
  return node.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 });
}

describe("TestUSDC (EIP-3009 token)", () => {
  it("has the USDC EIP-712 domain, 6 decimals, and funds the payer", async () => {
    const read = <T>(functionName: "name" | "version" | "decimals" | "symbol") =>
      node.publicClient.readContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName,
      }) as Promise<T>;
    expect(await read("name")).toBe("USDC");
    expect(await read("version")).toBe("2");
    expect(await read("decimals")).toBe(6);
    const domain = await node.publicClient.readContract({
      address: token.address,
      abi: testUSDCAbi,
      functionName: "eip712Domain",
    });
    expect(domain[1]).toBe("USDC");
    expect(domain[2]).toBe("2");
    expect(domain[3]).toBe(31337n);
    expect(domain[4]).toBe(token.address);
    expect(await balanceOf(payer.address)).toBe(100_000_000n);
  });

  it("only lets the deployer mint", async () => {
    await expect(
      relayerWallet.writeContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "mint",
        args: [relayer.address, 1n],
        account: relayerWallet.account!,
        chain: node.chain,
      }),
    ).rejects.toThrow(/caller is not the minter/);
  });

  it("transferWithAuthorization (v, r, s) moves the funds once, then refuses the same nonce", async () => {
    const signed = await signTransferAuthorization({
      account: payer,
      token,
      chainId: 31337,
      to: payee.address,
      value: 1_500_000n,
      validBefore: inOneHour(),
    });
    const { v, r, s } = parseSignature(signed.signature);
    const a = signed.authorization;
    const args = [
      a.from,
      a.to,
      BigInt(a.value),
      0n,
      BigInt(a.validBefore),
      a.nonce,
      Number(v),
      r,
      s,
    ] as const;
    const before = { payer: await balanceOf(payer.address), payee: await balanceOf(payee.address) };
    expect(
      await node.publicClient.readContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "authorizationState",
        args: [a.from, a.nonce],
      }),
    ).toBe(false);
    const receipt = await mined(
      await relayerWallet.writeContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "transferWithAuthorization",
        args,
        account: relayerWallet.account!,
        chain: node.chain,
      }),
    );
    expect(receipt.status).toBe("success");
    expect(await balanceOf(payer.address)).toBe(before.payer - 1_500_000n);
    expect(await balanceOf(payee.address)).toBe(before.payee + 1_500_000n);
    expect(
      await node.publicClient.readContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "authorizationState",
        args: [a.from, a.nonce],
      }),
    ).toBe(true);
    await expect(
      node.publicClient.simulateContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "transferWithAuthorization",
        args,
        account: relayer.address,
      }),
    ).rejects.toThrow(/authorization is used or canceled/);
  });

  it("transferWithAuthorization (bytes signature) works too; a tampered value is an invalid signature", async () => {
    const signed = await signTransferAuthorization({
      account: payer,
      token,
      chainId: 31337,
      to: payee.address,
      value: 2_000_000n,
      validBefore: inOneHour(),
    });
    const a = signed.authorization;
    const call = (value: bigint) =>
      node.publicClient.simulateContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "transferWithAuthorization",
        args: [a.from, a.to, value, 0n, BigInt(a.validBefore), a.nonce, signed.signature],
        account: relayer.address,
      });
    await expect(call(2_000_001n)).rejects.toThrow(/invalid signature/);
    await expect(call(2_000_000n)).resolves.toBeDefined();
  });

  it("refuses an expired authorization and a malleable (high-s) signature", async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const expired = await signTransferAuthorization({
      account: payer,
      token,
      chainId: 31337,
      to: payee.address,
      value: 1n,
      validBefore: now - 60n,
    });
    const e = expired.authorization;
    await expect(
      node.publicClient.simulateContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "transferWithAuthorization",
        args: [e.from, e.to, 1n, 0n, BigInt(e.validBefore), e.nonce, expired.signature],
        account: relayer.address,
      }),
    ).rejects.toThrow(/authorization is expired/);

    const fresh = await signTransferAuthorization({
      account: payer,
      token,
      chainId: 31337,
      to: payee.address,
      value: 1n,
      validBefore: inOneHour(),
    });
    const f = fresh.authorization;
    const { r, s, yParity } = parseSignature(fresh.signature);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = `0x${(n - BigInt(s)).toString(16).padStart(64, "0")}` as const;
    await expect(
      node.publicClient.simulateContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "transferWithAuthorization",
        args: [f.from, f.to, 1n, 0n, BigInt(f.validBefore), f.nonce, yParity === 0 ? 28 : 27, r, highS],
        account: relayer.address,
      }),
    ).rejects.toThrow(/invalid signature s/);
  });

  it("receiveWithAuthorization must be called by the payee", async () => {
    const signed = await signTransferAuthorization({
      account: payer,
      token: { address: token.address, name: "USDC", version: "2" },
      chainId: 31337,
      to: payee.address,
      value: 3n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600),
      receive: true,
    });
    const { v, r, s } = parseSignature(signed.signature);
    const { from, to, value, validAfter, validBefore, nonce } = signed.authorization;
    const args = [
      from,
      to,
      BigInt(value),
      BigInt(validAfter),
      BigInt(validBefore),
      nonce,
      Number(v),
      r,
      s,
    ] as const;
    await expect(
      node.publicClient.simulateContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "receiveWithAuthorization",
        args,
        account: relayer.address,
      }),
    ).rejects.toThrow(/caller must be the payee/);
    const before = await balanceOf(payee.address);
    const receipt = await mined(
      await payeeWallet.writeContract({
        address: token.address,
        abi: testUSDCAbi,
        functionName: "receiveWithAuthorization",
        args,
        account: payeeWallet.account!,
        chain: node.chain,
      }),
    );
    expect(receipt.status).toBe("success");
    expect(await balanceOf(payee.address)).toBe(before + 3n);
  });
});
