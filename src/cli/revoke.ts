import { parseArgs } from "node:util";
import { ConfigError } from "../config/ConfigError.js";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { loadConfig } from "../config/loadConfig.js";
import { BaseError } from "../common/BaseError.js";
import { silentLogger } from "../common/Logger.js";
import { parseRevocationRequest } from "../recognition/parseRevocationRequest.js";
import { parsePublicKeys } from "../protocol/cbor/publicKeyList.js";
import { RedisRevokedPayers } from "../recognition/RedisRevokedPayers.js";
import { redisKeyPrefixes } from "../recognition/redisKeyPrefixes.js";
import { revocationHoldMs } from "../recognition/revocationSettings.js";
import { recognitionsOf } from "../recognition/recognitionsOf.js";
import { revokePayer } from "../recognition/revokePayer.js";
import type { CommandIo } from "./recognize.js";

export const REVOKE_USAGE = `Usage: x402-gateway revoke --config <file> --payer <address> [--reason <text>] [--revocation <base64>] [--url <gateway>]

Revokes a payer's recognition (its payment was refunded): every gateway instance stops admitting
its sign-in at once and keeps refusing it for revocation.holdMs, whatever the chain still answers.

With a Redis ledger (ledger: { type: redis }) the revocation is written to Redis and published,
so every running instance drops the payer. Otherwise it is POSTed to the running gateway's admin
endpoint (admin.enabled, admin.token) at the config's listen address, or at --url.

  --config  the gateway's config file (required)
  --payer   the payer's EVM address (0x + 40 hex digits, any case), or with --revocation the
            x402+cbor payer id it names (ed25519:<64 hex>, as the refund's receipt says); required
  --reason  why, e.g. refund (logged; at most 200 printable characters)
  --revocation  the facilitator's signed revocation of the refunded receipt (base64, as its
            /refund answers it): checked against revocation.trustedSigners, and refused unless it
            names --payer (then nothing is revoked)
  --url     base URL of the gateway to POST to (default: from listen), without a Redis ledger
  --help    this text

Prints {"revoked":true,"payer":…,"until":…} on success.
Exit status: 0 when revoked, 1 when it could not be (Redis or the gateway unreachable, token refused,
no way to reach the instances), 2 on a usage error.`;

/** Timeout of the POST to the admin endpoint, in ms. */
const POST_TIMEOUT_MS = 10_000;

/** `x402-gateway revoke`: resolves the exit status; never calls `process.exit`. */
export async function runRevoke(
  argv: string[],
  io: CommandIo,
  fetchImpl: typeof fetch = fetch,
): Promise<number> {
  const usageError = (message: string): number => {
    io.stderr.write(`x402-gateway revoke: ${message}\n\n${REVOKE_USAGE}\n`);
    return 2;
  };
  const fail = (message: string): number => {
    io.stderr.write(`x402-gateway revoke: ${message}\n`);
    return 1;
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: "string" },
        payer: { type: "string" },
        reason: { type: "string" },
        revocation: { type: "string" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.help) {
    io.stdout.write(`${REVOKE_USAGE}\n`);
    return 0;
  }
  if (values.config === undefined) return usageError("--config <file> is required");
  if (values.payer === undefined) return usageError("--payer <address> is required");
  let request;
  try {
    request = parseRevocationRequest({
      payer: values.payer,
      reason: values.reason,
      revocation: values.revocation,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  let config: GatewayConfig;
  try {
    config = await loadConfig(values.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(error.message);
  }

  if (config.ledger.type === "redis") {
    if (values.url !== undefined) return usageError("--url is for a gateway without a Redis ledger");
    const revokedPayers = new RedisRevokedPayers({
      url: config.ledger.url,
      cluster: config.ledger.cluster,
      sentinel: config.ledger.sentinel,
      keyPrefix: redisKeyPrefixes(config.ledger, config.revocation).revoked,
      commandTimeoutMs: config.ledger.commandTimeoutMs,
      holdMs: revocationHoldMs(config.revocation?.holdMs, recognitionsOf(config)),
    });
    try {
      const receipt = await revokePayer(
        revokedPayers,
        request,
        silentLogger,
        parsePublicKeys(config.revocation?.trustedSigners ?? [], "revocation.trustedSigners"),
      );
      io.stdout.write(`${JSON.stringify({ ...receipt, until: new Date(receipt.until).toISOString() })}\n`);
      return 0;
    } catch (error) {
      return fail(error instanceof BaseError ? `${error.code}: ${error.message}` : (error as Error).message);
    } finally {
      await revokedPayers.close();
    }
  }

  if (!config.admin.enabled || config.admin.token === undefined) {
    return fail(
      `${values.config} has an in-memory ledger and no admin endpoint: enable admin (admin: { enabled: true, token: \${X402_ADMIN_TOKEN} }) so the running gateway can be told, or use a Redis ledger`,
    );
  }
  const target = `${(values.url ?? listenUrl(config)).replace(/\/+$/, "")}${config.admin.path}/revocations`;
  let response: Response;
  try {
    response = await fetchImpl(target, {
      method: "POST",
      headers: { authorization: `Bearer ${config.admin.token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      redirect: "error",
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return fail(`cannot reach the gateway at ${target}: ${cause}`);
  }
  const text = await response.text();
  if (response.status === 200) {
    io.stdout.write(`${text.trim()}\n`);
    return 0;
  }
  let code = "";
  let message = text.slice(0, 500);
  try {
    ({ error: code, message } = JSON.parse(text) as { error: string; message: string });
  } catch {
    // Not the gateway's error body: show what came back.
  }
  if (response.status === 401) {
    return fail(
      `the gateway refused admin.token from ${values.config} (401 ${code}): is it the token the gateway runs with?`,
    );
  }
  if (response.status === 404) {
    return fail(
      `no admin endpoint at ${target} (HTTP 404): is admin.enabled in the running gateway's config?`,
    );
  }
  return fail(`the gateway answered ${response.status}${code ? ` ${code}` : ""}: ${message}`);
}

/** Where the gateway listens, as a URL a client on this host can use. */
function listenUrl(config: GatewayConfig): string {
  const scheme = config.listen.tls ? "https" : "http";
  const host = config.listen.host;
  const reachable =
    host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `${scheme}://${reachable}:${config.listen.port}`;
}
