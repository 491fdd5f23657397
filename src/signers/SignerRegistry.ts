import type { SignerId } from "../protocol/cbor/profile.js";
import { EvmSigner, type EvmSignerOptions } from "./EvmSigner.js";
import { LayerTwoSigner, type LayerTwoSignerOptions } from "./LayerTwoSigner.js";
import { ServiceAuthSigner } from "./ServiceAuthSigner.js";
import { SIGNER_TABLE, backendNameOf } from "./SIGNER_TABLE.js";
import type { IntentToVerify, SignerBackend, SignerBackendName } from "./SignerBackend.js";

/** Why an intent's signer is refused before (or by) its backend; `undefined` when it verified. */
export type SignerRefusal =
  | { code: "signer_not_built"; backend: SignerBackendName; signer: SignerId; phase: string; message: string }
  | {
      code: "signer_not_accepted";
      backend: SignerBackendName;
      signer: SignerId;
      accepted: readonly SignerBackendName[];
      message: string;
    }
  | {
      code: "verification_failed" | "signer_rpc_not_configured";
      backend: SignerBackendName;
      signer: SignerId;
      message: string;
    };

/**
 * The signer backends this process verifies with, by subject form. {@link verifyIntent} picks the
 * backend the intent names, refuses one the route does not accept or this project has not built, and
 * lets the backend verify (which may throw SignerUnavailableError: fail closed).
 */
export class SignerRegistry {
  private readonly bySignerId = new Map<SignerId, SignerBackend>();

  constructor(backends: readonly SignerBackend[]) {
    for (const backend of backends) {
      for (const id of backend.signerIds) this.bySignerId.set(id, backend);
    }
  }

  /**
   * ServiceAuthSigner and LayerTwoSigner (with `layerTwo`'s chain id and node), and EvmSigner when an
   * EVM chain id is given (without one an `evm` intent is refused `signer_not_built`, "not enabled here").
   */
  static standard(layerTwo: LayerTwoSignerOptions = {}, evm?: EvmSignerOptions): SignerRegistry {
    const backends: SignerBackend[] = [new ServiceAuthSigner(), new LayerTwoSigner(layerTwo)];
    if (evm !== undefined) backends.push(new EvmSigner(evm));
    return new SignerRegistry(backends);
  }

  backend(name: SignerBackendName): SignerBackend | undefined {
    return [...this.bySignerId.values()].find((backend) => backend.name === name);
  }

  async verifyIntent(
    intent: IntentToVerify,
    accepted: readonly SignerBackendName[],
  ): Promise<SignerRefusal | undefined> {
    const signer: SignerId = intent.claim.signer ?? "service-auth";
    const name = backendNameOf(signer);
    const backend = this.bySignerId.get(signer);
    if (backend === undefined) {
      const { phase, built } = SIGNER_TABLE[name];
      return {
        code: "signer_not_built",
        backend: name,
        signer,
        phase,
        message: built
          ? `${name} (${signer}) is not enabled here`
          : `${name} (${signer}) is not built (seed phase: ${phase}): pay with another signer`,
      };
    }
    if (!accepted.includes(name)) {
      return {
        code: "signer_not_accepted",
        backend: name,
        signer,
        accepted,
        message: `this route does not accept ${name} intents: sign with ${accepted.join(" or ")}`,
      };
    }
    const verdict = await backend.verify(intent);
    if (verdict.valid) return undefined;
    const code = verdict.code ?? "verification_failed";
    return { code, backend: name, signer, message: verdict.reason };
  }
}
