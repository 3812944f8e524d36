import { CustomObjectsApi } from "@kubernetes/client-node";
import pino from "pino";
import { beforeAll, expect, onTestFinished, test } from "vitest";
import { Informer } from "../../../src/kube/informer.ts";
import { type RequestOptions, RestClient, type WatchEvent } from "../../../src/kube/rest.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { Widget, widget, widgetType } from "../../support/test-kind.ts";

beforeAll(() => installCrds([Widget]));

interface Sent {
  kind: "list" | "watch" | "other";
  path: string;
  query: Record<string, unknown>;
}

/**
 * The runtime's REST client as it is, noting every request it sends; the first watch asks for
 * resourceVersion "1", older than the API server's watch cache of the kind (started when its CRD
 * was established, on a plane already written to): 410 Gone, "too old resource version", as a
 * watch resumed after a long disconnection is answered.
 */
class ExpiringFirstWatch extends RestClient {
  readonly sent: Sent[] = [];
  #watches = 0;

  /** The resourceVersion of each list's answer. */
  readonly listedAt: string[] = [];

  override async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const isList = method === "GET" && path.endsWith(`/${widgetType.plural}`);
    this.sent.push({ kind: isList ? "list" : "other", path, query: { ...options.query } });
    const answer = await super.request<T>(method, path, options);
    const listed = (answer as { metadata?: { resourceVersion?: string; continue?: string } }).metadata;
    if (isList && !listed?.continue) this.listedAt.push(listed?.resourceVersion ?? "");
    return answer;
  }

  override watch(
    path: string,
    query: RequestOptions["query"],
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
    idleTimeoutMs?: number,
  ): Promise<void> {
    const asked = this.#watches++ === 0 ? { ...query, resourceVersion: "1" } : { ...query };
    this.sent.push({ kind: "watch", path, query: asked });
    return super.watch(path, asked, onEvent, signal, idleTimeoutMs);
  }
}

test("a watch answered 410 Gone relists once (paged, one LIST) and watches again from that list's resourceVersion", async () => {
  const namespace = await testNamespace("expiry");
  const objects = adminConfig().makeApiClient(CustomObjectsApi);
  const coordinates = { group: Widget.group, version: Widget.version, plural: Widget.plural, namespace };
  const create = (name: string) =>
    objects.createNamespacedCustomObject({ ...coordinates, body: widget(namespace, name, 1) });
  // a CRD another file has just applied again has its watch cache rebuilt: 429 "storage is (re)initializing" until then
  await eventually(
    "widgets listed",
    () => objects.listNamespacedCustomObject(coordinates),
    () => true,
  );
  for (const name of ["w1", "w2", "w3", "w4", "w5"]) await create(name);
  const rest = new ExpiringFirstWatch(adminConfig());
  const informer = new Informer(widgetType, rest, {
    namespaces: [namespace],
    log: pino({ level: "silent" }),
    pageSize: 2,
  });
  const adds: string[] = [];
  const deletes: string[] = [];
  informer.addHandlers({
    add: (object) => adds.push(object.metadata?.name ?? ""),
    delete: (object) => deletes.push(object.metadata?.name ?? ""),
  });
  onTestFinished(async () => {
    await informer.stop();
    rest.close();
  });
  informer.start();
  await informer.waitForSync();
  expect(informer.size).toBe(5);

  // a change made after the expiry reaches the store: the informer watches again
  await create("w6");
  await eventually(
    "the Widget created after the expiry in the informer",
    async () => informer.get(`${namespace}/w6`),
    (object) => object !== undefined,
  );

  expect(informer.stats.relistsAfterGone).toBe(1);
  const kinds = rest.sent.map((request) => request.kind);
  // list (pages of 2, 2 and 1), the expired watch, list again (3 pages), the watch that lasts
  expect(kinds).toEqual(["list", "list", "list", "watch", "list", "list", "list", "watch"]);
  const lists = rest.sent.filter((request) => request.kind === "list");
  for (const list of lists) {
    expect(list.path).toBe(
      `/apis/${Widget.group}/${Widget.version}/namespaces/${namespace}/${Widget.plural}`,
    );
    expect(list.query.limit).toBe(2);
  }
  // pages after the first carry the API server's continue token; a list starts without one
  expect(lists.map((list) => list.query.continue === undefined)).toEqual([
    true,
    false,
    false,
    true,
    false,
    false,
  ]);
  const [expired, resumed] = rest.sent.filter((request) => request.kind === "watch");
  expect(expired?.query).toMatchObject({ resourceVersion: "1", allowWatchBookmarks: true });
  expect(rest.listedAt).toHaveLength(2);
  expect(resumed?.query).toMatchObject({ resourceVersion: rest.listedAt[1], allowWatchBookmarks: true });
  // the relist found what the store already had: no object told twice, none deleted
  expect(adds.sort()).toEqual(["w1", "w2", "w3", "w4", "w5", "w6"]);
  expect(deletes).toEqual([]);
});
