import { z } from "zod/v4";

/**
 * What paying once for a route buys (docs/passes.md): `requests` uses (the paying one is the first), `seconds`
 * of access, or both (whichever runs out first). Every route or prefix (`/api/*`) with the same `scope` shares
 * one pass; the default scope is the route's key.
 */
export const passRouteSchema = z
  .strictObject({
    /** Requests one payment buys, the paying request included. */
    requests: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .meta({ description: "Requests one payment buys, the paying request included." }),
    /** How long the pass lasts, in seconds. Without it, a pass counted in requests lasts `passes.maxSeconds`. */
    seconds: z
      .number()
      .int()
      .min(1)
      .max(400 * 86_400)
      .optional()
      .meta({
        description:
          "How long the pass lasts, in seconds. Without it, a pass counted in requests lasts `passes.maxSeconds`.",
      }),
    /** The name routes share a pass under; default the route's key. A token is refused on any other scope. */
    scope: z
      .string()
      .regex(/^[\x21-\x7e]{1,100}$/, "expected 1 to 100 printable ASCII characters without spaces")
      .optional()
      .meta({
        description:
          "The name routes share a pass under; default the route's key. A token is refused on any other scope.",
      }),
  })
  .refine((pass) => pass.requests !== undefined || pass.seconds !== undefined, {
    error: "a pass needs `requests`, `seconds` or both",
  });

export type PassRouteSettings = z.infer<typeof passRouteSchema>;
