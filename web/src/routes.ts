/** The UI's pages and their addresses (pure): `/builds/:namespace/:name?` etc., the namespace also as `?namespace=`. */

export type Section = "builds" | "pipelines" | "runs" | "providers";
export type Route =
  | { page: "overview" }
  | { page: "update" }
  | { page: Section; namespace?: string; name?: string; query: URLSearchParams };

const sections: readonly Section[] = ["builds", "pipelines", "runs", "providers"];
const isSection = (value: string | undefined): value is Section => sections.includes(value as Section);

/** The route of an address: `/`, `/update`, `/<section>?namespace=NS`, `/<section>/<namespace>/<name>`. */
export function parseRoute(pathname: string, search: string): Route {
  const [first, second, third] = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(search);
  if (first === "update") return { page: "update" };
  if (!isSection(first)) return { page: "overview" };
  const namespace = second ?? query.get("namespace") ?? undefined;
  // providers has no detail page: a name there is ignored
  const name = first !== "providers" ? third : undefined;
  return { page: first, query, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
}

/** The address of a section's list in `namespace` (`extra`: more query parameters). */
export function listHref(
  section: Section,
  namespace: string | undefined,
  extra: Record<string, string> = {},
) {
  const query = new URLSearchParams({ ...(namespace ? { namespace } : {}), ...extra }).toString();
  return `/${section}${query ? `?${query}` : ""}`;
}

export function detailHref(section: Section, namespace: string, name: string): string {
  return `/${section}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/** The resource (plural) whose list access decides which namespaces a section offers. */
export const sectionResource: Record<Section, string> = {
  builds: "imagebuilds",
  pipelines: "pipelines",
  runs: "runs",
  providers: "providers",
};

export const sectionTitle: Record<Section, string> = {
  builds: "Builds",
  pipelines: "Pipelines",
  runs: "Runs",
  providers: "Providers",
};
