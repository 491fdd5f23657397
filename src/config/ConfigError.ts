import { BaseError } from "../common/BaseError.js";

/** One problem in a config file, located as precisely as the file allows. */
export interface ConfigProblem {
  file: string;
  /** 1-based; absent when the problem has no place in the file (e.g. it could not be read). */
  line?: number;
  column?: number;
  /** Key path as `routes["GET /api/apy"].price`, or `(root)`. */
  path: string;
  message: string;
}

/** Render a problem as `file:line:col path: message`, the form editors and terminals link. */
export function formatConfigProblem(problem: ConfigProblem): string {
  const place =
    problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  return `${place} ${problem.path}: ${problem.message}`;
}

/** A config file that cannot be used; `message` lists every problem, one per line. */
export class ConfigError extends BaseError {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const first = problems[0];
    const header = first ? `invalid config ${first.file}` : "invalid config";
    super("invalid_config", [`${header}:`, ...problems.map(formatConfigProblem)].join("\n"), {
      details: { problems },
      docsPath: "docs/gateway.md",
    });
    this.problems = problems;
  }
}
