import type { KubeConfig } from "@kubernetes/client-node";
import { podLogPath } from "../kube/core-types.ts";
import { describeObject, logKey, type PodLogs, podsIn } from "./describe-object.ts";
import { withDevClient } from "./dev-client.ts";

/**
 * The last `tailLines` log lines of each started container of the pods in `value`, read through the
 * API server (pods/log); a read that fails or takes over `timeoutMs` gives its reason instead.
 */
export async function podLogs(
  config: KubeConfig,
  value: unknown,
  options: { tailLines?: number; timeoutMs?: number } = {},
): Promise<PodLogs> {
  const { tailLines = 20, timeoutMs = 5_000 } = options;
  return withDevClient(config, async ({ rest }) => {
    const reads = podsIn(value)
      .slice(0, 10)
      .flatMap(({ namespace, name, containers }) =>
        containers.map(async (container): Promise<[string, string[] | string]> => {
          const key = logKey(namespace, name, container);
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve(`no answer in ${timeoutMs / 1000}s`), timeoutMs);
          });
          const read = rest
            .request<string>("GET", podLogPath(namespace, name), { query: { container, tailLines } })
            .then(
              (text) => (text ? text.replace(/\n$/, "").split("\n") : []),
              (error: Error) => error.message.split("\n")[0] ?? String(error),
            );
          try {
            return [key, await Promise.race([read, late])];
          } finally {
            clearTimeout(timer);
          }
        }),
      );
    return new Map(await Promise.all(reads));
  });
}

/** `describeObject` of `value` with its pods' last log lines. */
export async function describeWithLogs(config: KubeConfig, value: unknown): Promise<string> {
  const logs = await podLogs(config, value).catch(() => new Map());
  return describeObject(value, { logs });
}
