/**
 * Where `install --dev` puts the platform's pods: kwok's fake nodes (the default: kwok plays every
 * pod's lifecycle, so the platform reports Running while no container runs), or, with `--real-node`
 * on a `slipway dev` plane that has one, the real node with the settings `dev demo` uses
 * (realNodeInstallSettings). The plane is known from the kubeconfig: `slipway dev` writes it into its
 * dev directory, next to the state that records the real node.
 */
import { dirname, resolve } from "node:path";
import { type RealNodeInstallSettings, realNodeInstallSettings } from "../../dev/real-node/platform-flags.ts";
import { readState } from "../../dev/state.ts";
import { UserError } from "../run.ts";

/** A `slipway dev` control plane, as install needs to know it. */
export interface DevPlane {
  dir: string;
  realNode: boolean;
  /** why it has no real node, in one line (the dev state's realNodeSkipped) */
  realNodeSkipped?: string;
}

/** The install options the placement sets: those of RealNodeInstallSettings, and the version. */
export type PlacementFlags = Partial<RealNodeInstallSettings> & { version?: string };

export interface DevPlacement {
  /** the real node's settings, under the flags given (each flag given wins; `--set`s given come after) */
  flags: PlacementFlags;
  /** said before waiting for Running: that the pods go to the real node */
  notice?: string;
  /** said last (after Running, which kwok reports within seconds): that no container runs, and how to get the real node */
  simulated?: string;
}

const kwokNotice =
  "the platform's pods are on kwok's fake nodes: kwok plays their lifecycle (Running, Ready) and no container runs";

/**
 * The placement of `install --dev [--real-node]` on `plane` (undefined: the kubeconfig is no
 * `slipway dev` plane's), with the flags given; `nodeRelease`: the release whose images the real
 * node holds (`slipway dev up` imports the newest one's), the only one that can run there. Pure.
 */
export function devPlacement(
  plane: DevPlane | undefined,
  flags: PlacementFlags & { realNode?: boolean },
  nodeRelease: string,
): DevPlacement {
  if (!plane) {
    if (flags.realNode) {
      throw new UserError(
        "--real-node: the kubeconfig is not a `slipway dev` control plane's (use the one `slipway dev env --path` prints)",
      );
    }
    return { flags: {} };
  }
  if (!plane.realNode) {
    const why = `this control plane has no real node (${plane.realNodeSkipped ?? "started without one"}): \`slipway dev down --dir ${plane.dir}\` then \`slipway dev up --dir ${plane.dir}\`, without --no-real-node or SLIPWAY_REAL_NODE=0, starts one if this machine can run it`;
    if (flags.realNode) throw new UserError(`--real-node: ${why}`);
    return { flags: {}, simulated: `${kwokNotice}; ${why}` };
  }
  if (!flags.realNode) {
    return {
      flags: {},
      simulated: `${kwokNotice}; this control plane has a real node: \`slipway install --dev --real-node\` installs there (as \`slipway dev demo\` does)`,
    };
  }
  if (flags.version !== undefined && flags.version !== nodeRelease) {
    throw new UserError(
      `--version ${flags.version} with --real-node: the real node holds the images of release ${nodeRelease} only (leave --version out to install it)`,
    );
  }
  const settings = realNodeInstallSettings();
  return {
    flags: {
      version: nodeRelease,
      storageClass: flags.storageClass ?? settings.storageClass,
      artifactsSize: flags.artifactsSize ?? settings.artifactsSize,
      registrySize: flags.registrySize ?? settings.registrySize,
      builderCacheSize: flags.builderCacheSize ?? settings.builderCacheSize,
      set: [...settings.set, ...(flags.set ?? [])],
    },
    notice: `the platform's pods go to the real node, release ${nodeRelease} (the one whose images it holds)`,
  };
}

/**
 * The `slipway dev` plane whose kubeconfig this is: its directory holds the state that names this
 * very file; undefined for any other kubeconfig (or a list of them in $KUBECONFIG).
 */
export async function devPlaneOf(kubeconfig: string | undefined): Promise<DevPlane | undefined> {
  if (!kubeconfig || kubeconfig.includes(":")) return undefined;
  const path = resolve(kubeconfig);
  const dir = dirname(path);
  const state = await readState(dir).catch(() => undefined);
  if (!state || resolve(state.kubeconfig) !== path) return undefined;
  return {
    dir,
    realNode: state.realNode !== undefined,
    ...(state.realNodeSkipped ? { realNodeSkipped: state.realNodeSkipped } : {}),
  };
}
