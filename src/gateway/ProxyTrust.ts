import { BlockList, isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { PeerReading } from "../adapters/nodeRequestFacts.js";

/** The ranges the config's names stand for (as Express's `trust proxy` reads them). */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ["127.0.0.1/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/**
 * The last comma-separated value of a header, trimmed (`X-Forwarded-Proto: https, http` → `http`): the
 * one the trusted hop appended; what comes before it is what that hop's own client claimed.
 */
function lastValue(value: string): string {
  return value.slice(value.lastIndexOf(",") + 1).trim();
}

const SPACES_AROUND = /^ +| +$/g;

/** The 16-bit groups of an IPv6 address (already known valid), a dotted IPv4 tail as two groups. */
function ipv6Groups(address: string): number[] {
  const bare = address.split("%")[0] as string;
  const words = (text: string): number[] =>
    text === ""
      ? []
      : text.split(":").flatMap((part) => {
          if (!part.includes(".")) return [parseInt(part, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = part.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = bare.indexOf("::");
  if (gap === -1) return words(bare);
  const head = words(bare.slice(0, gap));
  const tail = words(bare.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** `::ffff:a.b.c.d` (in any spelling) as `a.b.c.d`; `undefined` for any other IPv6 address. */
function mappedIPv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return undefined;
  const [high = 0, low = 0] = groups.slice(6);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * Which peers' `X-Forwarded-*` headers are believed (the config's `trustProxy`: IPs, CIDRs, or
 * loopback/linklocal/uniquelocal), and what a request's client address, protocol and host are then:
 * the same readings as Express's `req.ip`, `req.protocol` and `req.host` under `trust proxy`. An
 * IPv4-mapped IPv6 address is read as its IPv4 address and matches IPv4 entries only; a mapped entry
 * counts as IPv4 when its prefix covers the `::ffff:` marker, and matches nothing otherwise.
 */
export class ProxyTrust implements PeerReading {
  private readonly v4: BlockList | undefined;
  private readonly v6 = new BlockList();

  constructor(entries: readonly string[]) {
    if (entries.length === 0) return;
    const v4 = new BlockList();
    for (const entry of entries.flatMap((name) => NAMED_RANGES[name] ?? [name])) {
      const [address = "", bitsText] = entry.split("/");
      if (isIP(address) === 4) {
        v4.addSubnet(address, bitsText === undefined ? 32 : Number(bitsText), "ipv4");
        continue;
      }
      const bits = bitsText === undefined ? 128 : Number(bitsText);
      const mapped = mappedIPv4(address);
      if (mapped === undefined) this.v6.addSubnet(address, bits, "ipv6");
      else if (bits >= 96) v4.addSubnet(mapped, bits - 96, "ipv4");
    }
    this.v4 = v4;
  }

  /** Whether a peer at `address` is a trusted proxy. */
  trusts(address: string | undefined): boolean {
    if (this.v4 === undefined || address === undefined) return false;
    const family = isIP(address);
    if (family === 4) return this.v4.check(address, "ipv4");
    if (family === 0) return false;
    const mapped = mappedIPv4(address);
    return mapped === undefined ? this.v6.check(address, "ipv6") : this.v4.check(mapped, "ipv4");
  }

  /**
   * The client's address: walking `X-Forwarded-For` from the nearest hop back, the first address that
   * is not a trusted proxy (or the farthest one given, when every hop is trusted).
   */
  clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "";
    if (this.v4 === undefined || !this.trusts(peer)) return peer;
    const header = req.headers["x-forwarded-for"];
    if (header === undefined) return peer;
    const hops = String(header).split(",");
    let address = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      // Entries are trimmed of spaces, and empty ones skipped, as Express's `forwarded` reads them.
      const hop = (hops[i] as string).replace(SPACES_AROUND, "");
      if (hop === "") continue;
      if (!this.trusts(address)) return address;
      address = hop;
    }
    return address;
  }

  /** `https` over TLS; from a trusted proxy, the value its `X-Forwarded-Proto` ends with; else `http`. */
  protocol(req: IncomingMessage): string {
    const own = (req.socket as Partial<TLSSocket>).encrypted === true ? "https" : "http";
    if (this.v4 === undefined || !this.trusts(req.socket.remoteAddress)) return own;
    const header = req.headers["x-forwarded-proto"];
    const value = typeof header === "string" ? lastValue(header) : "";
    return value !== "" ? value : own;
  }

  /** The host the client asked for: a trusted proxy's `X-Forwarded-Host`, else `Host`. */
  host(req: IncomingMessage): string | undefined {
    const forwarded = req.headers["x-forwarded-host"];
    if (typeof forwarded === "string" && forwarded !== "" && this.trusts(req.socket.remoteAddress))
      return forwarded.split(",")[0]?.trimEnd() || undefined;
    return req.headers.host || undefined;
  }
}
