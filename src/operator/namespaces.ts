/**
 * Which namespaces the operator serves: a list, or all (undefined). One parser for the flags of
 * `slipway operator` and `slipway install`, one reading of the operator's own arguments (what
 * `slipway status` shows), one phrase for both.
 */

export interface NamespaceFlags {
  /** One namespace (same as `namespaces` with one name). */
  namespace?: string;
  /** Comma-separated names. */
  namespaces?: string;
  allNamespaces?: boolean;
}

const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `text` as a list of namespace names, or an error naming `flag` and the rule. */
export function parseNamespaceList(flag: string, text: string): string[] {
  const names = text.split(",").map((name) => name.trim());
  for (const name of names) {
    if (!label.test(name) || name.length > 63) {
      throw new Error(
        `${flag}: ${JSON.stringify(name)} is not a namespace name (lowercase letters, digits and '-', at most 63, comma-separated)`,
      );
    }
  }
  return [...new Set(names)];
}

/** The namespaces the flags ask for; undefined: all namespaces (no flag, or --all-namespaces). */
export function namespacesFromFlags(flags: NamespaceFlags): string[] | undefined {
  const given = [
    flags.namespace !== undefined && "--namespace",
    flags.namespaces !== undefined && "--namespaces",
    flags.allNamespaces && "--all-namespaces",
  ].filter(Boolean);
  if (given.length > 1) throw new Error(`${given.join(" and ")}: give one of them`);
  if (flags.namespace !== undefined) return parseNamespaceList("--namespace", flags.namespace);
  if (flags.namespaces !== undefined) return parseNamespaceList("--namespaces", flags.namespaces);
  return undefined;
}

/** The operator arguments that serve `namespaces` (undefined: all). */
export function namespaceArgs(namespaces: string[] | undefined): string[] {
  return namespaces ? [`--namespaces=${namespaces.join(",")}`] : ["--all-namespaces"];
}

/** The namespaces an operator started with `args` serves (undefined: all), as namespacesFromFlags reads them. */
export function namespacesFromArgs(args: string[]): string[] | undefined {
  const flags: NamespaceFlags = {};
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = (args[i] ?? "").split(/=(.*)/s, 2);
    const value = () => inline ?? args[++i] ?? "";
    if (name === "--namespace") flags.namespace = value();
    else if (name === "--namespaces") flags.namespaces = value();
    else if (name === "--all-namespaces") flags.allNamespaces = true;
  }
  return namespacesFromFlags(flags);
}

/** "all namespaces" or "namespaces a, b". */
export function describeNamespaces(namespaces: string[] | undefined): string {
  if (!namespaces) return "all namespaces";
  return `${namespaces.length === 1 ? "namespace" : "namespaces"} ${namespaces.join(", ")}`;
}
