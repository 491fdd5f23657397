/** A signer backend could not reach what it verifies against (the layer-2 node, an EVM RPC): fail closed. */
export class SignerUnavailableError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = "SignerUnavailableError";
  }
}
