import { describe, expect, it } from "vitest";
import {
  describeNamespaces,
  namespaceArgs,
  namespacesFromArgs,
  namespacesFromFlags,
  parseNamespaceList,
} from "../../../src/operator/namespaces.ts";

describe("the namespaces the operator serves", () => {
  it("no flag or --all-namespaces: all; --namespaces a,b or --namespace a: those", () => {
    expect(namespacesFromFlags({})).toBeUndefined();
    expect(namespacesFromFlags({ allNamespaces: true })).toBeUndefined();
    expect(namespacesFromFlags({ namespaces: "team-a, team-b,team-a" })).toEqual(["team-a", "team-b"]);
    expect(namespacesFromFlags({ namespace: "ml" })).toEqual(["ml"]);
  });

  it("refuses a bad name, naming the flag and the rule, and two ways of saying it at once", () => {
    expect(() => parseNamespaceList("--namespaces", "ml,Team_B")).toThrow(
      "--namespaces: \"Team_B\" is not a namespace name (lowercase letters, digits and '-', at most 63, comma-separated)",
    );
    expect(() => parseNamespaceList("--namespaces", "")).toThrow('--namespaces: "" is not a namespace name');
    expect(() => namespacesFromFlags({ namespaces: "a", allNamespaces: true })).toThrow(
      "--namespaces and --all-namespaces: give one of them",
    );
  });

  it("reads back from the operator's arguments what namespaceArgs wrote", () => {
    for (const served of [undefined, ["ml"], ["team-a", "team-b"]]) {
      expect(namespacesFromArgs(["operator", ...namespaceArgs(served), "--leader-elect"])).toEqual(served);
    }
    expect(namespacesFromArgs(["operator", "--namespace", "ml"])).toEqual(["ml"]);
  });

  it("says which: all namespaces, or the list", () => {
    expect(describeNamespaces(undefined)).toBe("all namespaces");
    expect(describeNamespaces(["ml"])).toBe("namespace ml");
    expect(describeNamespaces(["a", "b"])).toBe("namespaces a, b");
  });
});
