import type { z } from "zod/v4";

type AnyDef = {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
};

const defOf = (schema: z.ZodType): AnyDef => (schema as unknown as { _zod: { def: AnyDef } })._zod.def;

/** Keys an object schema accepts at `path` (through optionals, defaults, records, arrays, unions). */
export function keysAllowedAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const keys = new Set<string>();
  const visit = (current: z.ZodType, rest: ReadonlyArray<PropertyKey>): void => {
    const def = defOf(current);
    if (def.innerType) return visit(def.innerType, rest);
    if (def.type === "pipe" && def.in) return visit(def.in, rest);
    if (def.type === "union") return def.options?.forEach((option) => visit(option, rest));
    if (rest.length === 0) {
      if (def.type === "object" && def.shape) Object.keys(def.shape).forEach((key) => keys.add(key));
      return;
    }
    const [head, ...tail] = rest;
    if (def.type === "object" && def.shape) {
      const child = def.shape[String(head)];
      if (child) visit(child as z.ZodType, tail);
    } else if (def.type === "record" && def.valueType) visit(def.valueType, tail);
    else if (def.type === "array" && def.element) visit(def.element, tail);
  };
  visit(schema, path);
  return [...keys];
}
