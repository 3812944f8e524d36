import { inject } from "vitest";
import type { Kind } from "../../src/apis/kind.ts";
import { applyCrds } from "./fakes/apply-crds.ts";

/**
 * Server-side applies the generated CRDs of `kinds` to the test control plane and waits until each
 * is Established. Idempotent, so every test file can call it for the kinds it uses.
 */
export function installCrds(kinds: Kind[]): Promise<void> {
  return applyCrds(inject("kubeconfig"), kinds, "slipway-tests");
}
