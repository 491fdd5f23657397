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

  constructor(ordered: ReadonlyArray<{ pattern: RoutePattern; value: T }>) {
    ordered.forEach(({ pattern, value }, order) => {
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

  /** The first pattern matching an upper-case method and a normalised, lower-cased path's segments. */
  find(method: string, segments: readonly string[]): T | undefined {
    let best: Entry<T> | undefined;
    const consider = (entries: Entry<T>[]) => {
      for (const entry of entries) {
        if (best !== undefined && entry.order >= best.order) continue;
        if (patternMatches(entry.pattern, method, segments)) best = entry;
      }
    };
    const visit = (at: Node<T>, depth: number): void => {
      consider(at.wildcard);
      if (depth === segments.length) return consider(at.exact);
      const literal = at.literals.get(segments[depth] as string);
      if (literal) visit(literal, depth + 1);
      if (at.param) visit(at.param, depth + 1);
    };
    visit(this.root, 0);
    return best?.value;
  }
}
