import { starknetDevAccount } from "../../../../src/dev/starknetDevAccounts.js";
import { STAND_IN_RECORD_ENTRYPOINT } from "../../../../src/dev/starknetStandIn/answerStarknetRpc.js";
import type { RecordingQueue } from "../../../../src/recognition/recorder/RecordingQueue.js";
import { SqliteRecordingQueue } from "../../../../src/recognition/recorder/SqliteRecordingQueue.js";
import { StarknetInvoker } from "../../../../src/recognition/recorder/StarknetInvoker.js";
import {
  StarknetPayerRecorder,
  type RecorderEvent,
} from "../../../../src/recognition/recorder/StarknetPayerRecorder.js";
import { StarknetRpc } from "../../../../src/starknet/StarknetRpc.js";

/** A recorder writing as the stand-in's dev account 0, fast-paced for tests. */
export function testRecorder(options: {
  queue: RecordingQueue;
  rpcUrl: string;
  batchSize?: number;
  onEvent?: (event: RecorderEvent) => void;
}): StarknetPayerRecorder {
  const rpc = new StarknetRpc({ rpcUrl: options.rpcUrl, timeoutMs: 2_000, setting: "test" });
  return new StarknetPayerRecorder({
    queue: options.queue,
    invoker: new StarknetInvoker(rpc, starknetDevAccount(0)),
    entryPoint: STAND_IN_RECORD_ENTRYPOINT,
    batchSize: options.batchSize ?? 3,
    intervalMs: 20,
    backoffMs: 50,
    maxBackoffMs: 200,
    unhealthyAfterMs: 0,
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
}

export function startPayerRecorderFromEnvironment(options: {
  file: string;
  rpcUrl: string;
  batchSize: number;
  onEvent: (event: RecorderEvent) => void;
}): StarknetPayerRecorder {
  const recorder = testRecorder({ ...options, queue: new SqliteRecordingQueue(options.file) });
  recorder.start();
  return recorder;
}
