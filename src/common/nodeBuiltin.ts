/**
 * A Node built-in module, when the runtime is Node (`process.getBuiltinModule`, Node ≥ 20.16; Bun and Deno
 * answer it too), else `undefined`: the caller then takes the Web platform's way. Asked at run time, so no
 * module of the Fetch adapters' graph imports `node:` (Workers have none), while Node keeps its fast paths.
 */
export function nodeBuiltin<T>(name: `node:${string}`): T | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return runtime?.getBuiltinModule?.(name) as T | undefined;
  } catch {
    return undefined;
  }
}
