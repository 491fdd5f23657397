import type { AddressInfo } from "node:net";

/** A listening address's host as a URL names it: a wildcard shown as loopback, IPv6 in brackets. */
export function shownHost(address: AddressInfo): string {
  const shown =
    address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return shown.includes(":") ? `[${shown}]` : shown;
}
