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

export function resourceView<Spec, Status>(object: Stored<Spec, Status>): ResourceViewOf<Spec, Status> {
  const created = object.metadata.creationTimestamp;
  return {
    name: object.metadata.name ?? "",
    namespace: object.metadata.namespace ?? "",
    ...(created ? { createdAt: new Date(created).toISOString() } : {}),
    spec: object.spec,
    ...(object.status ? { status: object.status } : {}),
  };
}
