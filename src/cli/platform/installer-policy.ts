/**
 * The installer's policy for tenants, set with `slipway install` and kept by `slipway update`: the
 * ServiceAccounts a Provider may name and the operator's outbound policy (docs/security.md). Each
 * flag is the operator variable of the same meaning, checked here by the operator's own parsers so a
 * bad entry is refused before anything is applied; the bundle renders them into the operator's
 * environment, and `update` reads them back from there.
 */

import type { V1EnvVar } from "@kubernetes/client-node";
import type { Command } from "commander";
import type { BundleOptions } from "../../bundle/bundle.ts";
import {
  ambientNamespacesVariable,
  outboundAllowVariable,
  outboundDenyVariable,
  parseOutboundList,
} from "../../pipelines/outbound-policy.ts";
import {
  parseServiceAccountAllowlist,
  serviceAccountsVariable,
} from "../../pipelines/provider-service-accounts.ts";
import { UserError } from "../run.ts";

export type InstallerPolicy = Pick<
  BundleOptions,
  "providerServiceAccounts" | "outboundAllow" | "outboundDeny" | "ambientCredentialsNamespaces"
>;

export interface InstallerPolicyFlags {
  providerServiceAccounts?: string;
  outboundAllow?: string;
  outboundDeny?: string;
  ambientCredentialsNamespaces?: string;
}

type Field = keyof InstallerPolicy & keyof InstallerPolicyFlags;

/** Each setting: its flag, the operator's variable, and the operator's parser of it. */
const settings: readonly {
  field: Field;
  flag: string;
  variable: string;
  parse: (text: string, source: string) => string[];
}[] = [
  {
    field: "providerServiceAccounts",
    flag: "--provider-service-accounts",
    variable: serviceAccountsVariable,
    parse: (text, source) => parseServiceAccountAllowlist(text, source),
  },
  {
    field: "outboundAllow",
    flag: "--outbound-allow",
    variable: outboundAllowVariable,
    parse: (text, source) => parseOutboundList(source, text, "allow"),
  },
  {
    field: "outboundDeny",
    flag: "--outbound-deny",
    variable: outboundDenyVariable,
    parse: (text, source) => parseOutboundList(source, text, "deny"),
  },
  {
    field: "ambientCredentialsNamespaces",
    flag: "--ambient-credentials-namespaces",
    variable: ambientNamespacesVariable,
    parse: (text, source) => parseOutboundList(source, text, "namespaces"),
  },
];

/** The policy the flags set; a bad entry is a UserError naming the flag and the entry. */
export function installerPolicyFromFlags(flags: InstallerPolicyFlags): InstallerPolicy {
  const policy: InstallerPolicy = {};
  for (const { field, flag, parse } of settings) {
    const text = flags[field];
    if (text === undefined) continue;
    try {
      policy[field] = parse(text, flag);
    } catch (error) {
      throw new UserError((error as Error).message);
    }
  }
  return policy;
}

/** The policy an operator runs with, read from its container's environment (what `update` keeps). */
export function installerPolicyFromEnv(env: readonly V1EnvVar[] | undefined): InstallerPolicy {
  const policy: InstallerPolicy = {};
  for (const { field, variable, parse } of settings) {
    const value = env?.find((entry) => entry.name === variable)?.value;
    if (value) policy[field] = parse(value, variable);
  }
  return policy;
}

export function withInstallerPolicyFlags(command: Command): Command {
  return command
    .option(
      "--provider-service-accounts <ns/name,...>",
      "ServiceAccounts a Provider may name besides its namespace's default (namespace/name or */name)",
    )
    .option(
      "--outbound-allow <host|cidr,...>",
      "hosts or CIDRs a tenant-named endpoint (kfp, vertex, event sinks) may reach beyond the built-in refusals",
    )
    .option(
      "--outbound-deny <cidr,...>",
      "CIDRs tenant-named endpoints may not reach: the cluster's node and pod networks",
    )
    .option(
      "--ambient-credentials-namespaces <ns,...|*>",
      "namespaces whose vertex Providers and builds stores may use the operator's own cloud credentials",
    );
}
