/**
 * Onboarding a team on the dev plane (`slipway dev team <namespace>`): what a platform administrator
 * gives a team so that it can build images and run pipelines in a namespace of its own, with a
 * member account that has no right on Secrets.
 *
 * - The namespace, and in it the S3 Secret the dev operator's builds configuration names
 *   (`slipway-builds-s3`, dev's object-store keys): the operator reads it to check and fetch the
 *   team's build context; the member can neither read it nor name it in a build argument (the
 *   admission webhook checks the requester's own rights).
 * - A ServiceAccount `member` bound to a Role that manages ImageBuilds and the pipeline kinds, reads
 *   Providers, pods, their logs, Jobs and Events — nothing on Secrets.
 * - The platform's Provider allows the namespace (`spec.allowedNamespaces`, one entry per team, each
 *   owned by the team's own field manager so teams never undo each other), so the team's Runs run on
 *   the platform's workflow engine — in the platform's namespace, as its workflow account, with
 *   their artifacts in the platform's bucket: on the dev plane teams share one engine and one
 *   object store. A production install gives each team a Provider of its own.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { KubeConfig, type V1PolicyRule } from "@kubernetes/client-node";
import { ImageBuildKind } from "../apis/builds/imagebuild.ts";
import { resourceTypeOf } from "../apis/kind.ts";
import { ProviderKind } from "../apis/pipelines/provider.ts";
import { devS3Secret } from "./dev-builds.ts";
import { withDevClient } from "./dev-client.ts";
import { writeServiceAccountKubeconfig } from "./kubeconfig.ts";

export const teamMember = "member";
export const teamRole = "slipway-team-member";
const teamManager = (namespace: string) => `slipway-dev-team-${namespace}`;
const pipelinesGroup = ProviderKind.group;

/** What a team member may do in its namespace: its builds and pipelines, read what they run; no Secrets. */
export const teamMemberRules: V1PolicyRule[] = [
  { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["*"] },
  {
    apiGroups: [pipelinesGroup],
    resources: ["pipelines", "runs", "experiments", "runschedules", "runconfigurations"],
    verbs: ["*"],
  },
  { apiGroups: [pipelinesGroup], resources: ["providers"], verbs: ["get", "list", "watch"] },
  {
    apiGroups: [""],
    resources: ["pods", "pods/log", "events", "configmaps"],
    verbs: ["get", "list", "watch"],
  },
  { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get", "list", "watch"] },
];

type DevObject = { apiVersion: string; kind: string; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** The team's namespace and what is in it (pure). */
export function teamObjects(
  namespace: string,
  s3: { accessKeyId: string; secretAccessKey: string },
): DevObject[] {
  const rbac = "rbac.authorization.k8s.io/v1";
  return [
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, labels: { "slipway.dev/team": "true" } },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: devS3Secret, namespace },
      type: "Opaque",
      stringData: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey },
    },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: teamMember, namespace } },
    { apiVersion: rbac, kind: "Role", metadata: { name: teamRole, namespace }, rules: teamMemberRules },
    {
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: { name: teamRole, namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: teamRole },
      subjects: [{ kind: "ServiceAccount", name: teamMember, namespace }],
    },
  ];
}

/** The team's entry in the platform Provider's allowedNamespaces (applied as the team's own field manager; pure). */
export function providerAllowance(platform: { namespace: string; name: string }, team: string): DevObject {
  return {
    apiVersion: ProviderKind.apiVersion,
    kind: ProviderKind.kind,
    metadata: { name: platform.name, namespace: platform.namespace },
    spec: { allowedNamespaces: [team] },
  };
}

export interface OnboardedTeam {
  kubeconfig: string;
  /** `namespace/name` of the Provider the team may use, or why there is none yet. */
  provider: { name: string } | { missing: string };
}

const memberTokenSeconds = 24 * 3600;

export async function onboardTeam(options: {
  dir: string;
  adminKubeconfig: string;
  namespace: string;
  s3: { accessKeyId: string; secretAccessKey: string };
  platform: { namespace: string; name: string };
}): Promise<OnboardedTeam> {
  const { namespace, platform } = options;
  const admin = new KubeConfig();
  admin.loadFromFile(options.adminKubeconfig);
  const provider = await withDevClient(
    admin,
    async ({ kube }): Promise<OnboardedTeam["provider"]> => {
      for (const object of teamObjects(namespace, options.s3)) await kube.apply(object, { force: true });
      const platformProvider = { namespace: platform.namespace, name: platform.name };
      if (!(await kube.get(resourceTypeOf(ProviderKind), platformProvider)))
        return {
          missing: `no Provider ${platform.namespace}/${platform.name} yet (install the platform: \`make demo\` or \`slipway install --dev\`, then run this again)`,
        };
      await kube.apply(providerAllowance(platform, namespace), { force: true });
      return { name: `${platform.namespace}/${platform.name}` };
    },
    teamManager(namespace),
  );
  await mkdir(join(options.dir, "teams"), { recursive: true });
  const kubeconfig = join(options.dir, "teams", `${namespace}.kubeconfig`);
  await writeServiceAccountKubeconfig(admin, { namespace, name: teamMember }, memberTokenSeconds, kubeconfig);
  return { kubeconfig, provider };
}
