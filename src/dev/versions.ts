import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./paths.ts";

export interface ToolVersions {
  kube: string;
  etcd: string;
  kwok: string;
  helm: string;
  coredns: string;
}

/** Parses `KEY=value` lines of tools/kube/versions.env (comments and blank lines ignored). */
export function parseVersionsEnv(text: string): ToolVersions {
  const vars = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^\s*([A-Z_]+)=(\S+)\s*$/.exec(line);
    if (match?.[1] && match[2]) vars.set(match[1], match[2]);
  }
  const get = (key: string): string => {
    const value = vars.get(key);
    if (!value) throw new Error(`tools/kube/versions.env: ${key} is not set`);
    return value;
  };
  return {
    kube: get("KUBE_VERSION"),
    etcd: get("ETCD_VERSION"),
    kwok: get("KWOK_VERSION"),
    helm: get("HELM_VERSION"),
    coredns: get("COREDNS_VERSION"),
  };
}

export function pinnedVersions(): ToolVersions {
  return parseVersionsEnv(readFileSync(join(packageRoot, "tools/kube/versions.env"), "utf8"));
}
