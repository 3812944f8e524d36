import { type Command, CommanderError } from "commander";

/** A mistake of the user's (bad flag, missing resource): printed as one line, never with a stack trace. */
export class UserError extends Error {
  override name = "UserError";
}

/**
 * Runs the program and turns every failure into one readable line on stderr and a non-zero exit.
 * Unexpected errors keep their stack only when SLIPWAY_DEBUG is set.
 */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return; // commander has already printed its message
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    if (process.env.SLIPWAY_DEBUG && error instanceof Error && !(error instanceof UserError)) {
      process.stderr.write(`${error.stack}\n`);
    }
    process.exitCode = 1;
  }
}
