/**
 * The API versions every Slipway kind is served at, in one place. A kind is defined once, at its
 * storage version (v1beta1, the `version` of its definition); each older version it is still served
 * at is derived from that definition by the changes listed here (renamed fields, fields the older
 * version lacks, its printer columns), so a field added to the shared schemas later needs no second
 * edit. The CRD generator (crd.ts) and the conversion webhook (conversion.ts) read the same table.
 */
import type { Kind, PrinterColumn } from "./kind.ts";

export const storageVersion = "v1beta1";

/** Where the operator's webhook server answers the CRDs' ConversionReviews. */
export const conversionPath = "/convert";

/** How an older served version differs from the storage version's definition. */
export interface OlderVersion {
  name: string;
  /** Storage-version field path → this version's path (dotted, from the object's root: `status.completedAt`). */
  renames: Record<string, string>;
  /** Storage-version field paths this version lacks: kept in an annotation while an object is read at it. */
  lacks: string[];
  /** This version's printer columns, from the storage version's (renamed paths already followed). */
  printerColumns?: (columns: PrinterColumn[]) => PrinterColumn[];
}

/** The storage version's fields a version lacks, as JSON (`{"status.x": …}`), while an object is read at it. */
export const lackedFieldsAnnotation = "conversion.slipway.dev/v1beta1-fields";

/** The `Sync` column (a pipeline kind's backend synchronization state) as v1alpha1 named it: `State`. */
const stateColumn = ({ priority: _priority, ...column }: PrinterColumn): PrinterColumn => ({
  ...column,
  name: "State",
});

const syncColumnWasState = (columns: PrinterColumn[]): PrinterColumn[] =>
  columns.map((column) => (column.name === "Sync" ? stateColumn(column) : column));

interface V1alpha1Changes {
  renames?: Record<string, string>;
  lacks?: string[];
  printerColumns?: (columns: PrinterColumn[]) => PrinterColumn[];
}

/** What v1alpha1 spelled differently, per kind (`group/Kind`); docs/api-machinery.md "v1alpha1 → v1beta1". */
const v1alpha1Changes: Record<string, V1alpha1Changes> = {
  "platform.slipway.dev/Platform": {},
  "platform.slipway.dev/Component": {},
  "pipelines.slipway.dev/Provider": {},
  "pipelines.slipway.dev/Pipeline": { printerColumns: syncColumnWasState },
  "pipelines.slipway.dev/Experiment": { printerColumns: syncColumnWasState },
  "pipelines.slipway.dev/Run": {
    renames: { "status.completedAt": "status.markedCompletedAt" },
    // v1alpha1: Pipeline, Provider, State (the synchronization), Completion
    printerColumns: (columns) => {
      const named = (name: string) => columns.filter((column) => column.name === name);
      return [
        ...named("Pipeline"),
        ...named("Provider"),
        ...named("Sync").map(stateColumn),
        ...named("Completion"),
      ];
    },
  },
  "pipelines.slipway.dev/RunSchedule": { printerColumns: syncColumnWasState },
  "pipelines.slipway.dev/RunConfiguration": {},
  "builds.slipway.dev/ImageBuild": {},
};

/** The older versions `kind` is still served at (none for a kind not in the table, e.g. a test's). */
export function olderVersionsOf(kind: Pick<Kind, "group" | "kind">): OlderVersion[] {
  const changes = v1alpha1Changes[`${kind.group}/${kind.kind}`];
  if (!changes) return [];
  return [
    {
      name: "v1alpha1",
      renames: changes.renames ?? {},
      lacks: changes.lacks ?? [],
      ...(changes.printerColumns ? { printerColumns: changes.printerColumns } : {}),
    },
  ];
}

/** The kinds of the table (`group/Kind`), for the check that every registered kind is in it. */
export const versionedKinds = (): string[] => Object.keys(v1alpha1Changes);
