/** Builds the real node's local image set (what tools/setup/30-images.sh runs) and prints "<reference> <archive>" per image. */
import { ensureLocalImages } from "../../src/dev/real-node/images.ts";

for (const image of await ensureLocalImages((line) => console.error(line)))
  console.log(`${image.reference} ${image.archive}`);
