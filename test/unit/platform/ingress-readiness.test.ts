import { describe, expect, it } from "vitest";
import { defaultClassAnnotation, ingressClassServes } from "../../../src/platform/ingress-readiness.ts";

const nginx = { metadata: { name: "nginx" } };
const defaultTraefik = { metadata: { name: "traefik", annotations: { [defaultClassAnnotation]: "true" } } };
const notDefault = { metadata: { name: "haproxy", annotations: { [defaultClassAnnotation]: "false" } } };

describe("ingressClassServes: wait for an Ingress address only where a controller will give one", () => {
  it("a named class must exist", () => {
    expect(ingressClassServes("nginx", [nginx])).toBe(true);
    expect(ingressClassServes("nginx", [defaultTraefik])).toBe(false);
    expect(ingressClassServes("nginx", [])).toBe(false);
  });

  it("without a name, the cluster's default class serves the Ingress", () => {
    expect(ingressClassServes(undefined, [nginx, defaultTraefik])).toBe(true);
    expect(ingressClassServes("", [defaultTraefik])).toBe(true);
  });

  it("without a name and without a default class, nothing will give an address", () => {
    expect(ingressClassServes(undefined, [])).toBe(false);
    expect(ingressClassServes(undefined, [nginx, notDefault])).toBe(false);
  });
});
