/**
 * Every rule the image-build controller is granted is used: it runs as the operator's ServiceAccount
 * with the bundle's RBAC less one rule, on an ImageBuild whose image is not in the registry (so it
 * reads the registry's and the store's credentials, checks the artifact and creates a Job), and the
 * API server refuses something (a 403). The rules are derived from the controller, so a rule added
 * later is tested without a change here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { bundleFor } from "../../../src/bundle/bundle.ts";
import type { ControllerSpec } from "../../../src/kube/types.ts";
import { deriveRbac, runtimePermissions } from "../../../src/operator/rbac.ts";
import { buildNamespace, buildsConfig, jobsIn, useBuildServers } from "../../support/builds/fixtures.ts";
import { createImageBuild } from "../../support/builds/operator.ts";
import { eventually } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";
import {
  applyRbac,
  bundleOptions,
  bundleWithout,
  forbiddenRequests,
  removableRules,
  startOperatorAs,
} from "../../support/operator-rbac.ts";

describe("the image-build controller with the bundle's RBAC less one rule", () => {
  const servers = useBuildServers();
  const controllers = (): ControllerSpec[] => [
    imageBuildController({ config: parseBuildsConfig(buildsConfig(servers)) }),
  ];
  // the rules do not depend on the configuration's addresses: derived once, before the servers start
  const rbac = deriveRbac(
    [imageBuildController({ config: parseBuildsConfig({ backend: "kaniko", registry: { url: "r:5000" } }) })],
    runtimePermissions,
  );
  const cases = [...removableRules(rbac.namespaced), ...removableRules(rbac.cluster)];

  beforeAll(() => installCrds([ImageBuildKind]));

  /** A namespace with the credentials and an artifact, and an ImageBuild of an image not yet built. */
  async function buildToMake(): Promise<string> {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: "v1",
      artifactUri,
    });
    return namespace;
  }

  it("(with every rule: no 403 while the build's Job is made)", async () => {
    const namespace = await buildToMake();
    await applyRbac(bundleFor(namespace, bundleOptions(controllers())));
    const manager = await startOperatorAs(namespace, controllers());
    await eventually(
      "the build's Job",
      () => jobsIn(namespace),
      (jobs) => jobs.length === 1,
      60_000,
    );
    expect(await forbiddenRequests(manager)).toBe(0);
  });

  it.each(cases)("gets a 403 without the rule on %s", async (_, removed) => {
    const namespace = await buildToMake();
    await applyRbac(bundleWithout(bundleFor(namespace, bundleOptions(controllers())), removed));
    const manager = await startOperatorAs(namespace, controllers());
    await eventually(
      "a 403 from the API server",
      () => forbiddenRequests(manager),
      (n) => n > 0,
      60_000,
    );
  });
});
