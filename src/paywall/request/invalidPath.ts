import type { PathRejection } from "../../pricing/normalizePath.js";
import { GatewayError } from "../../protocol/errors.js";

const WHY: Record<PathRejection, string> = {
  encoded_slash: "an encoded / or \\ in the path",
  backslash: "a \\ in the path",
  malformed_percent_encoding: "a % not followed by two hex digits",
  not_absolute: "a path that does not start with /",
  lenient_reading: "a spelling a lenient server reads as another priced route",
  too_many_readings: "too many possible readings of the path",
  dot_segments: "dot segments that, left unresolved, match another priced route",
  authority: "a leading // that URL parsers read as a host, leaving another priced path",
  case_variant: "another case of a priced path (routes are matched case-sensitively here)",
  not_origin_form: "a request target that is not a path (*, host:port, or a star before a path)",
};

/** `400 invalid_path`: the request target could be read as a priced resource other than the one the paywall read. */
export function invalidPath(reason: PathRejection): GatewayError {
  return new GatewayError("invalid_path", `the request target is ambiguous: ${WHY[reason]}`, {
    details: { reason },
  });
}
