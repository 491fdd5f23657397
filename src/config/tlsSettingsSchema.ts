import { z } from "zod/v4";

/** A TLS listener's certificate and key (the gateway's `listen.tls`, the staking backend's `server.tls`). */
export const tlsSettingsSchema = z.strictObject({
  /** PEM certificate chain file. */
  certFile: z.string().min(1).meta({ description: "PEM certificate chain file." }),
  /** PEM private key file. */
  keyFile: z.string().min(1).meta({ description: "PEM private key file." }),
});
export type TlsSettings = z.infer<typeof tlsSettingsSchema>;
