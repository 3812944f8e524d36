/**
 * How a backend that cannot change a schedule in place replaces it, never with two live ones (each
 * would start every run) and never leaving none after a refusal: the old one is paused, the new one
 * created, the old one deleted. A refused create resumes the old one; an old one that cannot be
 * deleted takes the new one away again and is resumed. Either way the replacement fails, to be
 * retried. A due time between the pause and the create is started by neither (missed, not doubled).
 */
import type { BackendObjects, ProviderAt, ProviderConfig, RunScheduleDefinition } from "./backend.ts";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface PausableSchedules extends Pick<BackendObjects<RunScheduleDefinition>, "create" | "delete"> {
  /** Stops starting runs (one that does not exist is not an error). */
  pause(provider: ProviderAt, id: string): Promise<void>;
  resume(provider: ProviderAt, id: string): Promise<void>;
}

/** Runs `undo`; its failure is added to `error`'s message, which is thrown either way. */
async function failWith(error: unknown, undo: () => Promise<void>, what: string): Promise<never> {
  const undone = await undo().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (undone === undefined) throw error;
  throw new Error(`${errorText(error)}; ${what} (${errorText(undone)})`);
}

/** The new schedule's id; `what` names the backend's kind of schedule in the errors. */
export async function replaceSchedule(
  schedules: PausableSchedules,
  provider: ProviderConfig,
  old: string,
  definition: RunScheduleDefinition,
  what: string,
): Promise<string> {
  const at = { key: provider.key, config: provider };
  await schedules.pause(at, old);
  let created: string;
  try {
    created = await schedules.create(provider, definition);
  } catch (error) {
    return failWith(error, () => schedules.resume(at, old), `the old ${what} ${old} stays paused`);
  }
  try {
    await schedules.delete(at, old);
  } catch (error) {
    return failWith(
      error,
      async () => {
        await schedules.delete(at, created);
        await schedules.resume(at, old);
      },
      `the new ${what} ${created} or the old one's resumption failed too: delete whichever of the two is not wanted`,
    );
  }
  return created;
}
