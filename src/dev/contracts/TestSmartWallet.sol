// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestSmartWallet
/// @notice A minimal EIP-1271 contract wallet for local tests: one owner, set at deployment. A signature is
/// valid for this wallet when it is the owner's 65-byte ECDSA signature (r, s, v) over the very hash asked
/// about: for a CBOR payment intent, the intent's EIP-712 digest with this wallet as `payer`. Not for
/// production: no recovery, no rotation, no execution.
contract TestSmartWallet {
    /// EIP-1271's answer for a valid signature: bytes4(keccak256("isValidSignature(bytes32,bytes)")).
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;
    /// secp256k1's group order halved: a larger `s` is the malleable twin (EIP-2).
    uint256 internal constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    address public immutable owner;

    constructor(address owner_) {
        require(owner_ != address(0), "owner is the zero address");
        owner = owner_;
    }

    /// @notice EIP-1271: MAGIC_VALUE iff `signature` is the owner's ECDSA signature over `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : INVALID;
    }
}
