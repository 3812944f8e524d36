/** How a failed Vertex call is reported: its gRPC status, never the text the backend sent. */
import { describe, expect, it } from "vitest";
import { callFailure } from "../../../src/pipelines/vertex/clients.ts";

const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} SOMETHING: ${details}`), { code, details });

describe("callFailure", () => {
  it("names the gRPC status and drops the backend's text", () => {
    const answer = "<html>internal admin page: secret-token-123</html>";
    expect(callFailure(grpcError(7, answer))).toBe("gRPC status 7 PERMISSION_DENIED");
    expect(callFailure(grpcError(16, answer))).toBe("gRPC status 16 UNAUTHENTICATED");
    expect(callFailure(grpcError(5, answer))).toBe("gRPC status 5 NOT_FOUND");
    expect(callFailure(grpcError(99, answer))).toBe("gRPC status 99 unknown code");
  });

  it("a failure with no gRPC status says so, without its message", () => {
    const failure = callFailure(new Error("invalid_grant: body of the token endpoint"));
    expect(failure).toBe("failed before a gRPC status (connection or credentials)");
    expect(callFailure(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(
      failure,
    );
  });
});
