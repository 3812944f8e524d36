import { Cron } from "croner";
import type { DefinitionBlocker } from "../blockers.ts";

/** The API server's pattern only shapes a cron expression; croner checks that it means something. */
export function checkCron(expression: string): DefinitionBlocker | undefined {
  try {
    new Cron(expression, { paused: true }).stop();
    return undefined;
  } catch (error) {
    return {
      reason: "InvalidSchedule",
      message: `spec.schedule.cronExpression: "${expression}" is not a valid cron expression (${(error as Error).message})`,
    };
  }
}
