/** A custom resource as the REST API answers it: identity, spec and status as the API server has them. */
export interface ResourceViewOf<Spec, Status> {
  name: string;
  namespace: string;
  createdAt?: string;
  spec: Spec;
  status?: Status;
}

interface Stored<Spec, Status> {
  metadata: { name?: string; namespace?: string; creationTimestamp?: Date | string };
  spec: Spec;
  status?: Status;
}

/**
 * `createdAt` is the API server's RFC 3339 timestamp as it sent it (read with the lean client, a
 * string); a Date (the Kubernetes library's typed clients) is written as one. Parsing and printing
 * every item's timestamp again was a tenth of the server's CPU for a page of Runs.
 */
export function resourceView<Spec, Status>(object: Stored<Spec, Status>): ResourceViewOf<Spec, Status> {
  const created = object.metadata.creationTimestamp;
  const createdAt = typeof created === "string" ? created : created?.toISOString();
  return {
    name: object.metadata.name ?? "",
    namespace: object.metadata.namespace ?? "",
    ...(createdAt ? { createdAt } : {}),
    spec: object.spec,
    ...(object.status ? { status: object.status } : {}),
  };
}
