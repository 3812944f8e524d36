/**
 * What every webhook for a kind that names Secrets decides the same way (pure): which Secrets to ask
 * about, and which reference the requester may not read.
 */

/** A place where an object names a Secret of its namespace. */
export interface NamedSecret {
  secret: string;
}

/** The Secrets to ask about, each once. */
export const secretsToReview = (references: readonly NamedSecret[]): string[] => [
  ...new Set(references.map((reference) => reference.secret)),
];

/** The first reference whose Secret is not among `readable` (those the requester may get), if any. */
export const firstUnreadable = <Reference extends NamedSecret>(
  references: readonly Reference[],
  readable: ReadonlySet<string>,
): Reference | undefined => references.find((reference) => !readable.has(reference.secret));
