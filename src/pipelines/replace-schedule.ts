/**
 * How a backend that cannot change a schedule in place replaces it: the new one is created before
 * the old one goes, so a refused create leaves the live one running; when the old one cannot be
 * deleted, the new one goes again (two live schedules would start every run twice) and the
 * replacement fails, to be retried.
 */
import type { BackendObjects, ProviderConfig, RunScheduleDefinition } from "./backend.ts";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The new schedule's id; `what` names the backend's kind of schedule in the error of a failed undo. */
export async function replaceSchedule(
  objects: Pick<BackendObjects<RunScheduleDefinition>, "create" | "delete">,
  provider: ProviderConfig,
  old: string,
  definition: RunScheduleDefinition,
  what: string,
): Promise<string> {
  const created = await objects.create(provider, definition);
  const at = { key: provider.key, config: provider };
  try {
    await objects.delete(at, old);
  } catch (error) {
    const undone = await objects.delete(at, created).then(
      () => undefined,
      (undo: unknown) => undo,
    );
    if (undone === undefined) throw error;
    throw new Error(
      `${errorText(error)}; the new ${what} ${created} could not be deleted either (${errorText(undone)}): both start runs until one is deleted`,
    );
  }
  return created;
}
