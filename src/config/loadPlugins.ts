import { pathToFileURL } from "node:url";
import { hookLists, hooksProblems, HOOK_NAMES, type PaymentHooks } from "../paywall/flow/PaymentHooks.js";

/** A plugin named in `plugins:` that cannot be used: which one, and why. */
export interface PluginProblem {
  index: number;
  message: string;
}

/**
 * The gateway's `plugins:` (absolute paths, resolved against the config file): each a JavaScript module
 * whose default export is an object of hooks (`onBeforeVerify`, …), or that exports the hooks by name. Loaded
 * once at start-up (Node caches a module, so `check-config` then `serve` load it once); a module that cannot
 * be imported or exports no valid hook is a problem naming it.
 */
export async function loadPlugins(
  files: readonly string[],
): Promise<{ hooks: PaymentHooks | undefined; problems: PluginProblem[] }> {
  const sets: PaymentHooks[] = [];
  const problems: PluginProblem[] = [];
  for (const [index, file] of files.entries()) {
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      problems.push({ index, message: `cannot load the plugin ${file}: ${(error as Error).message}` });
      continue;
    }
    const hooks = hooksOf(module);
    const found = hooks === undefined ? ["exports no hook"] : hooksProblems(hooks);
    if (hooks === undefined || found.length > 0) {
      const expected = `a default export { ${HOOK_NAMES.join(", ")} } or those names exported`;
      for (const problem of found)
        problems.push({ index, message: `${file}: ${problem} (expected ${expected})` });
      continue;
    }
    sets.push(hooks);
  }
  return { hooks: sets.length === 0 ? undefined : hookLists(...sets), problems };
}

/** The hooks a module gives: its default export's, else its named exports that are hook names. */
function hooksOf(module: Record<string, unknown>): PaymentHooks | undefined {
  const fallback = module.default;
  if (typeof fallback === "object" && fallback !== null) return fallback as PaymentHooks;
  const named = Object.fromEntries(
    Object.entries(module).filter(([key]) => (HOOK_NAMES as readonly string[]).includes(key)),
  );
  return Object.keys(named).length === 0 ? undefined : (named as PaymentHooks);
}
