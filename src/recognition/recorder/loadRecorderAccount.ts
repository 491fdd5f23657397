import { ec } from "starknet";
import { decryptKeystore } from "../../common/decryptKeystore.js";
import { minimalFelt } from "../../starknet/StarknetRpc.js";
import type { RecorderAccount } from "./StarknetInvoker.js";
import type { RecorderSettings } from "./recorderSettings.js";

/**
 * The recorder's account: its address and Stark private key, from the environment variable or the
 * keystore its settings name. Errors name the variable or the file, never the key.
 */
export async function loadRecorderAccount(
  settings: Pick<RecorderSettings, "account" | "privateKeyEnv" | "keystore">,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RecorderAccount> {
  let key: bigint;
  let where: string;
  if (settings.privateKeyEnv !== undefined) {
    where = `the environment variable ${settings.privateKeyEnv}`;
    const text = env[settings.privateKeyEnv];
    if (text === undefined || text === "") throw new Error(`recorder: ${where} is not set`);
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(text.trim()))
      throw new Error(`recorder: ${where} is not a felt (0x + hex)`);
    key = BigInt(text.trim());
  } else {
    const keystore = settings.keystore!;
    where = `the keystore ${keystore.file}`;
    const { privateKey } = await decryptKeystore({
      keystorePath: keystore.file,
      passwordPath: keystore.passwordFile,
    });
    key = BigInt(`0x${Buffer.from(privateKey).toString("hex")}`);
  }
  if (key <= 0n || key >= ec.starkCurve.CURVE.n)
    throw new Error(`recorder: ${where} holds no Stark private key (out of range)`);
  return { address: minimalFelt(settings.account), privateKey: minimalFelt(key) };
}
