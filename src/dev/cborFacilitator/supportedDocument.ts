import type { SigningKey } from "../../protocol/cbor/signatures.js";
import { STAND_IN_PROOF_NOTICE } from "../../protocol/cbor/standInProof.js";
import { publishedMaskKey, type MaskHpkeKey } from "../../protocol/cbor/masks/maskHpke.js";
import type { LayerTwoSignerOptions } from "../../signers/LayerTwoSigner.js";
import { LAYER_TWO_SIGNER_DEFAULTS } from "../../signers/layerTwoSignerDefaults.js";
import { DEMO_HUMANITY_ISSUER_LABEL, DEMO_HUMANITY_NOTICE } from "../demoHumanityIssuer.js";

/** What `GET /supported` answers: the kinds, signer backends, keys and the stand-ins, said plainly as such. */
export function supportedDocument(
  options: { layerTwo?: LayerTwoSignerOptions; evmChainId?: number; evmRpcUrl?: string },
  receiptKey: SigningKey,
  maskKey: MaskHpkeKey,
  humanityIssuer: SigningKey,
) {
  return {
    kinds: [{ x402Version: 2, scheme: "x402+cbor", network: "local" }],
    extensions: [],
    // The signer backends it verifies intents with (docs/cbor.md, Signer backends).
    signers: {
      ServiceAuthSigner: { algorithms: ["ed25519", "ml-dsa-65"] },
      LayerTwoSigner: {
        chainId: options.layerTwo?.chainId ?? LAYER_TWO_SIGNER_DEFAULTS.chainId,
        contractAccounts: options.layerTwo?.rpcUrl !== undefined,
      },
      EvmSigner: { chainId: options.evmChainId ?? 31337, contractWallets: options.evmRpcUrl !== undefined },
    },
    receiptKey: { algorithm: "ed25519", publicKey: Buffer.from(receiptKey.publicKey).toString("base64") },
    hpkeKey: publishedMaskKey(maskKey), // opens what revelation masks hide (docs/cbor.md)
    proof: { kind: "stand-in", verified: false, notice: STAND_IN_PROOF_NOTICE },
    humanityIssuer: {
      algorithm: humanityIssuer.algorithm,
      publicKey: Buffer.from(humanityIssuer.publicKey).toString("hex"),
      label: DEMO_HUMANITY_ISSUER_LABEL,
      notice: DEMO_HUMANITY_NOTICE,
    },
  };
}
