import type { Facilitator } from "../../facilitator/Facilitator.js";
import { GatewayError } from "../../protocol/errors.js";
import { isSvmNetwork, type PaymentRequirements } from "../../protocol/schemas.js";

/** Whether an option is on Solana and names no fee payer yet (the facilitator's comes from `/supported`). */
const lacksFeePayer = (option: PaymentRequirements): boolean =>
  isSvmNetwork(option.network) && typeof option.extra?.feePayer !== "string";

/**
 * The fee payers of Solana options: on Solana the facilitator pays the transaction fee and signs last, so each
 * offer names its key (`extra.feePayer`), which the facilitator lists in `/supported`. Read once, when the
 * first Solana offer is needed; a failed read is retried by the next request (until then: 503).
 */
export class SolanaFeePayers {
  private known: Map<string, string> | undefined;
  private reading: Promise<Map<string, string>> | undefined;

  constructor(private readonly facilitator: Facilitator) {}

  /** Whether `requirements` has a Solana option waiting for its fee payer. */
  static needed(requirements: readonly PaymentRequirements[] | undefined): boolean {
    return requirements?.some(lacksFeePayer) ?? false;
  }

  /** Writes each Solana option's fee payer into its `extra` (in place: a static route's options are filled once). */
  async fill(requirements: readonly PaymentRequirements[]): Promise<void> {
    if (!SolanaFeePayers.needed(requirements)) return;
    const known = this.known ?? (await this.read());
    for (const option of requirements) {
      if (!lacksFeePayer(option)) continue;
      const feePayer = known.get(`${option.scheme}|${option.network}`);
      if (feePayer === undefined) {
        throw new GatewayError(
          "facilitator_error",
          `the facilitator's /supported names no fee payer for ${option.scheme} on ${option.network}`,
          { details: { scheme: option.scheme, network: option.network } },
        );
      }
      option.extra = { ...(option.extra ?? {}), feePayer };
    }
  }

  private read(): Promise<Map<string, string>> {
    this.reading ??= this.facilitator
      .supported()
      .then((supported) => {
        const known = new Map<string, string>();
        for (const kind of supported.kinds) {
          const feePayer = kind.extra?.feePayer;
          if (kind.x402Version === 2 && isSvmNetwork(kind.network) && typeof feePayer === "string")
            known.set(`${kind.scheme}|${kind.network}`, feePayer);
        }
        this.known = known;
        return known;
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}
