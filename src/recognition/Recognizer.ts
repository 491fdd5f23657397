/** Answers whether an EVM address is a recognized payer (`est_ouverte(address) == 0x1`). */
export interface Recognizer {
  /** Resolves the answer; a source may throw a {@link RecognitionError}, a cache in front of it never does. */
  isRecognized(address: string): Promise<boolean>;
}
