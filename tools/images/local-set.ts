/** Builds the real node's local image set (what tools/setup/30-images.sh runs) and prints "<reference> <archive>" per image. */
import { ensureLocalImages } from "../../src/dev/real-node/images.ts";

try {
  for (const image of await ensureLocalImages((line) => console.error(line)))
    console.log(`${image.reference} ${image.archive}`);
} catch (error) {
  // build.sh has already said why in its own `[tools/images] error: …` line; no stack trace after it
  console.error(`[tools/images] ${(error as Error).message}`);
  process.exitCode = 1;
}
