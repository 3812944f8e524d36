import { expect, onTestFinished, test } from "vitest";
import { RestClient } from "../../../src/kube/rest.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

test("the REST client asks for gzip: a list over 128 KB arrives compressed and reads back whole; a small answer plain", async () => {
  const namespace = await testNamespace("gzip");
  const encodings: (string | undefined)[] = [];
  const rest = new RestClient(adminConfig(), {
    onRequest: (_code, method, contentEncoding) => {
      if (method === "GET") encodings.push(contentEncoding);
    },
  });
  onTestFinished(() => rest.close());
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  // 8 ConfigMaps of 24 KB each: the list is about 200 KB, over the API server's 128 KB threshold
  const names = Array.from({ length: 8 }, (_, i) => `large-${i}`);
  for (const name of names)
    await rest.request("POST", path, {
      body: { metadata: { name }, data: { payload: `${name}:`.padEnd(24_000, "x") } },
    });
  const list = await rest.request<{ items: { metadata: { name: string }; data: { payload: string } }[] }>(
    "GET",
    path,
  );
  const large = list.items.filter((item) => item.metadata.name.startsWith("large-"));
  expect(large.map((item) => item.metadata.name).sort()).toEqual(names);
  expect(large.every((item) => item.data.payload.length === 24_000)).toBe(true);
  const one = await rest.request<{ metadata: { name: string } }>("GET", `${path}/large-0`);
  expect(one.metadata.name).toBe("large-0");
  expect(encodings).toEqual(["gzip", undefined]);
});
