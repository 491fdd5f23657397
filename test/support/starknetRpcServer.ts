import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { hash } from "starknet";

/**
 * A Starknet JSON-RPC v0.10 node double on 127.0.0.1:0 for tests.
 *
 * Every request is validated against the OpenRPC document of spec v0.10.2 (params by name or by
 * position; `starknet_call` by position only, as the seed writes it), and so is every response it sends. A request that fails validation is answered with
 * JSON-RPC -32602 and recorded in `validationFailures`, so a test can fail loudly when a client
 * sends something a real node would refuse.
 */

/** The spec document, vendored under test/fixtures (see its README for origin and licence). */
export const OPENRPC_DOCUMENT_PATH = fileURLToPath(
  new URL("../fixtures/starknet-specs/starknet_api_openrpc.v0.10.2.json", import.meta.url),
);
/** The write API of the same version (`starknet_addInvokeTransaction`…), merged into the read API's methods. */
export const OPENRPC_WRITE_DOCUMENT_PATH = fileURLToPath(
  new URL("../fixtures/starknet-specs/starknet_write_api.v0.10.2.json", import.meta.url),
);

/** Selector of a Cairo entry point: starknet_keccak of its name. */
export function selectorOf(name: string): string {
  return hash.getSelectorFromName(name);
}

/** A `starknet_call` as the handler sees it: the fields exactly as the client sent them. */
export interface StarknetCallRequest {
  contractAddress: string;
  entryPointSelector: string;
  calldata: string[];
  blockId: unknown;
}

export interface RpcErrorAnswer {
  error: { code: number; message: string; data?: unknown };
}

export type StarknetCallHandler = (
  request: StarknetCallRequest,
) => string[] | RpcErrorAnswer | Promise<string[] | RpcErrorAnswer>;

/** A handler for any other spec method: receives params by name, returns the result or an error. */
export type MethodHandler = (params: Record<string, unknown>) => unknown;

/**
 * How the server answers: `normal`, a bare HTTP 500, a 200 whose body is not JSON, never
 * (`hang`), or the given JSON-RPC error code for every request.
 */
export type RpcServerMode = "normal" | "http500" | "garbage" | "hang" | { rpcError: number };

export interface RecordedRpcRequest {
  path: string;
  /** The parsed JSON body (one element of a batch). */
  body: unknown;
  method: string | undefined;
  params: unknown;
  id: unknown;
  /** What was sent back (undefined when nothing was: http500, garbage, hang). */
  response?: unknown;
}

export interface RpcValidationFailure {
  kind: "request" | "response";
  method: string | undefined;
  errors: string[];
  body: unknown;
}

export interface StarknetRpcServerOptions {
  /** Answers `starknet_call`. Default: every call fails with ENTRYPOINT_NOT_FOUND. */
  call?: StarknetCallHandler;
  /** Extra spec methods (results are validated like the built-in ones). */
  methods?: Record<string, MethodHandler>;
  mode?: RpcServerMode;
  /** Default `0x534e5f5345504f4c4941` (SN_SEPOLIA). */
  chainId?: string;
  /** Default 1000. */
  blockNumber?: number;
}

export interface StarknetRpcServer {
  /** Base URL (`http://127.0.0.1:<port>`); clients POST to `${url}/rpc/v0_10`. */
  url: string;
  /** Every JSON-RPC request received, in order. */
  requests: RecordedRpcRequest[];
  /** Requests (and responses) that did not match the spec document. */
  validationFailures: RpcValidationFailure[];
  /** `starknet_call` requests only. */
  calls(): StarknetCallRequest[];
  setMode(mode: RpcServerMode): void;
  /** Closes the server, dropping hung connections. */
  close(): Promise<void>;
}

interface ContentDescriptor {
  name: string;
  required?: boolean;
  schema: unknown;
}
interface MethodSpec {
  name: string;
  params: ContentDescriptor[];
  result?: { schema: unknown };
  errors?: Array<{ $ref: string }>;
}
interface ErrorSpec {
  code: number;
  message: string;
  data?: unknown;
}
interface CompiledMethod {
  spec: MethodSpec;
  params: Array<{ name: string; required: boolean; validate: ValidateFunction }>;
  result: ValidateFunction | undefined;
  /** Error codes the method may answer with, and the validator of their `data`. */
  errors: Map<number, { spec: ErrorSpec; data: ValidateFunction | undefined }>;
}

const DOC_ID = "starknet-openrpc";
/** JSON-RPC codes any method may answer with. */
const GENERIC_ERRORS: Record<number, string> = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
};

interface Admitted {
  record: RecordedRpcRequest;
  id: unknown;
  compiled?: CompiledMethod;
  byName?: Record<string, unknown>;
  refusal?: RpcErrorAnswer;
}

interface CompiledSpec {
  methods: Map<string, CompiledMethod>;
  errorsByCode: Map<number, ErrorSpec>;
}

let compiledSpec: CompiledSpec | undefined;

/** Loads and compiles the spec once per process (compiling is the slow part). */
function loadSpec(): CompiledSpec {
  if (compiledSpec !== undefined) return compiledSpec;
  type Document = {
    methods: MethodSpec[];
    components: {
      schemas: Record<string, unknown>;
      errors: Record<string, ErrorSpec & { data?: Record<string, unknown> }>;
    };
  };
  const read = (path: string) => rewriteRefs(JSON.parse(readFileSync(path, "utf8"))) as Document;
  const main = read(OPENRPC_DOCUMENT_PATH);
  const write = read(OPENRPC_WRITE_DOCUMENT_PATH);
  // The write document's own schemas and errors join the read one's (which win where both name one:
  // the write document's copies point back at them).
  const document: Document = {
    methods: [...main.methods, ...write.methods],
    components: {
      schemas: { ...write.components.schemas, ...main.components.schemas },
      errors: { ...write.components.errors, ...main.components.errors },
    },
  };
  // The published document writes `"required": "revert_error"`; JSON Schema wants an array.
  const contractErrorData = document.components.errors.CONTRACT_ERROR?.data;
  if (contractErrorData && typeof contractErrorData.required === "string") {
    contractErrorData.required = [contractErrorData.required];
  }
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema({ $id: DOC_ID, components: document.components });
  const compile = (schema: unknown) => ajv.compile(schema as object);

  const errorsByCode = new Map<number, ErrorSpec>();
  const errorByRef = new Map<string, { spec: ErrorSpec; data: ValidateFunction | undefined }>();
  for (const [name, spec] of Object.entries(document.components.errors)) {
    errorsByCode.set(spec.code, spec);
    errorByRef.set(`${DOC_ID}#/components/errors/${name}`, {
      spec,
      // The write document writes some errors' data as a bare type name ("string").
      data:
        spec.data === undefined
          ? undefined
          : compile(typeof spec.data === "string" ? { type: spec.data } : spec.data),
    });
  }
  const methods = new Map<string, CompiledMethod>();
  for (const spec of document.methods) {
    const errors = new Map<number, { spec: ErrorSpec; data: ValidateFunction | undefined }>();
    for (const ref of spec.errors ?? []) {
      const error = errorByRef.get(ref.$ref);
      if (error === undefined) throw new Error(`spec: ${spec.name} names unknown error ${ref.$ref}`);
      errors.set(error.spec.code, error);
    }
    methods.set(spec.name, {
      spec,
      params: spec.params.map((param) => ({
        name: param.name,
        required: param.required === true,
        validate: compile(param.schema),
      })),
      result: spec.result === undefined ? undefined : compile(spec.result.schema),
      errors,
    });
  }
  compiledSpec = { methods, errorsByCode };
  return compiledSpec;
}

/** Points every `$ref` (local, or `api/starknet_api_openrpc.json#/…`) at the registered document. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string") {
      const hashAt = inner.indexOf("#");
      out[key] = `${DOC_ID}${hashAt === -1 ? "#" : inner.slice(hashAt)}`;
    } else {
      out[key] = rewriteRefs(inner);
    }
  }
  return out;
}

function describeAjvErrors(validate: ValidateFunction, where: string): string[] {
  return (validate.errors ?? []).map(
    (error) => `${where}${error.instancePath} ${error.message ?? "invalid"}`,
  );
}

/** Validates params (array or object) against the method's descriptors; returns them by name and any errors. */
function validateParams(
  method: CompiledMethod,
  params: unknown,
): { byName: Record<string, unknown>; errors: string[] } {
  const errors: string[] = [];
  const byName: Record<string, unknown> = {};
  if (params === undefined) {
    // no params: fine only if none is required
  } else if (Array.isArray(params)) {
    if (params.length > method.params.length) {
      errors.push(`expected at most ${method.params.length} positional params, got ${params.length}`);
    }
    params.forEach((value, index) => {
      const descriptor = method.params[index];
      if (descriptor !== undefined) byName[descriptor.name] = value;
    });
  } else if (typeof params === "object" && params !== null) {
    const known = new Set(method.params.map((param) => param.name));
    for (const [name, value] of Object.entries(params)) {
      if (!known.has(name)) errors.push(`unknown param "${name}"`);
      else byName[name] = value;
    }
  } else {
    errors.push("params must be an array or an object");
  }
  for (const param of method.params) {
    const value = byName[param.name];
    if (value === undefined) {
      if (param.required) errors.push(`missing required param "${param.name}"`);
      continue;
    }
    if (!param.validate(value)) errors.push(...describeAjvErrors(param.validate, `params.${param.name}`));
  }
  return { byName, errors };
}

function isRpcErrorAnswer(value: unknown): value is RpcErrorAnswer {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "error" in value;
}

/** Starts the node double; see {@link StarknetRpcServerOptions}. */
export async function startStarknetRpcServer(
  options: StarknetRpcServerOptions = {},
): Promise<StarknetRpcServer> {
  const spec = loadSpec();
  const chainId = options.chainId ?? "0x534e5f5345504f4c4941";
  const blockNumber = options.blockNumber ?? 1000;
  let mode: RpcServerMode = options.mode ?? "normal";
  const requests: RecordedRpcRequest[] = [];
  const validationFailures: RpcValidationFailure[] = [];
  const callRequests: StarknetCallRequest[] = [];

  const builtIn: Record<string, (params: Record<string, unknown>) => unknown> = {
    starknet_specVersion: () => "0.10.2",
    starknet_chainId: () => chainId,
    starknet_blockNumber: () => blockNumber,
    starknet_call: async (params) => {
      const request = params.request as {
        contract_address: string;
        entry_point_selector: string;
        calldata: string[];
      };
      const call: StarknetCallRequest = {
        contractAddress: request.contract_address,
        entryPointSelector: request.entry_point_selector,
        calldata: request.calldata,
        blockId: params.block_id,
      };
      callRequests.push(call);
      if (options.call === undefined) return errorAnswer(spec, 21);
      return options.call(call);
    },
  };

  /** Validates and records one JSON-RPC object; returns what to do with it. */
  function admit(body: unknown, path: string): Admitted {
    const envelope = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const id = envelope.id ?? null;
    const method = typeof envelope.method === "string" ? envelope.method : undefined;
    const record: RecordedRpcRequest = { path, body, method, params: envelope.params, id };
    requests.push(record);
    const refuse = (code: number, errors: string[]): Admitted => {
      validationFailures.push({ kind: "request", method, errors, body });
      const data = errors.join("; ");
      return { record, id, refusal: { error: { code, message: GENERIC_ERRORS[code] ?? "error", data } } };
    };
    if (
      envelope.jsonrpc !== "2.0" ||
      method === undefined ||
      !(typeof id === "number" || typeof id === "string")
    ) {
      return refuse(-32600, ["not a JSON-RPC 2.0 request with jsonrpc, method and a number or string id"]);
    }
    const compiled = spec.methods.get(method);
    if (compiled === undefined) return refuse(-32601, [`method ${method} is not in the spec`]);
    if (method === "starknet_call" && !Array.isArray(envelope.params)) {
      // The seed writes starknet_call's params positionally; by-name params mean a regression.
      return refuse(-32602, ["starknet_call params must be positional: [call, block_id]"]);
    }
    const { byName, errors } = validateParams(compiled, envelope.params);
    if (errors.length > 0) return refuse(-32602, errors);
    return { record, id, compiled, byName };
  }

  /** Answers an admitted request in the current mode; returns the response object to send. */
  async function answer(admitted: Admitted): Promise<unknown> {
    const { record, id, compiled, byName } = admitted;
    const reply = (response: unknown) => {
      record.response = response;
      return response;
    };
    if (admitted.refusal !== undefined || compiled === undefined || byName === undefined) {
      return reply({ jsonrpc: "2.0", id, ...admitted.refusal });
    }
    const method = compiled.spec.name;
    if (typeof mode === "object" && (compiled.errors.has(mode.rpcError) || mode.rpcError in GENERIC_ERRORS)) {
      return reply(checkedResponse(compiled, id, errorAnswer(spec, mode.rpcError)));
    }
    const handler = options.methods?.[method] ?? builtIn[method];
    if (handler === undefined) {
      validationFailures.push({
        kind: "request",
        method,
        errors: [`method ${method} is in the spec but the test server has no handler for it`],
        body: record.body,
      });
      return reply({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    }
    let outcome: unknown;
    try {
      outcome = await handler(byName);
    } catch (error) {
      outcome = { error: { code: -32603, message: `handler threw: ${String(error)}` } };
    }
    return reply(checkedResponse(compiled, id, outcome));
  }

  /** Builds the response and validates it against the spec; a non-conforming one becomes -32603. */
  function checkedResponse(compiled: CompiledMethod, id: unknown, outcome: unknown): unknown {
    const response: Record<string, unknown> = isRpcErrorAnswer(outcome)
      ? { jsonrpc: "2.0", id, error: errorObject(outcome.error) }
      : { jsonrpc: "2.0", id, result: outcome };
    const errors = compiledResponseProblems(compiled, response);
    if (errors.length === 0) return response;
    validationFailures.push({ kind: "response", method: compiled.spec.name, errors, body: response });
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: -32603,
        message: "Internal error",
        data: `test server built an invalid response: ${errors.join("; ")}`,
      },
    };
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    if (req.method !== "POST" || path !== "/rpc/v0_10") {
      const errors = [`${req.method ?? "?"} ${path}: expected POST /rpc/v0_10`];
      validationFailures.push({ kind: "request", method: undefined, errors, body: undefined });
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      validationFailures.push({
        kind: "request",
        method: undefined,
        errors: ["body is not JSON"],
        body: undefined,
      });
      send(res, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    const admitted = Array.isArray(body) ? body.map((item) => admit(item, path)) : admit(body, path);
    const current = mode;
    if (current === "hang") return; // keep the socket open; close() destroys it
    if (current === "http500") {
      res.writeHead(500, { "content-type": "text/plain" }).end("upstream exploded");
      return;
    }
    if (current === "garbage") {
      res.writeHead(200, { "content-type": "application/json" }).end("<html>definitely not json");
      return;
    }
    send(res, Array.isArray(admitted) ? await Promise.all(admitted.map(answer)) : await answer(admitted));
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    validationFailures,
    calls: () => [...callRequests],
    setMode(next) {
      mode = next;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function errorObject({ code, message, data }: RpcErrorAnswer["error"]): RpcErrorAnswer["error"] {
  return data === undefined ? { code, message } : { code, message, data };
}

function compiledResponseProblems(compiled: CompiledMethod, response: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (isRpcErrorAnswer(response)) {
    const { code, message, data } = response.error;
    const declared = compiled.errors.get(code);
    if (declared === undefined && GENERIC_ERRORS[code] === undefined) {
      errors.push(`error code ${code} is not declared for ${compiled.spec.name}`);
    } else if (declared?.data !== undefined && !declared.data(data)) {
      errors.push(...describeAjvErrors(declared.data, "error.data"));
    }
    if (typeof message !== "string") errors.push("error.message must be a string");
  } else if (compiled.result !== undefined && !compiled.result(response.result)) {
    errors.push(...describeAjvErrors(compiled.result, "result"));
  }
  return errors;
}

/**
 * What is wrong with `response` (a whole JSON-RPC answer) as the answer to `method`, by the spec
 * document: its result schema, or its declared error codes (with their messages and data). Empty: nothing.
 */
export function specResponseProblems(method: string, response: unknown): string[] {
  const compiled = loadSpec().methods.get(method);
  if (compiled === undefined) return [`method ${method} is not in the spec`];
  if (typeof response !== "object" || response === null) return ["the response is not an object"];
  const envelope = response as Record<string, unknown>;
  const problems: string[] = [];
  if (envelope.jsonrpc !== "2.0") problems.push('jsonrpc must be "2.0"');
  if ("result" in envelope === "error" in envelope) problems.push("exactly one of result and error");
  // A real node words the spec's errors exactly as the document does.
  const error = envelope.error as { code?: unknown; message?: unknown } | undefined;
  const declared = typeof error?.code === "number" ? compiled.errors.get(error.code) : undefined;
  if (declared !== undefined && error?.message !== declared.spec.message) {
    problems.push(`error ${declared.spec.code} message must be ${JSON.stringify(declared.spec.message)}`);
  }
  return [...problems, ...compiledResponseProblems(compiled, envelope)];
}

/** The spec's error for `code` (with a `revert_error` for CONTRACT_ERROR), or a generic JSON-RPC one. */
function errorAnswer(spec: CompiledSpec, code: number): RpcErrorAnswer {
  const known = spec.errorsByCode.get(code);
  if (known !== undefined) {
    if (code === 40)
      return { error: { code, message: known.message, data: { revert_error: "est_ouverte: test revert" } } };
    if (code === 41)
      return {
        error: { code, message: known.message, data: { transaction_index: 0, execution_error: "test" } },
      };
    return { error: { code, message: known.message } };
  }
  return { error: { code, message: GENERIC_ERRORS[code] ?? `error ${code}` } };
}

function send(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}
