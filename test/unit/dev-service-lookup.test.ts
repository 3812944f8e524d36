import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import {
  cachedAddresses,
  inCidr,
  readyAddresses,
  serviceLookup,
  serviceOf,
} from "../../src/dev/service-lookup.ts";

describe("Service names for the dev operator on the host", () => {
  it("a Service name as a pod's search list finds it; other names are not the cluster's", () => {
    expect(serviceOf("slipway-registry.team.svc")).toEqual({ name: "slipway-registry", namespace: "team" });
    expect(serviceOf("slipway-registry.team.svc.cluster.local.")).toEqual({
      name: "slipway-registry",
      namespace: "team",
    });
    for (const host of ["registry.example.com", "localhost", "127.0.0.1", "a.svc", "a.team.svc.example.com"])
      expect(serviceOf(host)).toBeUndefined();
  });

  it("only ready addresses inside the real node's pod network", () => {
    expect(inCidr("10.233.0.17", "10.233.0.0/24")).toBe(true);
    expect(inCidr("10.233.1.17", "10.233.0.0/24")).toBe(false);
    expect(inCidr("8.8.8.8", "10.233.0.0/24")).toBe(false);
    const slice = (addresses: string[], ready?: boolean) => ({
      addressType: "IPv4",
      endpoints: [{ addresses, ...(ready === undefined ? {} : { conditions: { ready } }) }],
    });
    expect(
      readyAddresses(
        [
          slice(["10.233.0.5"], true),
          slice(["10.233.0.6"], false),
          slice(["192.0.2.9"]),
          slice(["10.233.0.7"]),
        ],
        "10.233.0.0/24",
      ),
    ).toEqual(["10.233.0.5", "10.233.0.7"]);
  });

  const lookup = serviceLookup(
    async ({ name, namespace }) => (name === "a" && namespace === "team" ? ["10.233.0.42"] : []),
    (hostname, _options, callback) => callback?.(null, `system:${hostname}`, 4),
  );
  const ask = (host: string, options: object) =>
    new Promise<[Error | null, string | LookupAddress[], number | undefined]>((resolve) =>
      lookup(host, options, (error, address, family) => resolve([error, address, family])),
    );

  it("answers Service names from their endpoints (one address or all), other names from the system resolver", async () => {
    expect(await ask("a.team.svc", {})).toEqual([null, "10.233.0.42", 4]);
    expect(await ask("a.team.svc", { all: true })).toEqual([
      null,
      [{ address: "10.233.0.42", family: 4 }],
      undefined,
    ]);
    expect(await ask("example.com", { all: true })).toEqual([null, "system:example.com", 4]);
  });

  it("a Service without a ready endpoint is ENOTFOUND naming the host", async () => {
    const [error] = await ask("missing.team.svc", {});
    expect(error).toMatchObject({
      code: "ENOTFOUND",
      message: "service lookup: missing.team.svc: no ready endpoint on the real node",
    });
  });
});

describe("cachedAddresses", () => {
  const lab = { name: "lab-registry", namespace: "team" };

  it("reuses a Service's answer (an in-flight one too) for the TTL, then asks again; a failure is not kept", async () => {
    let clock = 0;
    const asked: string[] = [];
    let fail = false;
    const cached = cachedAddresses(
      async (service) => {
        asked.push(service.name);
        if (fail) throw new Error("API server unreachable");
        return [`10.233.0.${asked.length}`];
      },
      2_000,
      () => clock,
    );
    const [first, concurrent] = await Promise.all([cached(lab), cached(lab)]);
    expect([first, concurrent]).toEqual([["10.233.0.1"], ["10.233.0.1"]]);
    clock = 1_999;
    expect(await cached(lab)).toEqual(["10.233.0.1"]);
    expect(await cached({ ...lab, name: "lab-object-store" })).toEqual(["10.233.0.2"]);
    clock = 2_000;
    expect(await cached(lab)).toEqual(["10.233.0.3"]);
    fail = true;
    clock = 4_000;
    await expect(cached(lab)).rejects.toThrow("API server unreachable");
    fail = false;
    expect(await cached(lab)).toEqual(["10.233.0.5"]);
    expect(asked).toEqual([
      "lab-registry",
      "lab-object-store",
      "lab-registry",
      "lab-registry",
      "lab-registry",
    ]);
  });
});
