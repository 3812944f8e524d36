import { loadYaml } from "@kubernetes/client-node";

/**
 * @kubernetes/client-node's typed APIs (KubernetesObjectApi included) serialize built-in kinds
 * through their TypeScript models, whose names differ from the wire (`_default`, `xKubernetesValidations`…):
 * a wire-form object passed to them silently loses those fields. This converts wire JSON (what the
 * bundle and the CRD generator produce) into the model the client expects.
 */
export function toClientModel<T>(wire: object): T {
  return loadYaml<T>(JSON.stringify(wire));
}
