/** The fields both EIP-3009 authorization types (`TransferWithAuthorization`, `ReceiveWithAuthorization`) sign, as EIP-712 types. */
export const AUTHORIZATION_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;
