import { isHttpsOrLoopbackUrl } from "../common/isHttpsOrLoopbackUrl.js";
import { isTestNetwork } from "../protocol/isTestNetwork.js";

/** Where a payer may send a `PAYMENT-SIGNATURE` or a sign-in (docs/hardening.md, "The payer tools keep TLS mandatory (issue 31, item 6)"). */
export interface TransportPolicy {
  /**
   * Send them over plain HTTP to a host that is not loopback, when the signature is for a test network
   * (`isTestNetwork`); a signature for a mainnet, or one that names no network (CBOR), never. Default false.
   */
  allowInsecureHttp?: boolean | undefined;
  /** The setting a user changes to allow it, named in the refusal (e.g. `--allow-insecure-http`). */
  setting?: string | undefined;
}

/**
 * Why a signed request (a payment or a sign-in for `network`, a CAIP-2 id when it names one) must not go to
 * `url`, or undefined when it may: `https://`, `http://` to loopback, or plain HTTP that `policy` allows
 * for a test network. The one check of every payer tool (MCP payer, `npm run pay`, the CBOR payer).
 */
export function insecureTransportProblem(
  url: string,
  network: string | undefined,
  policy: TransportPolicy = {},
): string | undefined {
  if (isHttpsOrLoopbackUrl(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol !== "http:")
    return `${parsed.protocol} is not HTTPS: a payment or a sign-in goes over https:// only`;
  const where = `plain HTTP to ${parsed.host}, which is not loopback`;
  if (policy.allowInsecureHttp !== true) {
    const allow = policy.setting === undefined ? "" : `, or set ${policy.setting} (test networks only)`;
    return `refused to send a payment or a sign-in over ${where}: TLS is mandatory; use https://${allow}`;
  }
  if (network === undefined || !isTestNetwork(network))
    return `refused to send a payment or a sign-in over ${where}: ${policy.setting ?? "allowInsecureHttp"} allows plain HTTP for test networks only, and ${network === undefined ? "this one names no network" : `${network} is not one`}`;
  return undefined;
}
