import { patternMatches, type RoutePattern } from "./compileRoutePattern.js";

interface Entry<T> {
  pattern: RoutePattern;
  value: T;
  /** Position in the table's order: the lowest matching one wins. */
  order: number;
}

interface Node<T> {
  literals: Map<string, Node<T>>;
  param: Node<T> | undefined;
  /** Patterns that end here exactly. */
  exact: Entry<T>[];
  /** Patterns that end here with a trailing `*`. */
  wildcard: Entry<T>[];
}

const node = <T>(): Node<T> => ({ literals: new Map(), param: undefined, exact: [], wildcard: [] });

/**
 * A segment trie over route patterns: finds the first pattern, in the given order, that matches a path,
 * looking only at patterns whose literals fit it, so the cost does not grow with the number of routes.
 * Pure; gives the same answer as trying every pattern in order.
 */
export class RouteIndex<T> {
  private readonly root = node<T>();
  /** Patterns with a glob (`*` inside a path, a parameter inside a segment): tried on every path, in order. */
  private readonly globs: Entry<T>[] = [];

  constructor(ordered: ReadonlyArray<{ pattern: RoutePattern; value: T }>) {
    ordered.forEach(({ pattern, value }, order) => {
      if (pattern.glob !== undefined) return void this.globs.push({ pattern, value, order });
      let at = this.root;
      for (const segment of pattern.segments) {
        if (segment === null) at = at.param ??= node<T>();
        else {
          let next = at.literals.get(segment);
          if (next === undefined) at.literals.set(segment, (next = node<T>()));
          at = next;
        }
      }
      (pattern.wildcard ? at.wildcard : at.exact).push({ pattern, value, order });
    });
  }

  /** The first pattern matching an upper-case method and a normalised, decoded, lower-cased path's segments. */
  find(method: string, segments: readonly string[]): T | undefined {
    const best = this.visit(this.root, 0, method, segments, undefined);
    return (this.globs.length === 0 ? best : earliest(this.globs, method, segments, best))?.value;
  }

  private visit(
    at: Node<T>,
    depth: number,
    method: string,
    segments: readonly string[],
    best: Entry<T> | undefined,
  ): Entry<T> | undefined {
    best = earliest(at.wildcard, method, segments, best);
    if (depth === segments.length) return earliest(at.exact, method, segments, best);
    const literal = at.literals.get(segments[depth] as string);
    if (literal) best = this.visit(literal, depth + 1, method, segments, best);
    if (at.param) best = this.visit(at.param, depth + 1, method, segments, best);
    return best;
  }
}

/** The earlier of `best` and the first of `entries` that matches. */
function earliest<T>(
  entries: Entry<T>[],
  method: string,
  segments: readonly string[],
  best: Entry<T> | undefined,
): Entry<T> | undefined {
  for (const entry of entries) {
    if (best !== undefined && entry.order >= best.order) continue;
    if (patternMatches(entry.pattern, method, segments)) best = entry;
  }
  return best;
}
