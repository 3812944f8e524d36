/**
 * YAML for the operator's code paths (a configuration file, an override ConfigMap, rendered objects):
 * the yaml package (+9 MB resident) is loaded by the first call, not at start (on-first-use.ts).
 */
import { onFirstUseSync } from "./on-first-use.ts";

const yamlLibrary = onFirstUseSync<typeof import("yaml")>("yaml");

export const parseYaml = (text: string): unknown => yamlLibrary().parse(text);
export const stringifyYaml = (value: unknown): string => yamlLibrary().stringify(value);
