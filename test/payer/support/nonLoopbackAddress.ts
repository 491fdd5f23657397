import { networkInterfaces } from "node:os";

/** An IPv4 address of this machine that is not loopback (a payee "elsewhere" that still answers), if any. */
export function nonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return undefined;
}
