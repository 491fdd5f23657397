import { checksumAddress } from "../protocol/checksumAddress.js";

/** The fields of an EIP-4361 message, as the sign-in payload carries them. */
export interface SiweFields {
  domain: string;
  /** EVM address; written EIP-55 checksummed. */
  address: string;
  statement?: string;
  uri: string;
  version: string;
  /** Numeric EVM chain id (the reference of `eip155:<id>`). */
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/**
 * The EIP-4361 (Sign-In with Ethereum) text a wallet signs for these fields, byte for byte as the
 * x402 client helpers produce it: header, checksummed address, optional statement, then the
 * `Key: value` lines in the order of the specification.
 */
export function buildSiweMessage(fields: SiweFields): string {
  const header = `${fields.domain} wants you to sign in with your Ethereum account:\n${checksumAddress(fields.address)}`;
  // With no statement the specification leaves two empty lines before `URI:`.
  const preamble = fields.statement === undefined ? `${header}\n\n` : `${header}\n\n${fields.statement}\n`;
  const lines = [
    `URI: ${fields.uri}`,
    `Version: ${fields.version}`,
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt}`,
  ];
  if (fields.expirationTime) lines.push(`Expiration Time: ${fields.expirationTime}`);
  if (fields.notBefore) lines.push(`Not Before: ${fields.notBefore}`);
  if (fields.requestId !== undefined) lines.push(`Request ID: ${fields.requestId}`);
  if (fields.resources !== undefined)
    lines.push(["Resources:", ...fields.resources.map((r) => `- ${r}`)].join("\n"));
  return `${preamble}\n${lines.join("\n")}`;
}
