import { z } from "zod/v4";

/** A TLS listener's certificate and key (the gateway's `listen.tls`, the staking backend's `server.tls`). */
export const tlsSettingsSchema = z.strictObject({
  /** PEM certificate chain file. */
  certFile: z.string().min(1),
  /** PEM private key file. */
  keyFile: z.string().min(1),
});
export type TlsSettings = z.infer<typeof tlsSettingsSchema>;
