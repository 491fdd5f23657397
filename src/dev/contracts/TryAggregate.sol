// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TryAggregate
/// @notice Batches read calls with the `tryAggregate` interface of Multicall3. The local stack installs its
/// code at Multicall3's canonical address (present on public chains, absent on a fresh anvil), where the
/// x402 EVM facilitator reads a token's balance, name, version and nonce state to explain a failed payment.
contract TryAggregate {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            require(success || !requireSuccess, "TryAggregate: call failed");
            returnData[i] = Result(success, data);
        }
    }
}
