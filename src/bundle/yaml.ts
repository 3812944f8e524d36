import { stringify } from "yaml";

/** YAML as the generated files are written: no line folding, so diffs stay line-by-line. */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}
