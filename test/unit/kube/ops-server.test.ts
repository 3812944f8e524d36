import { describe, expect, it } from "vitest";
import { bearerToken } from "../../../src/kube/ops-auth.ts";
import { OpsServer } from "../../../src/kube/ops-server.ts";

describe("the operations server", () => {
  it("listens on loopback unless given another address", async () => {
    const server = new OpsServer({});
    await server.listen(0);
    try {
      expect(server.address).toBe("127.0.0.1");
    } finally {
      await server.close();
    }
  });

  it("reads a bearer token from the Authorization header only", () => {
    expect(bearerToken("Bearer abc.def")).toBe("abc.def");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("Bearer a b")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
