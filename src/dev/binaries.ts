import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { join } from "node:path";
import { cacheDir, packageRoot } from "./paths.ts";
import { pinnedVersions } from "./versions.ts";

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kubectl: string;
  kwok: string;
  helm: string;
  kubelet: string;
  kubeProxy: string;
}

export function binaryPaths(): Binaries {
  const v = pinnedVersions();
  const bin = join(cacheDir(), "bin");
  const kube = join(bin, `kubernetes-${v.kube}`);
  return {
    etcd: join(bin, `etcd-${v.etcd}`, "etcd"),
    kubeApiserver: join(kube, "kube-apiserver"),
    kubeControllerManager: join(kube, "kube-controller-manager"),
    kubeScheduler: join(kube, "kube-scheduler"),
    kubectl: join(kube, "kubectl"),
    kwok: join(bin, `kwok-${v.kwok}`, "kwok"),
    helm: join(bin, `helm-${v.helm}`, "helm"),
    kubelet: join(kube, "kubelet"),
    kubeProxy: join(kube, "kube-proxy"),
  };
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Builds whatever control-plane binary is missing (tools/kube/build.sh skips what is cached) and returns their paths. */
export async function ensureBinaries(
  log: (line: string) => void = () => {},
  options: { realNode?: boolean } = {},
): Promise<Binaries> {
  const paths = binaryPaths();
  const { helm: _helmIsNotNeededToRun, kubelet, kubeProxy, ...controlPlane } = paths;
  const needed = [...Object.values(controlPlane), ...(options.realNode ? [kubelet, kubeProxy] : [])];
  const present = await Promise.all(needed.map(isExecutable));
  if (present.every(Boolean)) return paths;
  log("building the control-plane binaries from the Go module proxy (first time only; takes minutes)");
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [join(packageRoot, "tools/kube/build.sh")], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`tools/kube/build.sh exited with code ${code}`)),
    );
  });
  return paths;
}
